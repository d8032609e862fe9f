"""A self-attentive RNN with pluggable attention (Kerg et al. 2020), and measurements made on it.

Its training on the Copy and Denoise tasks is :mod:`seqmi.recipes.copy_tasks`.

The recurrence, with states numbered from 0 in code::

    h_m = phi(V s_{m-1} + U x_m + b)          (s_{-1} = 0)
    c_m = sum_{i in A_m} alpha_{i,m} h_i       (A_m: the states attended at step m, m in A_m)
    s_m = a h_m + b c_m                        ("sum": a = b = 1, the supplement's f(h, c) = h + c;
                                                "mean": a = b = 1/2, the authors' RelRNN cell)

Attention kinds (the ``attention`` argument, a string or a spec object):

- ``"none"``: ``s_m = h_m``, a plain RNN.
- ``"uniform"``: ``A_m = {0..m}``, ``alpha = 1/(m+1)``.
- ``"full"``: ``A_m = {0..m}``, additive score ``e_{i,m} = v^T tanh(W s_{m-1} + U_a h_i)``, softmax.
- ``SparseAttention(kappa, depth, start, gap)`` or ``"sparse(kappa)"``: a fixed pattern with at
  most ``kappa`` attended states, uniform weights among them, dependency depth ``depth``.
- ``RelevancyAttention(nu, rho)`` or ``"relevancy(nu, rho)"``: the short-term buffer of the last
  ``nu`` states (current one included) plus at most ``rho`` relevant older states, additive
  score, softmax over both (the relevancy screening mechanism of RelRNN).

Shape comments in the code use these letters:

- ``B``: batch size; ``T``: sequence length (steps ``m = 0 .. T-1``);
- ``I``: input width (``input_size``, the width of ``x_m``; :class:`TaskModel`'s one-hot alphabet ``n_in``);
- ``C``: hidden width (``hidden_size``, the ``n`` of the docstrings: the width of ``h_m``, ``c_m`` and ``s_m``);
- ``M``: states attended at step ``m``, ``|A_m|`` (``m + 1`` with full attention);
- ``O``: :class:`TaskModel`'s output classes (``n_out``).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.device import DeviceLike, resolve_device
from seqmi.progress import progress_bar
from seqmi.validate import check_choice, check_int

NONLINEARITIES = ("tanh", "linear")
COMBINES = ("sum", "mean")


@dataclass(frozen=True)
class SparseAttention:
    """Fixed κ-sparse pattern with dependency depth ``depth`` (supplement A.4).

    State ``m`` attends to itself, to ``kappa - 2`` *filler* states ``0 .. kappa-3`` (which
    dilute the weights but precede any perturbed state) and to one *chain* state: the chain
    is ``g_j = start + (j-1) gap``, ``j = 1..depth``; ``g_j`` is attended during steps
    ``g_j .. g_{j+1}-1`` and the last one, ``g_depth``, by every later step. So a state at
    distance ``k >> depth gap`` from ``g_1`` is reached from ``h_{g_1}`` in exactly ``depth``
    attention hops, and never in fewer. Weights are ``1/|A_m| >= 1/kappa``.
    """

    kappa: int
    depth: int = 1
    start: int | None = None
    gap: int = 8

    def __post_init__(self) -> None:
        check_int("kappa", self.kappa, 2)
        check_int("depth", self.depth, 1)
        check_int("gap", self.gap, 2)
        if self.start is not None:
            check_int("start", self.start, self.kappa - 2)

    @property
    def first(self) -> int:
        """``g_1``: the chain's first state (defaults to the first state after the fillers)."""
        return self.kappa - 2 if self.start is None else self.start

    def chain(self) -> list[int]:
        """The chain states ``g_1 .. g_depth``."""
        return [self.first + j * self.gap for j in range(self.depth)]

    def attended(self, m: int) -> list[int]:
        """Sorted indices of the states attended at step ``m``."""
        idx = {m} | set(range(min(self.kappa - 2, m + 1)))
        chain = self.chain()
        for j, g in enumerate(chain):
            end = chain[j + 1] - 1 if j + 1 < len(chain) else m
            if g <= m <= end:
                idx.add(g)
        return sorted(idx)


@dataclass(frozen=True)
class RelevancyAttention:
    """Relevancy screening: short-term buffer of ``nu`` states plus ``rho`` relevant states."""

    nu: int
    rho: int

    def __post_init__(self) -> None:
        check_int("nu", self.nu, 1)
        check_int("rho", self.rho, 0)


