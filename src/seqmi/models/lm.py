"""Autoregressive language models with one interface: RNN/LSTM and a decoder-only Transformer.

Both models read token ids ``0 .. vocab_size - 1`` plus one extra id, ``vocab_size``
itself, the *start token* (BOS): a sequence ``x_1 .. x_L`` is modelled as
``p(x_1 | BOS) p(x_2 | BOS, x_1) ...``, so that :meth:`~RNNLM.sample` can draw sequences
unconditionally from the start state, as Shen 2019 does (Sec. 4.2, 5).

Interface shared by :class:`RNNLM` and :class:`TransformerLM`:

- ``forward(tokens) -> logits``: ``tokens`` of shape ``(batch, time)`` (ids in
  ``[0, vocab_size]``), logits of shape ``(batch, time, vocab_size)``; ``logits[:, t]``
  is the distribution of the token that follows ``tokens[:, :t + 1]``.
- ``sample(n, length, seed) -> ndarray (n, length)``: batched ancestral sampling from
  BOS, reproducible from ``seed``.
- ``history_state_size(length) -> int``: how many floats the model keeps about the past
  after reading ``length`` tokens (hidden state for RNNs, key/value cache for the
  Transformer): the "memory" whose scaling Chen et al. 2025 bound.
- ``amp_safe``: whether bf16 autocast is numerically safe for training (see
  :mod:`seqmi.train`).

Shape comments in the code use these letters:

- ``B``: batch size; ``T``: sequence length (time steps, the start token included);
- ``C``: width, the hidden units of a recurrent layer or the Transformer's model width (the ``m`` of
  Shen 2019); ``E``: embedding size (``embed_dim``);
- ``V``: vocabulary (``vocab_size``; the inputs have ``V + 1`` ids, the start token's included);
- ``H``: attention heads, ``D = C / H``: head dimension; ``P``: positions already in the key/value cache.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn
from torch.nn import functional as F

from seqmi.validate import check_choice, check_int

CELLS = ("rnn", "lstm")


def _generator(seed: int, device: torch.device) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(int(seed))
    return gen


def _draw(logits: torch.Tensor, gen: torch.Generator, temperature: float) -> torch.Tensor:
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    return torch.multinomial(probs, 1, generator=gen).squeeze(-1)


class RNNLM(nn.Module):
    """Embedding, ``depth`` stacked tanh-RNN or LSTM layers of ``width`` units, linear head.

    Parameters
    ----------
    vocab_size : int
        Number of output symbols (the start token is an extra input id).
    width : int
        Hidden units per recurrent layer (the paper's ``m``).
    depth : int
        Number of stacked recurrent layers.
    cell : {"rnn", "lstm"}
        Vanilla (tanh) RNN or LSTM.
    embed_dim : int, optional
        Embedding size; default ``vocab_size`` (the paper uses 2 for binary sequences,
        200 for characters).
    tie_weights : bool
        Share the embedding matrix with the output layer (the paper does so only for
        word-level models); requires ``embed_dim == width``.
    """

    amp_safe = False  # 512-step recurrences accumulate bf16 rounding: train in float32

    def __init__(self, vocab_size: int, width: int, depth: int = 1, cell: str = "lstm",
                 embed_dim: int | None = None, tie_weights: bool = False) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, 2)
        self.width = check_int("width", width, 1)
        self.depth = check_int("depth", depth, 1)
        self.cell = check_choice("cell", cell, CELLS)
        self.embed_dim = check_int("embed_dim", embed_dim if embed_dim is not None else vocab_size, 1)
        if tie_weights and self.embed_dim != width:
            raise ValueError(f"tie_weights needs embed_dim == width, got {self.embed_dim} and {width}")
        self.bos = vocab_size
        self.embed = nn.Embedding(vocab_size + 1, self.embed_dim)
        rnn_cls = nn.LSTM if cell == "lstm" else nn.RNN
        self.rnn = rnn_cls(self.embed_dim, width, num_layers=depth, batch_first=True)
        self.tie_weights = tie_weights
        # tied: the output layer reads the embedding's first vocab_size rows (the start
        # token is never predicted); its own weight is then unused and dropped
        self.head = nn.Linear(width, vocab_size)
        if tie_weights:
            del self.head.weight
            self.head.weight = None
        self._init_like_keras()

    def _init_like_keras(self) -> None:
        # Keras defaults (paper App. E.1): Glorot-uniform input kernels, orthogonal
        # recurrent kernels, zero biases
        for name, p in self.rnn.named_parameters():
            if name.startswith("weight_ih"):
                nn.init.xavier_uniform_(p)
            elif name.startswith("weight_hh"):
                gates = p.shape[0] // self.width
                for g in range(gates):
                    nn.init.orthogonal_(p.data[g * self.width:(g + 1) * self.width])
            else:
                nn.init.zeros_(p)
        if self.cell == "lstm":  # Keras' unit_forget_bias: forget gate bias 1
            for name, p in self.rnn.named_parameters():
                if name.startswith("bias_ih"):
                    p.data[self.width:2 * self.width] = 1.0

    def forward(self, tokens: torch.Tensor, state: tuple | torch.Tensor | None = None) -> torch.Tensor:
        """Logits ``(batch, time, vocab_size)`` for the tokens following each prefix."""
        return self.forward_with_state(tokens, state)[0]  # (B, T, V)

    def forward_with_state(self, tokens: torch.Tensor, state: tuple | torch.Tensor | None = None):
        """Like :meth:`forward`, also returning the final recurrent state (truncated BPTT)."""
        # tokens (B, T) -> embedding (B, T, E) -> out (B, T, C); state (depth, B, C), a pair (h, c) for the LSTM
        out, state = self.rnn(self.embed(tokens), state)
        if self.tie_weights:
            return out @ self.embed.weight[: self.vocab_size].T + self.head.bias, state  # (B, T, V)
        return self.head(out), state  # (B, T, V)

    def history_state_size(self, length: int) -> int:
        """Floats of recurrent state: ``depth * width`` (RNN), twice that (LSTM: h and c)."""
        check_int("length", length, 0)
        return self.depth * self.width * (2 if self.cell == "lstm" else 1)

    @torch.no_grad()
    def sample(self, n: int, length: int, seed: int, temperature: float = 1.0,
               batch_size: int = 4096) -> NDArray[np.int64]:
        """Draw ``n`` sequences of ``length`` tokens from the start state.

        Parameters
        ----------
        n, length : int
            Number and length of sequences.
        seed : int
            Seed of the sampling generator (independent of the global RNG).
        temperature : float
            Softmax temperature (1: the model's own distribution).
        batch_size : int
            Sequences drawn in parallel.

        Returns
        -------
        ndarray of int64, shape (n, length)
        """
        check_int("n", n, 1)
        check_int("length", length, 1)
        device = next(self.parameters()).device
        gen = _generator(seed, device)
        was_training = self.training
        self.eval()
        chunks = []
        for start in range(0, n, batch_size):
            b = min(batch_size, n - start)
            tok = torch.full((b, 1), self.bos, dtype=torch.long, device=device)
            state = None
            out = torch.empty((b, length), dtype=torch.long, device=device)
            for t in range(length):
                logits, state = self.forward_with_state(tok, state)
                tok = _draw(logits[:, -1], gen, temperature)[:, None]
                out[:, t] = tok[:, 0]
            chunks.append(out.cpu().numpy())
        self.train(was_training)
        return np.concatenate(chunks)


def sinusoidal_positions(length: int, dim: int) -> torch.Tensor:
    """The additive sin/cos position code of Vaswani et al. 2017, shape ``(length, dim)``."""
    pos = torch.arange(length, dtype=torch.float32)[:, None]
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq[: dim // 2])
    return table


class TransformerBlock(nn.Module):
    """Pre-norm Transformer block: causal multi-head self-attention, then a 4x MLP.

    Parameters
    ----------
    width : int
        Model width.
    heads : int
        Attention heads; must divide ``width``.
    """

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        if width % heads:
            raise ValueError(f"heads must divide width, got width={width}, heads={heads}")
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, t, w = x.shape  # (B, T, C)
        return x.view(b, t, self.heads, w // self.heads).transpose(1, 2)  # (B, T, H, D) -> (B, H, T, D)

    def forward(self, x: torch.Tensor, cache: list | None = None) -> torch.Tensor:
        b, t, w = x.shape  # (B, T, C)
        q, k, v = (self._split(z) for z in self.qkv(self.norm1(x)).split(w, dim=-1))  # (B, H, T, D) each
        if cache is None:
            att = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, D)
        else:
            if cache:  # one new token attends to every cached key: no mask needed
                k = torch.cat([cache[0], k], dim=2)  # (B, H, P + T, D)
                v = torch.cat([cache[1], v], dim=2)  # (B, H, P + T, D)
            att = F.scaled_dot_product_attention(q, k, v, is_causal=not cache and t > 1)  # (B, H, T, D)
            cache[:] = [k, v]  # (B, H, P + T, D) each
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, w))  # (B, H, T, D) -> (B, T, H, D) -> (B, T, C)
        return x + self.mlp(self.norm2(x))  # (B, T, C)


class TransformerLM(nn.Module):
    """Decoder-only Transformer: embedding + sinusoidal positions, ``depth`` causal blocks.

    Parameters
    ----------
    vocab_size : int
        Number of output symbols (the start token is an extra input id).
    width : int
        Model width ``m = heads x head dimension`` (the paper's definition, Sec. 5).
    depth : int
        Number of attention blocks.
    heads : int
        Attention heads; must divide ``width``.
    max_len : int
        Longest context (positions ``0 .. max_len - 1``, the start token included).
    tie_weights : bool
        Share the embedding matrix with the output layer (paper: word level only).
    """

    amp_safe = True  # attention and MLPs are the standard bf16 autocast workload

    def __init__(self, vocab_size: int, width: int, depth: int = 1, heads: int = 4,
                 max_len: int = 513, tie_weights: bool = False) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, 2)
        self.width = check_int("width", width, 1)
        self.depth = check_int("depth", depth, 1)
        self.heads = check_int("heads", heads, 1)
        self.max_len = check_int("max_len", max_len, 2)
        if width % heads:
            raise ValueError(f"heads must divide width, got width={width}, heads={heads}")
        self.bos = vocab_size
        self.embed = nn.Embedding(vocab_size + 1, width)
        # Vaswani et al.: embeddings scaled by sqrt(width) on input; unit-norm rows keep
        # the (possibly tied) output logits of order one at initialisation
        nn.init.normal_(self.embed.weight, std=width ** -0.5)
        self.register_buffer("positions", sinusoidal_positions(max_len, width), persistent=False)
        self.blocks = nn.ModuleList(TransformerBlock(width, heads) for _ in range(depth))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab_size, bias=not tie_weights)
        if tie_weights:
            # the output layer reads the first vocab_size rows: the start token is never predicted
            self.head.weight = self.embed.weight
        self.tie_weights = tie_weights

    def _logits(self, h: torch.Tensor) -> torch.Tensor:
        h = self.norm(h)  # (..., C)
        if self.tie_weights:
            return h @ self.embed.weight[: self.vocab_size].T  # (..., V)
        return self.head(h)  # (..., V)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``(batch, time, vocab_size)``; ``time <= max_len``."""
        t = tokens.shape[1]  # tokens (B, T)
        if t > self.max_len:
            raise ValueError(f"sequence of {t} tokens exceeds max_len={self.max_len}")
        h = self.embed(tokens) * math.sqrt(self.width) + self.positions[:t]  # (B, T, C) + (T, C)
        for block in self.blocks:
            h = block(h)  # (B, T, C)
        return self._logits(h)  # (B, T, V)

    def history_state_size(self, length: int) -> int:
        """Floats of key/value cache after ``length`` tokens: ``2 * depth * width * min(length, max_len)``."""
        check_int("length", length, 0)
        return 2 * self.depth * self.width * min(length, self.max_len)

    def _step(self, tokens: torch.Tensor, caches: list[list], offset: int) -> torch.Tensor:
        # tokens (B, T), the T new tokens at positions offset .. offset + T - 1: embedded (B, T, C)
        h = self.embed(tokens) * math.sqrt(self.width) + self.positions[offset: offset + tokens.shape[1]]
        for block, cache in zip(self.blocks, caches):
            h = block(h, cache)  # (B, T, C); each cache grows to (B, H, P + T, D)
        return self._logits(h[:, -1])  # (B, V): the last position's

    @torch.no_grad()
    def sample(self, n: int, length: int, seed: int, temperature: float = 1.0,
               batch_size: int = 4096) -> NDArray[np.int64]:
        """Draw ``n`` sequences of ``length`` tokens from the start state, with a key/value cache.

        Sequences longer than the context continue from a sliding window: when the
        cache is full, the last ``max_len // 2`` tokens are re-encoded after a start token
        (positions restart at 0) and generation goes on, so no token ever sees more than ``max_len - 1``
        predecessors, as in training.

        Returns
        -------
        ndarray of int64, shape (n, length)
        """
        check_int("n", n, 1)
        check_int("length", length, 1)
        device = self.positions.device
        gen = _generator(seed, device)
        was_training = self.training
        self.eval()
        keep = max(2, self.max_len // 2)
        chunks = []
        for start in range(0, n, batch_size):
            b = min(batch_size, n - start)
            out = torch.empty((b, length), dtype=torch.long, device=device)
            caches: list[list] = [[] for _ in self.blocks]
            logits = self._step(torch.full((b, 1), self.bos, dtype=torch.long, device=device), caches, 0)
            pos = 1
            for t in range(length):
                tok = _draw(logits, gen, temperature)
                out[:, t] = tok
                if t + 1 == length:
                    break
                if pos == self.max_len:
                    # restart as training windows start: the start token, then mid-text
                    caches = [[] for _ in self.blocks]
                    bos = torch.full((b, 1), self.bos, dtype=torch.long, device=device)
                    window = torch.cat([bos, out[:, t + 2 - keep: t + 1]], dim=1)
                    logits = self._step(window, caches, 0)
                    pos = window.shape[1]
                else:
                    logits = self._step(tok[:, None], caches, pos)
                    pos += 1
            chunks.append(out.cpu().numpy())
        self.train(was_training)
        return np.concatenate(chunks)
