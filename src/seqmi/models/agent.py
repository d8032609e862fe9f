"""The recurrent MiniGrid agent of Kerg et al. 2020 (supplement App. B, Table 4): a network.

It reads MiniGrid's egocentric 7 x 7 view (each cell's object, colour and state, one-hot)
through a linear layer into a :class:`~seqmi.models.memory_lstm.MemoryLSTM` core (plain
LSTM, MemLSTM or RelLSTM), whose output feeds a policy and a value head. Its training by
PPO is :mod:`seqmi.recipes.ppo`.

Shape comments in the code use these letters:

- ``B``: episodes (one per environment), ``T``: steps of an episode;
- ``D``: one view's one-hot width, ``7 * 7 * sum(CELL_CODES)``;
- ``C``: the width of the embedding and of the core (``hidden``), ``A``: actions.
"""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.models.memory_lstm import MemoryLSTM, MemoryState
from seqmi.validate import check_int

#: Widths of the one-hot parts of MiniGrid's cell encoding (object types, colours, states).
CELL_CODES = (11, 6, 3)
#: The actions the agent may take (turn left, turn right, move forward). The Memory
#: environments ignore the other four (pick up, drop, toggle, done) but count their steps.
ACTIONS = (0, 1, 2)


def encode_views(images: NDArray[np.integer]) -> torch.Tensor:
    """One-hot encoding of MiniGrid views ``(B, 7, 7, 3)`` as floats ``(B, 7 * 7 * 20)``."""
    parts = [np.eye(n, dtype=np.float32)[images[..., i]] for i, n in enumerate(CELL_CODES)]
    return torch.from_numpy(np.concatenate(parts, axis=-1).reshape(len(images), -1))


class Agent(nn.Module):
    """View encoder, memory core and policy and value heads.

    Parameters
    ----------
    kind : {"lstm", "full", "relevancy"}
        The core (:data:`seqmi.models.memory_lstm.KINDS`).
    hidden : int
        Width of the view embedding and of the core.
    nu, rho : int
        The relevancy core's buffer and relevant-set sizes.
    view : int
        Side of the agent's square view (MiniGrid: 7).
    """

    def __init__(self, kind: str, hidden: int = 64, nu: int = 5, rho: int = 5, view: int = 7) -> None:
        super().__init__()
        check_int("hidden", hidden, 1)
        self.embed = nn.Sequential(nn.Linear(view * view * sum(CELL_CODES), hidden), nn.ReLU())
        self.core = MemoryLSTM(hidden, hidden, kind, nu, rho)
        self.policy = nn.Linear(hidden, len(ACTIONS))
        self.value = nn.Linear(hidden, 1)

    def step(self, views: torch.Tensor, state: MemoryState) -> tuple[torch.Tensor, torch.Tensor, MemoryState]:
        """Action logits ``(B, A)``, values ``(B,)`` and the new memory for one step's views."""
        s, state = self.core.step(self.embed(views), state)  # (B, C)
        return self.policy(s), self.value(s)[:, 0], state

    def forward(self, views: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(B, T, A)`` and values ``(B, T)`` of episodes ``(B, T, D)`` from their first step."""
        s, _ = self.core(self.embed(views))  # (B, T, C)
        return self.policy(s), self.value(s)[..., 0]