AttentionSpec = str | SparseAttention | RelevancyAttention
"""An attention choice, ``"none"`` or ``"full"`` or a sparse or relevancy attention object."""


def parse_attention(attention: AttentionSpec) -> str | SparseAttention | RelevancyAttention:
    """Normalise ``attention``: ``"none" | "uniform" | "full"``, ``"sparse(kappa[, depth])"``,
    ``"relevancy(nu, rho)"``, or a spec object (returned unchanged).

    Raises
    ------
    ValueError
        For anything else.
    """
    if isinstance(attention, SparseAttention | RelevancyAttention):
        return attention
    if attention in ("none", "uniform", "full"):
        return attention
    match = re.fullmatch(r"\s*(sparse|relevancy)\s*\(([^)]*)\)\s*", str(attention))
    if match:
        args = [int(a) for a in match.group(2).split(",") if a.strip()]
        if match.group(1) == "sparse" and 1 <= len(args) <= 2:
            return SparseAttention(*args)
        if match.group(1) == "relevancy" and len(args) == 2:
            return RelevancyAttention(*args)
    raise ValueError(
        "attention must be 'none', 'uniform', 'full', 'sparse(kappa[, depth])', "
        f"'relevancy(nu, rho)' or a spec object, got {attention!r}")


@dataclass
class Trace:
    """What one forward pass did, for the first sequence of the batch (numpy, as computed).

    Attributes
    ----------
    h, s : ndarray, shape (T, n)
        Hidden states and attention outputs.
    pre : ndarray, shape (T, n)
        Pre-activations ``V s_{m-1} + U x_m + b``.
    attended : list of ndarray of int
        ``A_m`` for each step.
    alpha : list of ndarray
        The weights ``alpha_{i,m}`` in the order of ``attended[m]``.
    """

    h: NDArray[np.float64]
    s: NDArray[np.float64]
    pre: NDArray[np.float64]
    attended: list[NDArray[np.int64]]
    alpha: list[NDArray[np.float64]]


@dataclass
class _Unroll:
    """What :meth:`AttentiveRNN.forward` carries from one step to the next (all but relevancy attention).

    Attributes
    ----------
    drive : tuple of Tensor, each (B, C)
        The input drive ``U x_m + b`` of every step.
    s_prev : Tensor, shape (B, C)
        ``s_{m-1}``.
    running : Tensor, shape (B, C)
        ``h_0 + .. + h_m`` (uniform attention).
    hs, keys, ss : list of Tensor, each (B, C)
        The states ``h_i``, their keys ``U_a h_i`` (scored attention) and the outputs ``s_i`` so far.
    pres, attended, alphas : list of ndarray
        The first sequence's trace rows so far (see :class:`Trace`).
    """

    drive: tuple[torch.Tensor, ...]
    s_prev: torch.Tensor
    running: torch.Tensor
    hs: list[torch.Tensor] = field(default_factory=list)
    keys: list[torch.Tensor] = field(default_factory=list)
    ss: list[torch.Tensor] = field(default_factory=list)
    pres: list[NDArray[np.float64]] = field(default_factory=list)
    attended: list[NDArray[np.int64]] = field(default_factory=list)
    alphas: list[NDArray[np.float64]] = field(default_factory=list)


