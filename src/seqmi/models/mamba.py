"""Mamba state-space models from ``mambapy`` (pure PyTorch): a backbone and a token LM.

The SSM side of the Transformer-vs-SSM comparisons of Chen et al. 2025 (L2M): the
backbone of :class:`seqmi.models.gaussian_lm.GaussianSequenceModel` (Fig. 4) and the
character-level language model of the natural-text version (Fig. 5).

Shape comments in the code use these letters: ``B`` batch size, ``T`` sequence length (the
``L`` of Gu and Dao 2023), ``C`` width (``d_model``, their ``D``), ``V`` vocabulary (``vocab_size``;
the inputs have ``V + 1`` ids, the start token's included).
"""

from __future__ import annotations

import torch
from torch import nn

from seqmi._optional import require
from seqmi.validate import check_int


class MambaBackbone(nn.Module):
    """``mambapy``'s Mamba stack (parallel scan, pure PyTorch) with a final LayerNorm."""

    def __init__(self, d_model: int, n_layers: int, d_state: int) -> None:
        super().__init__()
        mamba = require("mambapy.mamba")

        self.mamba = mamba.Mamba(mamba.MambaConfig(d_model=d_model, n_layers=n_layers, d_state=d_state))
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln_f(self.mamba(x))  # (B, T, C) -> (B, T, C)


class MambaLM(nn.Module):
    """Token-level Mamba language model: embedding, :class:`MambaBackbone`, linear head.

    Has the interface of :class:`seqmi.models.lm.TransformerLM` that :func:`seqmi.train.train`
    and :func:`seqmi.train.sequence_loss` use: ``bos`` (an extra input id) and
    ``forward(tokens) -> logits``.

    Parameters
    ----------
    vocab_size : int
    width : int
        ``d_model`` of the Mamba blocks.
    depth : int
        Number of Mamba blocks.
    d_state : int
        SSM state per channel.
    """

    amp_safe = False  # the selective scan accumulates over the whole sequence: keep float32

    def __init__(self, vocab_size: int, width: int, depth: int = 1, d_state: int = 16) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, 2)
        check_int("width", width, 1)
        check_int("depth", depth, 1)
        check_int("d_state", d_state, 1)
        self.bos = vocab_size
        self.embed = nn.Embedding(vocab_size + 1, width)
        self.backbone = MambaBackbone(width, depth, d_state)
        self.head = nn.Linear(width, vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``(batch, time, vocab_size)``."""
        return self.head(self.backbone(self.embed(tokens)))  # (B, T) -> (B, T, C) -> (B, T, C) -> (B, T, V)
