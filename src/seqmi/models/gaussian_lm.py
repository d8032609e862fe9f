"""Autoregressive models of continuous tokens with Gaussian conditionals (L2M, Fig. 4 and App. E).

:class:`GaussianSequenceModel` wraps a GPT-style Transformer (:class:`GPTBackbone`), a
Mamba SSM (:class:`~seqmi.models.mamba.MambaBackbone`) or a linear state-space recurrence
(:class:`LinearSSMBackbone`, whose state is a linear function of the past) with token
embeddings and a Gaussian output head. :func:`gaussian_kl` is the exact conditional KL used as the
training loss; :mod:`seqmi.recipes.gaussian_tokens` trains and scores a model on fresh
samples of a :class:`~seqmi.data.subvolume.SubvolumeGaussian`, whose true conditionals
are known.

Shape comments in the code use these letters:

- ``B``: batch size; ``T``: sequence length (tokens per sequence, ``L`` in the docstrings);
- ``K``: token width (``token_dim``, the number of stacked copies; ``c`` in :class:`LinearSSMBackbone`);
- ``C``: model width (``d_model``; ``w`` in :class:`LinearSSMBackbone`);
- ``N``: complex modes of :class:`LinearSSMBackbone` (its ``n``), whose real state has ``2N = d``
  (``d_state_total``) numbers.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from seqmi.models.lm import TransformerBlock
from seqmi.models.mamba import MambaBackbone
from seqmi.validate import check_choice, check_int

BACKBONES = ("transformer", "mamba", "linear")


def gaussian_kl(mu_p: torch.Tensor, sigma_p: torch.Tensor, mu_q: torch.Tensor, sigma_q: torch.Tensor) -> torch.Tensor:
    """Elementwise ``KL(N(mu_p, sigma_p^2) || N(mu_q, sigma_q^2))`` in nats.

    ``ln(sigma_q / sigma_p) + (sigma_p^2 + (mu_q - mu_p)^2) / (2 sigma_q^2) - 1/2``: ``p`` the
    true conditional, ``q`` the model's (eq. E.35).
    """
    return (torch.log(sigma_q / sigma_p) + (sigma_p ** 2 + (mu_q - mu_p) ** 2) / (2 * sigma_q ** 2) - 0.5)


class GPTBackbone(nn.Module):
    """Pre-LayerNorm GPT-2 stack with learned positions: ``(B, T, d) -> (B, T, d)``."""

    def __init__(self, d_model: int, n_layers: int, n_heads: int, max_len: int) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be a multiple of n_heads={n_heads}")
        self.pos = nn.Parameter(torch.zeros(max_len, d_model))
        nn.init.normal_(self.pos, std=0.02)
        self.blocks = nn.ModuleList(TransformerBlock(d_model, n_heads) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.pos[: x.shape[1]]  # (B, T, C) + (T, C)
        for block in self.blocks:
            x = block(x)  # (B, T, C)
        return self.ln_f(x)  # (B, T, C)


class LinearSSMBackbone(nn.Module):
    """Diagonal complex linear recurrence (S4D-like) whose state is linear in the past tokens.

    Glossary: ``c`` = ``token_dim`` (stacked copies), ``n = d_state_total / 2`` complex
    modes, ``d = d_state_total`` real state numbers, ``w = d_model`` head width; in the shape
    comments (the module's letters) ``K = c``, ``N = n``, ``2N = d``, ``C = w``.
    With inputs ``u_t`` (the tokens shifted right by one, ``u_0 = 0``: the BOS token),

    ``h_t = lambda * h_(t-1) + (1 + g_t) * B u_t``,  ``h_t in C^n``,  ``|lambda| < 1``,

    computed as one causal FFT convolution with the kernel ``lambda^k``; ``g_t`` is a learned
    gain per position and mode (the family's conditionals depend on a token's place in the
    hierarchy; the gain depends on the place only, never on a token). The token embedding
    ``B`` is linear (no MLP before the state), so ``h_t`` is a fixed linear map of ``z_<t``
    with exactly ``d`` real coordinates ``(Re h_t, Im h_t)``. The output features at
    position ``t`` are ``(1 + a_t) * W (Re h_t, Im h_t) + p_t``: a linear read-out with a
    learned gain and offset per position; the model's nonlinear head acts on them alone.

    Why the exact linear-state bound applies: split at ``ell`` into the past
    ``X = z_<ell`` and the future ``Y``. For ``t >= ell``,
    ``h_t = lambda^(t - ell) h_ell + (terms in Y_<t)``, so every prediction of the future
    reads ``X`` only through ``h_ell = W_ell X``, a linear ``d``-dimensional statistic. By the
    chain rule the position-wise KLs summed over ``t >= ell`` are the KL of the model's
    joint prediction of ``Y`` given ``X``, which is at least ``I(X; Y | h_ell)``; for a
    Gaussian sequence this is at least ``sum_(i > d) -1/2 ln(1 - rho_i^2)`` over the canonical
    correlations ``rho_i`` of ``X`` and ``Y`` in decreasing order. ``d`` is also what
    :func:`seqmi.l2m.history_state_size` counts (the attribute ``d_state_total``).

    Parameters
    ----------
    token_dim : int
        ``c``, the width of a token.
    d_state_total : int
        ``d``, the real dimension of the state: an even number ``>= 2``.
    d_model : int
        ``w``, the width of the features handed to the head.
    max_len : int
        Longest sequence (position embeddings).
    """

    def __init__(self, token_dim: int, d_state_total: int, d_model: int, max_len: int) -> None:
        super().__init__()
        check_int("d_state_total", d_state_total, 2)
        if d_state_total % 2:
            raise ValueError(f"d_state_total must be even (d/2 complex modes), got {d_state_total}")
        n = d_state_total // 2
        self.d_state_total = d_state_total
        # S4D-style initialisation: decay rates log-uniform over [1e-3, 0.5] per step, phases in [0, pi)
        self.log_rate = nn.Parameter(torch.linspace(math.log(1e-3), math.log(0.5), n))
        self.phase = nn.Parameter(torch.linspace(0.0, math.pi, n + 1)[:-1])
        self.B = nn.Parameter(torch.randn(2, n, token_dim) / math.sqrt(token_dim))  # real and imaginary parts
        self.input_gain = nn.Parameter(torch.zeros(max_len, n))  # g_t
        self.readout = nn.Linear(d_state_total, d_model)
        self.readout_gain = nn.Parameter(torch.zeros(max_len, d_model))  # a_t
        self.pos = nn.Parameter(torch.zeros(max_len, d_model))  # p_t
        nn.init.normal_(self.pos, std=0.02)

    def states(self, u: torch.Tensor) -> torch.Tensor:
        """The real state ``(Re h_t, Im h_t)`` of every position: ``(B, T, c) -> (B, T, d)``."""
        T = u.shape[1]  # u (B, T, K)
        log_lam = torch.complex(-torch.exp(self.log_rate), self.phase)  # (N,): ln lambda, Re < 0
        k = torch.arange(T, device=u.device, dtype=u.dtype)  # (T,)
        kernel = torch.exp(k[:, None] * log_lam[None, :])  # (T, N): lambda^k
        # complex tokens (B, T, K) times B (N, K), gained per position (T, N)
        v = torch.einsum("btc,nc->btn", torch.complex(u, torch.zeros_like(u)),
                         torch.complex(self.B[0], self.B[1])) * (1 + self.input_gain[:T])  # (B, T, N)
        size = 2 * T  # zero-padded: the circular convolution is causal on the first T outputs
        # spectra (B, 2T, N) * (1, 2T, N), back to time, the first T kept: (B, T, N) complex
        h = torch.fft.ifft(torch.fft.fft(v, size, dim=1) * torch.fft.fft(kernel, size, dim=0)[None], dim=1)[:, :T]
        return torch.cat([h.real, h.imag], dim=-1)  # (B, T, 2N)

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        """``(B, T, c) -> (B, T, w)``: read-out of the state, scaled and shifted per position."""
        T = u.shape[1]  # u (B, T, K)
        # (B, T, 2N) -> (B, T, C), times the gain (T, C), plus the offset (T, C)
        return self.readout(self.states(u)) * (1 + self.readout_gain[:T]) + self.pos[:T]  # (B, T, C)


class GaussianSequenceModel(nn.Module):
    """Autoregressive model of continuous tokens with Gaussian conditionals (L2M App. E).

    A zero token is prepended (BOS) and the last token dropped, so output ``i`` sees
    ``z_<i`` only; a two-layer MLP embeds each token, the backbone mixes positions, and
    a two-layer MLP head gives the mean and standard deviation of each of the
    ``token_dim`` coordinates. With ``backbone="linear"`` the tokens enter
    :class:`LinearSSMBackbone` directly (its embedding is linear), so that the history
    state stays a linear function of the past.

    Parameters
    ----------
    backbone : {"transformer", "mamba", "linear"}
    token_dim : int
        Dimension of a token (the number of stacked copies).
    d_model, n_layers : int
        Width and depth of the backbone.
    n_heads : int
        Attention heads (Transformer).
    max_len : int
        Longest sequence (Transformer positions).
    d_state : int
        SSM state per channel (Mamba); the whole real state ``d`` (linear, even).
    """

    def __init__(self, backbone: str, token_dim: int, d_model: int, n_layers: int, n_heads: int = 4,
                 max_len: int = 4096, d_state: int = 16) -> None:
        super().__init__()
        check_choice("backbone", backbone, BACKBONES)
        for name, value in (("token_dim", token_dim), ("d_model", d_model), ("n_layers", n_layers),
                            ("max_len", max_len), ("d_state", d_state)):
            check_int(name, value, 1)
        self.backbone_name, self.token_dim, self.max_len = backbone, token_dim, max_len
        if backbone == "linear":
            if n_layers != 1:
                raise ValueError(f"the linear backbone is one recurrence: n_layers must be 1, got {n_layers}")
            self.embed: nn.Module = nn.Identity()
            self.backbone: nn.Module = LinearSSMBackbone(token_dim, d_state, d_model, max_len)
        else:
            self.embed = nn.Sequential(nn.Linear(token_dim, d_model), nn.GELU(), nn.Linear(d_model, d_model))
        if backbone == "transformer":
            self.backbone = GPTBackbone(d_model, n_layers, n_heads, max_len)
        elif backbone == "mamba":
            self.backbone = MambaBackbone(d_model, n_layers, d_state)
        self.head = nn.Sequential(nn.Linear(d_model, d_model), nn.GELU(), nn.Linear(d_model, 2 * token_dim))

    def forward(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``z`` of shape ``(B, L, token_dim)`` -> conditional ``(mu, sigma)``, each like ``z``."""
        if z.shape[1] > self.max_len and self.backbone_name in ("transformer", "linear"):
            raise ValueError(f"sequence length {z.shape[1]} exceeds max_len={self.max_len}")
        inputs = torch.cat([torch.zeros_like(z[:, :1]), z[:, :-1]], dim=1)  # (B, T, K): BOS shift
        # embedded (B, T, C) (the linear backbone takes the tokens as they are), mixed (B, T, C), head (B, T, 2K)
        out = self.head(self.backbone(self.embed(inputs)))  # (B, T, 2K)
        mu, raw = out.chunk(2, dim=-1)  # (B, T, K) each
        return mu, F.softplus(raw) + 1e-4  # (B, T, K) each