class AttentiveRNN(nn.Module):
    """Self-attentive RNN ``h_{m+1} = phi(V s_m + U x_{m+1} + b)``, ``s_m = f(h_m, c_m)``.

    Parameters
    ----------
    input_size, hidden_size : int
        Widths of ``x_m`` and ``h_m``.
    attention : str or spec
        See :func:`parse_attention` and the module docstring.
    nonlinearity : {"tanh", "linear"}
        ``phi``.
    recurrent_weight : ndarray, optional
        Sets ``V`` exactly (shape ``(hidden_size, hidden_size)``); default: orthogonal.
    combine : {"sum", "mean"}
        ``f(h, c) = h + c`` (the supplement's analysis) or ``(h + c) / 2`` (the authors' code).
    dtype : torch.dtype
        Parameter dtype; ``torch.float64`` keeps ``recurrent_weight`` exact.
    """

    def __init__(self, input_size: int, hidden_size: int, attention: AttentionSpec = "none",
                 nonlinearity: str = "tanh", recurrent_weight: NDArray[np.float64] | None = None,
                 combine: str = "sum", dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        check_int("input_size", input_size, 1)
        check_int("hidden_size", hidden_size, 1)
        check_choice("nonlinearity", nonlinearity, NONLINEARITIES)
        check_choice("combine", combine, COMBINES)
        self.input_size, self.hidden_size = input_size, hidden_size
        self.attention = parse_attention(attention)
        self.nonlinearity, self.combine = nonlinearity, combine
        n = hidden_size
        self.V = nn.Parameter(torch.empty(n, n, dtype=dtype))
        self.U = nn.Parameter(torch.empty(n, input_size, dtype=dtype))
        self.b = nn.Parameter(torch.zeros(n, dtype=dtype))
        if recurrent_weight is None:
            nn.init.orthogonal_(self.V)
        else:
            rw = np.asarray(recurrent_weight, dtype=np.float64)
            if rw.shape != (n, n):
                raise ValueError(f"recurrent_weight must have shape {(n, n)}, got {rw.shape}")
            self.V.data = torch.as_tensor(rw, dtype=dtype)
        nn.init.xavier_uniform_(self.U)
        if self.scored:
            self.W_a = nn.Parameter(torch.randn(n, n, dtype=dtype) / math.sqrt(n))
            self.U_a = nn.Parameter(torch.randn(n, n, dtype=dtype) / math.sqrt(n))
            self.v_a = nn.Parameter(torch.randn(n, dtype=dtype) / math.sqrt(n))

    @property
    def scored(self) -> bool:
        """Whether the weights come from the additive score (full or relevancy attention)."""
        return self.attention == "full" or isinstance(self.attention, RelevancyAttention)

    @property
    def mix(self) -> tuple[float, float]:
        """``(a, b)`` of ``s = a h + b c``; ``(1, 0)`` without attention."""
        if self.attention == "none":
            return 1.0, 0.0
        return (1.0, 1.0) if self.combine == "sum" else (0.5, 0.5)

    def phi(self, z: torch.Tensor) -> torch.Tensor:
        return torch.tanh(z) if self.nonlinearity == "tanh" else z

    def _softmax_attend(self, s_prev: torch.Tensor, states: torch.Tensor,
                        keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        e = torch.tanh((s_prev @ self.W_a.T)[:, None, :] + keys) @ self.v_a  # (B, 1, C) + (B, M, C) -> (B, M)
        alpha = torch.softmax(e, dim=1)  # (B, M)
        # one batched matrix product instead of a broadcast multiply and a sum (fewer graph nodes)
        return torch.bmm(alpha[:, None, :], states)[:, 0], alpha  # (B, 1, M) @ (B, M, C) -> (B, C); alpha (B, M)

    def forward(self, x: torch.Tensor, delta: torch.Tensor | None = None, delta_index: int = 0,
                trace: bool = False) -> tuple[torch.Tensor, list[torch.Tensor], Trace | None]:
        """Run the recurrence over ``x`` of shape ``(B, T, input_size)``.

        Parameters
        ----------
        x : Tensor
            Inputs.
        delta : Tensor, optional
            Added to ``h_{delta_index}`` right after it is computed (shape ``(n,)`` or
            ``(B, n)``): differentiating with respect to it gives ``d s_m / d h_{delta_index}``.
        delta_index : int
            Where ``delta`` is added.
        trace : bool
            Also return a :class:`Trace` of the first sequence.

        Returns
        -------
        s : Tensor, shape (B, T, n)
        h : list of Tensor, each (B, n)
            The hidden states (graph nodes: gradients with respect to them are available; with
            relevancy attention, gradients of functions of ``s`` only).
        trace : Trace or None
        """
        if isinstance(self.attention, RelevancyAttention):
            return self._relevancy_forward(x, delta, delta_index, trace)
        B, T, _ = x.shape
        run = self._start(x, B)
        for m in range(T):
            pre, h = self._cell(run, m, delta, delta_index)
            c, weights, idx = self._attend(run, m, h)
            s = self._combine(h, c)  # (B, C)
            run.ss.append(s)
            if trace:
                self._record(run, pre, idx, c, weights)
            run.s_prev = s
        s_all = torch.stack(run.ss, 1)  # (B, T, C)
        return s_all, run.hs, self._collect_trace(run, s_all) if trace else None

    def _start(self, x: torch.Tensor, B: int) -> _Unroll:
        """The state before step 0: ``s_{-1} = 0`` and every step's input drive."""
        s_prev = x.new_zeros(B, self.hidden_size)  # (B, C)
        # the input drive does not depend on the recurrence: one matmul for all steps, unbound
        # once, because indexing drive[:, m] would cost a full-size zero gradient per step in
        # the backward pass (quadratic in T)
        drive = (x @ self.U.T + self.b).unbind(1)  # (B, T, I) -> (B, T, C) -> T tensors (B, C)
        return _Unroll(drive, s_prev, x.new_zeros(B, self.hidden_size))

    def _cell(self, run: _Unroll, m: int, delta: torch.Tensor | None,
              delta_index: int) -> tuple[torch.Tensor, torch.Tensor]:
        """One recurrence step ``h_m = phi(pre)``, ``pre = V s_{m-1} + U x_m + b``, appended to ``run``."""
        pre = run.s_prev @ self.V.T + run.drive[m]  # (B, C)
        h = self.phi(pre)  # (B, C)
        if delta is not None and m == delta_index:
            h = h + delta  # (B, C)
        run.hs.append(h)
        if self.scored:
            run.keys.append(h @ self.U_a.T)  # (B, C)
        return pre, h

    def _attend(self, run: _Unroll, m: int,
                h: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor | None, list[int]]:
        """The attention read ``c_m`` (None without attention), the softmax weights if scored, and ``A_m``."""
        att = self.attention
        if att == "none":
            return None, None, [m]
        if att == "uniform":
            run.running = run.running + h  # (B, C)
            return run.running / (m + 1), None, list(range(m + 1))  # (B, C)
        if att == "full":
            # h_0 .. h_m and their keys, stacked (B, M, C) each: c_m (B, C), weights (B, M)
            c, weights = self._softmax_attend(run.s_prev, torch.stack(run.hs, 1), torch.stack(run.keys, 1))
            return c, weights, list(range(m + 1))
        idx = att.attended(m)
        return torch.stack([run.hs[i] for i in idx], 1).mean(1), None, idx  # (B, M, C) -> (B, C)

    def _combine(self, h: torch.Tensor, c: torch.Tensor | None) -> torch.Tensor:
        """The output ``s_m = a h_m + b c_m`` (``h_m`` itself without attention)."""
        a_h, b_c = self.mix
        return h if c is None else a_h * h + b_c * c  # (B, C)

    def _record(self, run: _Unroll, pre: torch.Tensor, idx: list[int], c: torch.Tensor | None,
                weights: torch.Tensor | None) -> None:
        """Append the step's trace rows for the first sequence: pre-activation, ``A_m`` and weights."""
        run.pres.append(pre[0].detach().cpu().numpy())  # (C,)
        run.attended.append(np.asarray(idx, dtype=np.int64))  # (M,)
        if weights is not None:
            run.alphas.append(weights[0].detach().cpu().numpy())  # (M,)
        elif c is None:
            run.alphas.append(np.zeros(1))
        else:
            run.alphas.append(np.full(len(idx), 1.0 / len(idx)))  # (M,)

    def _collect_trace(self, run: _Unroll, s_all: torch.Tensor) -> Trace:
        """The :class:`Trace` of the first sequence, from the unrolled steps."""
        return Trace(h=torch.stack(run.hs, 1)[0].detach().cpu().numpy().astype(np.float64),  # (T, C)
                     s=s_all[0].detach().cpu().numpy().astype(np.float64),  # (T, C)
                     pre=np.array(run.pres, dtype=np.float64), attended=run.attended, alpha=run.alphas)

    def _relevancy_forward(self, x: torch.Tensor, delta: torch.Tensor | None, delta_index: int,
                           trace: bool) -> tuple[torch.Tensor, list[torch.Tensor], Trace | None]:
        """:meth:`forward` for relevancy attention: one compiled scan over time with a
        hand-written backward pass (:mod:`seqmi.models._relevancy`), an order of magnitude
        faster than recording every step's operations for autograd; same numbers to float
        rounding."""
        # imported here so that importing this module does not import numba
        from seqmi.models._relevancy import relevancy_recurrence

        att = self.attention
        # time first, so that each step's drive and states are contiguous
        drive = x.transpose(0, 1) @ self.U.T + self.b  # (B, T, I) -> (T, B, I) -> (T, B, C)
        # both combine choices weight h and c equally: s = w (h + c)
        weight = self.mix[0]
        # s (T, B, C); hs: T tensors (B, C)
        s, hs, rows = relevancy_recurrence(drive, self.V, self.W_a, self.U_a, self.v_a, att.nu, att.rho, weight,
                                           self.nonlinearity == "tanh", delta, delta_index, trace)
        s = s.transpose(0, 1)  # (B, T, C)
        tr = None
        if trace:
            tr = Trace(h=torch.stack([h[0] for h in hs]).detach().cpu().numpy().astype(np.float64),  # (T, C)
                       s=s[0].detach().cpu().numpy().astype(np.float64),  # (T, C)
                       pre=np.array(rows.pre, dtype=np.float64), attended=rows.attended,
                       alpha=rows.alpha)
        return s, hs, tr


def autograd_jacobians(model: AttentiveRNN, x: NDArray[np.float64] | torch.Tensor, t: int) -> NDArray[np.float64]:
    """``d s_{t+k} / d h_t`` for ``k = 0 .. T-1-t`` by autograd (total derivatives).

    Parameters
    ----------
    model : AttentiveRNN
        Evaluated in its own dtype (use ``model.double()`` for float64).
    x : array, shape (T, input_size)
        One input sequence.
    t : int
        The perturbed state, ``0 <= t < T``.

    Returns
    -------
    ndarray, shape (T - t, n, n)
    """
    p = next(model.parameters())
    xt = torch.as_tensor(np.asarray(x), dtype=p.dtype, device=p.device)[None]
    check_int("t", t, 0, xt.shape[1] - 1)

    def out(delta: torch.Tensor) -> torch.Tensor:
        return model(xt, delta=delta, delta_index=t)[0][0, t:]

    jac = torch.autograd.functional.jacobian(out, torch.zeros(model.hidden_size, dtype=p.dtype, device=p.device))
    return jac.detach().cpu().numpy().astype(np.float64)


def jacobian_norms(model: AttentiveRNN, x: NDArray[np.float64] | torch.Tensor, t: int) -> NDArray[np.float64]:
    """``||d s_{t+k} / d h_t||_F`` for ``k = 0 .. len(x)-1-t``, by autograd.

    See :func:`autograd_jacobians` for the arguments.
    """
    return np.linalg.norm(autograd_jacobians(model, x, t), axis=(1, 2))


class TaskModel(nn.Module):
    """A sequence classifier: one-hot symbols -> recurrent core -> linear readout per step.

    Parameters
    ----------
    kind : {"relrnn", "rnn", "lstm", "full"}
        RelRNN (relevancy screening, ``combine="mean"`` as in the authors' code), a plain
        tanh RNN, an LSTM, or an RNN with full additive attention (MemRNN).
    n_in, n_out : int
        Input alphabet and number of output classes.
    hidden : int
        Width of the core.
    nu, rho : int
        Relevancy screening sizes (``"relrnn"`` only).
    """

    KINDS = ("relrnn", "rnn", "lstm", "full")

    def __init__(self, kind: str, n_in: int, n_out: int, hidden: int, nu: int = 10, rho: int = 15) -> None:
        super().__init__()
        check_choice("kind", kind, self.KINDS)
        self.kind, self.n_in = kind, n_in
        if kind == "lstm":
            self.core: nn.Module = nn.LSTM(n_in, hidden, batch_first=True)
        else:
            att: AttentionSpec = {"relrnn": RelevancyAttention(nu, rho), "rnn": "none", "full": "full"}[kind]
            self.core = AttentiveRNN(n_in, hidden, att, combine="mean")
        self.readout = nn.Linear(hidden, n_out)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``(B, T, n_out)`` and the per-step hidden states (for gradient profiles)."""
        x = torch.nn.functional.one_hot(tokens, self.n_in).to(self.readout.weight.dtype)  # (B, T) -> (B, T, I)
        if self.kind == "lstm":
            out, _ = self.core(x)  # (B, T, C)
            return self.readout(out), [out[:, m] for m in range(out.shape[1])]  # (B, T, O); T tensors (B, C)
        s, hs, _ = self.core(x)  # (B, T, C); T tensors (B, C)
        return self.readout(s), hs  # (B, T, O)


def recall_accuracy(model: TaskModel, tokens: torch.Tensor, targets: torch.Tensor, n_recall: int) -> float:
    """Fraction of the last ``n_recall`` target symbols predicted exactly."""
    with torch.no_grad():
        logits, _ = model(tokens)
    pred = logits[:, -n_recall:].argmax(-1)
    return float((pred == targets[:, -n_recall:]).float().mean())


def transfer_accuracy(model: TaskModel, sample: Callable[[int, int, int], tuple[NDArray[Any], NDArray[Any]]],
                      lengths: list[int], n: int, seed: int, device: DeviceLike,
                      n_recall: int = 10) -> dict[int, float]:
    """Recall accuracy of a trained model on fresh sequences of other delays (length transfer).

    Parameters
    ----------
    sample : callable
        ``sample(n, T, seed) -> (tokens, targets)``, e.g. :func:`seqmi.data.copy_tasks.copy_task`.
    lengths : list of int
        The delays ``T`` to test.
    n : int
        Held-out sequences per delay (the same ``seed`` for every delay).

    Returns
    -------
    dict
        ``{T: accuracy}`` in the order of ``lengths``.
    """
    check_int("n", n, 1)
    device = resolve_device(device)
    out = {}
    for T in progress_bar(lengths, desc="length transfer", leave=False):
        tok, tgt = (torch.as_tensor(a, device=device) for a in sample(n, T, seed))
        out[T] = recall_accuracy(model, tok, tgt, n_recall)
    return out


def recall_attention_mass(model: TaskModel, tokens: NDArray[Any], n_symbols: int = 10,
                          n_recall: int = 10) -> float:
    """Attention weight that the recall steps put on the symbol states, for one sequence.

    The mean over the last ``n_recall`` steps of ``sum_{i < n_symbols} alpha_{i,m}``: how much of
    the context still comes from the states that saw the symbols (1 for a perfect read-out
    that attends only to them).

    Parameters
    ----------
    model : TaskModel
        A model with scored attention (``"relrnn"`` or ``"full"``).
    tokens : ndarray of int, shape (L,)
        One input sequence whose first ``n_symbols`` tokens are the symbols.
    """
    if model.kind not in ("relrnn", "full"):
        raise ValueError(f"recall_attention_mass needs kind 'relrnn' or 'full', got {model.kind!r}")
    check_int("n_recall", n_recall, 1, len(tokens))
    device = model.readout.weight.device
    x = torch.nn.functional.one_hot(torch.as_tensor(tokens, device=device)[None], model.n_in)
    with torch.no_grad():
        _, _, tr = model.core(x.to(model.readout.weight.dtype), trace=True)
    masses = [float(a[idx < n_symbols].sum()) for idx, a in zip(tr.attended[-n_recall:], tr.alpha[-n_recall:])]
    return float(np.mean(masses))


def hidden_gradient_profile(model: TaskModel, tokens: NDArray[Any], targets: NDArray[Any],
                            device: DeviceLike) -> NDArray[np.float64]:
    """``||grad_{h_m} L||`` for every step ``m`` (averaged over the batch), ``L`` the mean
    cross-entropy: the gradient-norm profile of the supplement's Figure 3."""
    device = resolve_device(device)
    tok, tgt = torch.as_tensor(tokens, device=device), torch.as_tensor(targets, device=device)
    logits, hs = model(tok)
    loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
    grads = torch.autograd.grad(loss, hs, allow_unused=True)
    return np.array([0.0 if g is None else float(g.norm(dim=-1).mean()) for g in grads])


def step_cost(model: TaskModel, tokens: NDArray[Any], targets: NDArray[Any], device: DeviceLike,
              repeats: int = 2) -> tuple[float, int]:
    """Time (s, best of ``repeats``) of one forward+backward pass, and the bytes of the
    tensors autograd saved for the backward pass (the activation memory that grows with T).

    It runs the backward pass itself rather than through :func:`seqmi.train.fit`: it
    measures one pass (no optimizer step, the weights unchanged) between clock reads."""
    device = resolve_device(device)
    tok, tgt = torch.as_tensor(tokens, device=device), torch.as_tensor(targets, device=device)
    saved = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal saved
        saved += t.numel() * t.element_size()
        return t

    best = float("inf")
    for r in range(repeats):
        saved = 0
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            logits, _ = model(tok)
            loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
        loss.backward()
        if device.type == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
        model.zero_grad()
    return best, saved
