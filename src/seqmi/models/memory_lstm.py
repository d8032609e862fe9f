"""LSTM cores with a memory of past states: plain, full attention (MemLSTM), relevancy screening (RelLSTM).

The LSTM variants of Kerg et al. 2020 (supplement, App. B; ``notes/kerg.md``) used as the
recurrent core of a reinforcement-learning agent. At step ``t``

- the LSTM cell reads ``[x_t, s_{t-1}]`` and gives ``h_t`` (the attentive kinds feed the
  previous output ``s_{t-1}`` to the gates, as the authors' LSTM variant does);
- attention over a set ``A_t`` of past states scores ``e_i = v^T tanh(W s_{t-1} + U h_i)``,
  ``alpha = softmax(e)``, ``c_t = sum_i alpha_i h_i``;
- the output is ``s_t = (h_t + c_t) / 2``.

``A_t`` is every state so far (``"full"``, MemLSTM) or, with relevancy screening
(``"relevancy"``, RelLSTM), the last ``nu`` states (the short-term buffer, ``h_t``
included) and at most ``rho`` older ones (the relevant set). A state's relevance is the sum
of the attention weights (detached) it received while in the buffer; when it leaves the
buffer it enters the relevant set if there is room, else replaces the least relevant
member if it scored higher. ``"lstm"`` is the plain LSTM: ``s_t = h_t``.

Unlike :class:`seqmi.models.attentive_rnn.TaskModel` (whole sequences, a compiled scan),
these cores also run one step at a time with their memory carried in a
:class:`MemoryState`, as an agent acting in an environment needs. The batch's sequences
start together (every step index is shared), which is how :mod:`seqmi.recipes.ppo` collects episodes.

Shape comments in the code use these letters: ``B`` batch size, ``T`` sequence length (steps),
``I`` input width (``input_size``, the width of ``x_t``), ``C`` hidden width (``hidden_size``, the
``n`` of the docstrings: the width of ``h_t``, ``c_t`` and ``s_t``), ``M`` states attended at one step
(``t + 1`` with ``"full"``; the ``nu + rho`` slots, buffer then relevant set, with ``"relevancy"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

from seqmi.device import DeviceLike, resolve_device
from seqmi.validate import check_choice, check_int

#: The core kinds, in order plain LSTM, full attention (MemLSTM) and relevancy screening (RelLSTM).
KINDS = ("lstm", "full", "relevancy")


@dataclass
class MemoryState:
    """What a :class:`MemoryLSTM` carries from one step to the next (batch first).

    Attributes
    ----------
    step : int
        Steps taken (shared by the batch).
    h, c, s : Tensor, shape (B, n)
        The LSTM's hidden and cell states and the core's last output.
    states, keys : list of Tensor, or Tensor
        ``"full"``: a list of every past ``h`` and of its key ``U h``. ``"relevancy"``: a
        tensor ``(B, nu + rho, n)``, the buffer's ``nu`` slots (a ring: state ``t`` in slot
        ``t % nu``) then the relevant set's ``rho``.
    score : Tensor, shape (B, nu + rho)
        ``"relevancy"``: each slot's relevance.
    valid : Tensor of bool, shape (B, nu + rho)
        ``"relevancy"``: which slots hold a state.
    """

    step: int
    h: torch.Tensor
    c: torch.Tensor
    s: torch.Tensor
    states: list[torch.Tensor] | torch.Tensor = field(default_factory=list)
    keys: list[torch.Tensor] | torch.Tensor = field(default_factory=list)
    score: torch.Tensor | None = None
    valid: torch.Tensor | None = None


class MemoryLSTM(nn.Module):
    """An LSTM core, optionally attending to its past states (see the module docstring).

    Parameters
    ----------
    input_size, hidden_size : int
        Widths of ``x_t`` and ``h_t``.
    kind : {"lstm", "full", "relevancy"}
        See :data:`KINDS`.
    nu, rho : int
        Buffer and relevant-set sizes of ``"relevancy"`` (the authors' MiniGrid values: 5, 5).
    """

    def __init__(self, input_size: int, hidden_size: int, kind: str = "relevancy", nu: int = 5, rho: int = 5) -> None:
        super().__init__()
        check_int("input_size", input_size, 1)
        check_int("hidden_size", hidden_size, 1)
        check_choice("kind", kind, KINDS)
        check_int("nu", nu, 1)
        check_int("rho", rho, 0)
        self.kind, self.hidden_size, self.nu, self.rho = kind, hidden_size, nu, rho
        n = hidden_size
        self.cell = nn.LSTMCell(input_size + (n if kind != "lstm" else 0), n)
        if kind != "lstm":
            self.W_a = nn.Linear(n, n, bias=False)
            self.U_a = nn.Linear(n, n, bias=False)
            self.v_a = nn.Parameter(torch.randn(n) / n ** 0.5)

    def initial_state(self, batch: int, device: DeviceLike = "cpu") -> MemoryState:
        """The empty memory of ``batch`` sequences."""
        device = resolve_device(device)
        zeros = torch.zeros(batch, self.hidden_size, device=device)  # (B, C)
        state = MemoryState(0, zeros, zeros, zeros)
        if self.kind == "relevancy":
            slots = self.nu + self.rho
            state.states = torch.zeros(batch, slots, self.hidden_size, device=device)  # (B, M, C)
            state.keys = torch.zeros(batch, slots, self.hidden_size, device=device)  # (B, M, C)
            state.score = torch.zeros(batch, slots, device=device)  # (B, M)
            state.valid = torch.zeros(batch, slots, dtype=torch.bool, device=device)  # (B, M)
        return state

    def step(self, x: torch.Tensor, state: MemoryState) -> tuple[torch.Tensor, MemoryState]:
        """One step: ``x`` of shape ``(B, input_size)`` to ``s_t`` of shape ``(B, n)`` and the new state."""
        if self.kind == "lstm":
            h, c = self.cell(x, (state.h, state.c))  # x (B, I) -> (B, C) each
            return h, MemoryState(state.step + 1, h, c, h)
        h, c = self.cell(torch.cat([x, state.s], dim=1), (state.h, state.c))  # [x_t, s_{t-1}] (B, I + C) -> (B, C) each
        key = self.U_a(h)  # (B, C)
        query = self.W_a(state.s)  # (B, C)
        if self.kind == "full":
            states, keys = [*state.states, h], [*state.keys, key]  # M = t + 1 tensors (B, C) each
            # stacked (B, M, C) each: context (B, C)
            context, _ = self._attend(query, torch.stack(states, 1), torch.stack(keys, 1), None)
            s = 0.5 * (h + context)  # (B, C)
            return s, MemoryState(state.step + 1, h, c, s, states, keys)
        return self._relevancy_step(h, c, key, query, state)

    def _attend(self, query: torch.Tensor, states: torch.Tensor, keys: torch.Tensor,
                valid: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Additive attention of ``query`` (B, n) over ``states`` and ``keys`` (B, m, n)."""
        e = torch.tanh(query[:, None, :] + keys) @ self.v_a  # (B, 1, C) + (B, M, C) -> scores (B, M)
        if valid is not None:
            e = e.masked_fill(~valid, float("-inf"))  # (B, M)
        alpha = torch.softmax(e, dim=1)  # (B, M)
        return torch.bmm(alpha[:, None, :], states)[:, 0], alpha  # (B, 1, M) @ (B, M, C) -> (B, C); alpha (B, M)

    def _relevancy_step(self, h: torch.Tensor, c: torch.Tensor, key: torch.Tensor, query: torch.Tensor,
                        state: MemoryState) -> tuple[torch.Tensor, MemoryState]:
        nu, t = self.nu, state.step
        states, keys, score, valid = state.states, state.keys, state.score, state.valid
        slots = torch.arange(nu + self.rho, device=h.device)  # (M,)
        slot = t % nu
        if t >= nu and self.rho:
            # the state leaving the buffer: into a free relevant slot, else over the least relevant if it scored higher
            free = ~valid[:, nu:]  # (B, rho)
            rel_score = score[:, nu:].masked_fill(free, float("-inf"))  # (B, rho)
            target = nu + torch.where(free.any(1), free.float().argmax(1), rel_score.argmin(1))  # (B,)
            admit = free.any(1) | (score[:, slot] > rel_score.min(1).values)  # (B,)
            into = admit[:, None] & (slots[None, :] == target[:, None])  # (B, M)
            states = torch.where(into[..., None], states[:, slot:slot + 1], states)  # (B, M, C)
            keys = torch.where(into[..., None], keys[:, slot:slot + 1], keys)  # (B, M, C)
            score = torch.where(into, score[:, slot:slot + 1], score)  # (B, M)
            valid = valid | into  # (B, M)
        here = slots == slot  # (M,)
        states = torch.where(here[None, :, None], h[:, None], states)  # (B, M, C)
        keys = torch.where(here[None, :, None], key[:, None], keys)  # (B, M, C)
        valid = valid | here  # (B, M)
        context, alpha = self._attend(query, states, keys, valid)  # (B, C), (B, M)
        # relevance accrues only while a state sits in the buffer; the new state's starts at zero
        score = torch.where(here, 0.0, score) + alpha.detach() * (slots < nu)  # (B, M)
        s = 0.5 * (h + context)  # (B, C)
        return s, MemoryState(t + 1, h, c, s, states, keys, score, valid)

    def forward(self, x: torch.Tensor, state: MemoryState | None = None) -> tuple[torch.Tensor, MemoryState]:
        """Run over ``x`` of shape ``(B, T, input_size)`` from ``state`` (default: empty memory).

        Returns
        -------
        s : Tensor, shape (B, T, n)
        state : MemoryState
            The memory after the last step.
        """
        if state is None:
            state = self.initial_state(x.shape[0], x.device)
        outputs = []
        for xt in x.unbind(1):  # x (B, T, I): T steps of (B, I)
            s, state = self.step(xt, state)  # (B, C)
            outputs.append(s)
        return torch.stack(outputs, 1), state  # (B, T, C)
