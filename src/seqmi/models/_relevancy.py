"""The relevancy-screening recurrence (RelRNN) as one forward and one backward scan over time.

A step of the recurrence is some twenty operations on arrays of a few thousand numbers.
Recorded op by op by autograd, each costs microseconds to launch and as much again to
differentiate (and ``torch.tanh`` is slow at this size on some CPUs): a training update at
T = 1,000 took 0.85 s. Here a step forward is two compiled kernels and two calls of numpy's
vectorised ``tanh`` (numba's scalar ``tanh`` is a hundred times slower), and the backward pass
is the adjoint of the scan, written out by hand: one kernel and one ``tanh`` per step. The
graph autograd sees has two nodes:

- :class:`_Context`: the states ``h_m`` to the outputs ``s_m``. Its backward pass runs the
  recursion through time (attention and ``V``) and returns the *total* derivative of the loss
  with respect to every ``h_m``, so the per-step states handed out between the two nodes are
  graph nodes that ``torch.autograd.grad`` differentiates as it would the unrolled graph.
- :class:`_Cell`: ``h_m = phi(V s_{m-1} + drive_m)``, the parameters and inputs to the states;
  its gradients (``V``'s, the drive's) come out of the same backward scan.

The scan runs on the CPU whatever the parameters' device: at the batch sizes these models
train with, a step is bound by latency, which a GPU does not improve.

The attended set lives in ``W = nu + rho`` slots per sequence: ``0 .. nu-1`` hold the
short-term buffer as a ring (state ``i`` in slot ``i % nu``), ``nu .. W-1`` the relevant states.
The backward pass does not store the attended states of every step: it replays the slot
changes in reverse (each admission records the state it evicted) and recomputes the scores'
``tanh``, so the memory kept for it is a few arrays of the size of the hidden states.

Shape comments use the letters of :mod:`seqmi.models.attentive_rnn`: ``T`` steps, ``B`` batch size,
``C`` hidden width (the ``n`` of the docstrings).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import torch
from numpy.typing import NDArray
from torch.autograd.function import once_differentiable

Array = NDArray[np.floating]
Index = NDArray[np.int64]

# reassociation lets the dot products vectorise; no "ninf": masked scores start at -inf
_FAST = {"reassoc", "contract"}


@dataclass
class TraceRows:
    """The first sequence's pre-activations, attended indices and weights, step by step, in the
    order of :class:`seqmi.models.attentive_rnn.Trace`: the buffer in time order, then the
    relevant states in slot order."""

    pre: list[Array]
    attended: list[Index]
    alpha: list[Array]


@dataclass
class _Scan:
    """What the forward scan computed (time-major arrays, ``(T, B, ...)``).

    ``h`` is ``phi(pre)`` before any ``delta``; ``keys`` and ``q`` are ``U_a h_m`` and
    ``W_a s_{m-1}``; ``alpha`` the weights per step and slot; ``target`` the slot each leaving
    state was admitted to (-1: not admitted) and ``evicted`` the state it replaced (-1: none);
    ``slot_h``, ``slot_k`` the slots' states and keys after the last step. All but ``h`` and ``s``
    are kept only when a backward pass may follow. ``grad_h``, ``grad_pre`` and ``grad_V`` are
    what :class:`_Context`'s backward pass last computed, for :class:`_Cell`.
    """

    h: Array
    s: Array
    keys: Array | None = None
    q: Array | None = None
    alpha: Array | None = None
    target: Index | None = None
    evicted: Index | None = None
    slot_h: Array | None = None
    slot_k: Array | None = None
    grad_h: torch.Tensor | None = None
    grad_pre: torch.Tensor | None = None
    grad_V: torch.Tensor | None = None


@numba.njit(cache=True, fastmath=_FAST)
def _project(s: Array, VWt: Array, drive: Array, pre: Array, q: Array) -> None:  # pragma: no cover - compiled
    """``pre = V s + drive`` and ``q = W_a s`` for each sequence (``VWt`` = ``[V; W_a]^T``)."""
    B, n = s.shape
    row = np.empty(2 * n, s.dtype)
    for b in range(B):
        row[:] = 0
        for i in range(n):
            si = s[b, i]
            for j in range(2 * n):
                row[j] += si * VWt[i, j]
        for j in range(n):
            pre[b, j] = row[j] + drive[b, j]
            q[b, j] = row[n + j]


@numba.njit(cache=True, fastmath=_FAST)
def _enter(h: Array, m: int, nu: int, UaT: Array, q: Array, slot_h: Array, slot_k: Array, score: Array,
           valid: NDArray[np.bool_], when: Index, key: Array, z: Array) -> None:  # pragma: no cover - compiled
    """Put ``h_m`` and its key in its buffer slot; ``z = W_a s_{m-1} + U_a h_i`` for every slot
    (``tanh`` is applied outside)."""
    B, W, n = z.shape
    slot = m % nu
    for b in range(B):
        key[b] = 0
        for i in range(n):
            hi = h[b, i]
            for j in range(n):
                key[b, j] += hi * UaT[i, j]
        slot_h[b, slot] = h[b]
        slot_k[b, slot] = key[b]
        score[b, slot] = 0
        valid[b, slot] = True
        when[b, slot] = m
        for i in range(W):
            for j in range(n):
                z[b, i, j] = q[b, j] + slot_k[b, i, j]


@numba.njit(cache=True, fastmath=_FAST)
def _attend(z: Array, h: Array, v: Array, weight: float, m: int, nu: int, slot_h: Array, slot_k: Array,
            score: Array, valid: NDArray[np.bool_], when: Index, s: Array, alpha: Array, target: Index,
            evicted: Index, VWt: Array, drive: Array, pre: Array, q: Array) -> None:  # pragma: no cover - compiled
    """Softmax over the valid slots, ``s_m = weight (h_m + c_m)``, relevance bookkeeping, the
    admission of the state that leaves the buffer, and (unless ``m`` is the last step) the
    next step's ``pre`` and ``q`` from ``drive`` of step ``m + 1``."""
    B, W, n = z.shape
    cur = m % nu
    e = np.empty(W, z.dtype)
    c = np.empty(n, z.dtype)
    leaving = m - nu + 1
    for b in range(B):
        top = z.dtype.type(0)
        for j in range(n):
            top += z[b, cur, j] * v[j]
        for i in range(W):
            if valid[b, i]:
                e[i] = 0
                for j in range(n):
                    e[i] += z[b, i, j] * v[j]
                top = max(top, e[i])
        total = z.dtype.type(0)
        for i in range(W):
            e[i] = np.exp(e[i] - top) if valid[b, i] else 0
            total += e[i]
        c[:] = 0
        for i in range(W):
            a = e[i] / total
            alpha[b, i] = a
            for j in range(n):
                c[j] += a * slot_h[b, i, j]
        for j in range(n):
            s[b, j] = weight * (h[b, j] + c[j])
        for i in range(nu):
            score[b, i] += alpha[b, i]
        target[b] = evicted[b] = -1
        if leaving >= 0 and W > nu:
            # the oldest buffer state leaves: it takes the first empty relevant slot, else
            # replaces the first of the lowest-scoring ones if it scored higher
            out = (m + 1) % nu
            low = nu
            for i in range(nu, W):
                if not valid[b, i]:
                    low = i
                    break
                if score[b, i] < score[b, low]:
                    low = i
            if not valid[b, low] or score[b, out] > score[b, low]:
                target[b] = low
                evicted[b] = when[b, low] if valid[b, low] else -1
                slot_h[b, low] = slot_h[b, out]
                slot_k[b, low] = slot_k[b, out]
                score[b, low] = score[b, out]
                valid[b, low] = True
                when[b, low] = leaving
    if m + 1 < drive.shape[0]:
        _project(s, VWt, drive[m + 1], pre, q)


@numba.njit(cache=True, fastmath=_FAST)
def _restore(m: int, nu: int, target: Index, evicted: Index, h: Array, keys: Array, q: Array, slot_h: Array,
             slot_k: Array, acc_h: Array, acc_k: Array, z: Array) -> None:  # pragma: no cover - compiled
    """Backwards through the admission at the end of step ``m``: the gradient the admitted
    state gathered in its relevant slot goes back to its buffer slot, and the slot gets the
    state it evicted; then ``z`` of step ``m`` (before ``tanh``)."""
    B, W, n = z.shape
    out = (m + 1) % nu
    for b in range(B):
        t = target[m, b]
        if t >= 0:
            for j in range(n):
                acc_h[b, out, j] += acc_h[b, t, j]
                acc_k[b, out, j] += acc_k[b, t, j]
            acc_h[b, t] = 0
            acc_k[b, t] = 0
            if evicted[m, b] >= 0:
                slot_h[b, t] = h[evicted[m, b], b]
                slot_k[b, t] = keys[evicted[m, b], b]
        for i in range(W):
            for j in range(n):
                z[b, i, j] = q[m, b, j] + slot_k[b, i, j]


@numba.njit(cache=True, fastmath=_FAST)
def _attend_backward(m: int, nu: int, weight: float, tanh: bool, g_s: Array, carry: Array, z: Array,
                     alpha: Array, target: Index, evicted: Index, q: Array, slot_h: Array, slot_k: Array,
                     acc_h: Array, acc_k: Array, phi_pre: Array, h: Array, keys: Array, V: Array, W_a: Array,
                     U_a: Array, v: Array, g_h: Array, g_pq: Array, g_k: Array,
                     g_v: Array) -> None:  # pragma: no cover - compiled
    """Step ``m`` backwards: from ``dL/ds_m`` (direct ``g_s`` plus ``carry`` from step ``m+1``) to
    the slots' gradients, the total ``dL/dh_m`` (its slot is complete now), ``[dL/dpre_m |
    dL/dq_m]`` and ``carry`` for step ``m-1``; then the slot gets back the state that ``h_m``
    replaced, and the slots are restored to step ``m-1`` (:func:`_restore`)."""
    B, W, n = z.shape
    slot = m % nu
    g_c = np.empty(n, z.dtype)
    g_alpha = np.empty(W, z.dtype)
    g_v_step = np.zeros(n, z.dtype)
    for b in range(B):
        for j in range(n):
            g_c[j] = weight * (g_s[m, b, j] + carry[b, j])
        mean = z.dtype.type(0)
        for i in range(W):
            g_alpha[i] = 0
            for j in range(n):
                g_alpha[i] += slot_h[b, i, j] * g_c[j]
            mean += alpha[m, b, i] * g_alpha[i]
        g_q = g_pq[m, b, n:]
        g_q[:] = 0
        for i in range(W):
            a = alpha[m, b, i]
            g_e = a * (g_alpha[i] - mean)
            for j in range(n):
                acc_h[b, i, j] += a * g_c[j]
                zz = z[b, i, j]
                g_ev = g_e * v[j]
                g_z = g_ev - g_ev * zz * zz
                acc_k[b, i, j] += g_z
                g_q[j] += g_z
                g_v_step[j] += g_e * zz
        for j in range(n):
            g_h[m, b, j] = g_c[j] + acc_h[b, slot, j]
        for i in range(n):
            g_ki = acc_k[b, slot, i]
            for j in range(n):
                g_h[m, b, j] += g_ki * U_a[i, j]
        g_k[m, b] = acc_k[b, slot]
        acc_h[b, slot] = 0
        acc_k[b, slot] = 0
        g_pre = g_pq[m, b, :n]
        for j in range(n):
            g_pre[j] = g_h[m, b, j] - g_h[m, b, j] * phi_pre[m, b, j] * phi_pre[m, b, j] if tanh else g_h[m, b, j]
        carry[b] = 0
        for i in range(n):
            gp, gq = g_pre[i], g_q[i]
            for j in range(n):
                carry[b, j] += gp * V[i, j] + gq * W_a[i, j]
        if m >= nu:
            slot_h[b, slot] = h[m - nu, b]
            slot_k[b, slot] = keys[m - nu, b]
    for j in range(n):
        g_v[j] += g_v_step[j]
    if m > 0:
        _restore(m - 1, nu, target, evicted, h, keys, q, slot_h, slot_k, acc_h, acc_k, z)


def _scan(drive: Array, V: Array, W_a: Array, U_a: Array, v_a: Array, nu: int, rho: int, weight: float,
          tanh: bool, delta: Array | None, delta_index: int, keep: bool,
          trace: bool) -> tuple[_Scan, TraceRows | None]:
    """Run the recurrence over ``drive = U x + b`` of shape ``(T, B, n)``; see :func:`relevancy_recurrence`."""
    T, B, n = drive.shape
    W, dt = nu + rho, drive.dtype
    VWt = np.ascontiguousarray(np.concatenate([V, W_a]).T)
    UaT = np.ascontiguousarray(U_a.T)
    weight = dt.type(weight)
    run = _Scan(np.empty((T, B, n), dt), np.empty((T, B, n), dt))
    # without a backward pass to come, one step's worth of each record is reused
    steps = T if keep else 1
    keys, alpha = np.empty((steps, B, n), dt), np.empty((steps, B, W), dt)
    target, evicted = np.empty((steps, B), np.int64), np.empty((steps, B), np.int64)
    q_all = np.empty((T, B, n), dt) if keep else None
    slot_h, slot_k = np.zeros((B, W, n), dt), np.zeros((B, W, n), dt)
    score, valid, when = np.zeros((B, W), dt), np.zeros((B, W), np.bool_), np.full((B, W), -1, np.int64)
    z, pre, q = np.empty((B, W, n), dt), np.empty((B, n), dt), np.empty((B, n), dt)
    rows = TraceRows([], [], []) if trace else None
    _project(np.zeros((B, n), dt), VWt, drive[0], pre, q)
    for m in range(T):
        r = m if keep else 0
        h = run.h[m]
        if tanh:
            np.tanh(pre, out=h)
        else:
            h[...] = pre
        if delta is not None and m == delta_index:
            h = h + delta
        if keep:
            q_all[m] = q
        _enter(h, m, nu, UaT, q, slot_h, slot_k, score, valid, when, keys[r], z)
        np.tanh(z, out=z)
        if trace:
            lo = max(0, m - nu + 1)
            held = np.flatnonzero(valid[0, nu:]) + nu
            rows.pre.append(pre[0].copy())
            rows.attended.append(np.concatenate([np.arange(lo, m + 1), when[0, held]]))
        _attend(z, h, v_a, weight, m, nu, slot_h, slot_k, score, valid, when, run.s[m], alpha[r], target[r],
                evicted[r], VWt, drive, pre, q)
        if trace:
            rows.alpha.append(np.concatenate([alpha[r, 0, np.arange(lo, m + 1) % nu], alpha[r, 0, held]]))
    if keep:
        run.keys, run.q, run.alpha, run.target, run.evicted = keys, q_all, alpha, target, evicted
        run.slot_h, run.slot_k = slot_h, slot_k
    return run, rows


def _scan_backward(run: _Scan, g_s: Array, h: Array, V: Array, W_a: Array, U_a: Array, v_a: Array, nu: int,
                   weight: float, tanh: bool) -> tuple[Array, Array, Array, Array]:
    """The adjoint of :func:`_scan`: from ``dL/ds`` (direct, ``(T, B, n)``) and the states ``h``
    (after ``delta``) to the total ``dL/dh``, ``[dL/dpre | dL/dq]`` and ``dL/dk`` per step, and
    ``v_a``'s gradient.

    A slot's gradient accumulates while its state occupies it; undoing an admission moves
    what the relevant slot gathered back to the buffer slot the state came from, so that when
    the scan reaches the step that created a state, its buffer slot holds everything the later
    steps sent it.
    """
    T, B, n = g_s.shape
    W, dt = run.alpha.shape[-1], g_s.dtype
    weight = dt.type(weight)
    slot_h, slot_k = run.slot_h.copy(), run.slot_k.copy()
    acc_h, acc_k = np.zeros((B, W, n), dt), np.zeros((B, W, n), dt)
    g_h, g_pq, g_k = np.empty((T, B, n), dt), np.empty((T, B, 2 * n), dt), np.empty((T, B, n), dt)
    g_v, carry, z = np.zeros(n, dt), np.zeros((B, n), dt), np.empty((B, W, n), dt)
    _restore(T - 1, nu, run.target, run.evicted, h, run.keys, run.q, slot_h, slot_k, acc_h, acc_k, z)
    for m in range(T - 1, -1, -1):
        np.tanh(z, out=z)
        _attend_backward(m, nu, weight, tanh, g_s, carry, z, run.alpha, run.target, run.evicted, run.q, slot_h,
                         slot_k, acc_h, acc_k, run.h, h, run.keys, V, W_a, U_a, v_a, g_h, g_pq, g_k, g_v)
    return g_h, g_pq, g_k, g_v


def _numpy(t: torch.Tensor) -> Array:
    return t.detach().cpu().numpy()


class _Cell(torch.autograd.Function):
    """``h_m = phi(V s_{m-1} + drive_m)`` for every step, the ``s_{m-1}`` of the scan held fixed.

    Its gradients (the drive's ``dL/dpre`` and ``V``'s) come out of :class:`_Context`'s backward
    scan, which computes them anyway; they are right only if the gradient that reaches ``h`` is
    the one that scan returned, which is checked.
    """

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, drive: torch.Tensor, V: torch.Tensor, h: torch.Tensor,
                run: _Scan) -> torch.Tensor:
        # drive (T, B, C) and V (C, C): the graph's inputs; h (T, B, C): the scan's states (CPU)
        ctx.run = run
        # a copy: the scan's array stays as saved for the backward pass whatever the caller does
        return h.to(drive.device, copy=True)  # (T, B, C)

    @staticmethod
    @once_differentiable
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        run = ctx.run
        if run.grad_h is None or not torch.equal(grad, run.grad_h):
            raise RuntimeError("the hidden states of a relevancy-screening AttentiveRNN can be differentiated "
                               "only through its outputs s, not used directly in a loss")
        return run.grad_pre, run.grad_V, None, None


class _Context(torch.autograd.Function):
    """The states ``h_m`` to the outputs ``s_m``; the backward pass is the whole recursion."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, h_in: torch.Tensor, V: torch.Tensor, W_a: torch.Tensor,
                U_a: torch.Tensor, v_a: torch.Tensor, h: torch.Tensor, s: torch.Tensor, run: _Scan, nu: int,
                weight: float, tanh: bool) -> torch.Tensor:
        # h_in (T, B, C): the graph's states; V, W_a, U_a (C, C); v_a (C,); h, s (T, B, C): the scan's (CPU)
        ctx.run, ctx.nu, ctx.weight, ctx.tanh = run, nu, weight, tanh
        # the scan's records go through save_for_backward (not only ctx) so that saved-tensor
        # hooks see them: chapter 06 measures the activation memory with such a hook
        records = (run.keys, run.q, run.alpha, run.target, run.evicted, run.slot_h, run.slot_k)
        ctx.save_for_backward(h_in, V, W_a, U_a, v_a, h, s, *(torch.from_numpy(a) for a in records))
        return s.to(h_in.device, copy=True)  # (T, B, C)

    @staticmethod
    @once_differentiable
    def backward(ctx: torch.autograd.function.FunctionCtx, g_s: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        h_in, V, W_a, U_a, v_a, h, s, *records = ctx.saved_tensors
        # contiguous, so that the kernels are compiled (and cached) for one memory layout
        grads = _scan_backward(_Scan(h.numpy(), s.numpy(), *(r.numpy() for r in records)),
                               np.ascontiguousarray(_numpy(g_s)), _numpy(h_in), _numpy(V), _numpy(W_a), _numpy(U_a),
                               _numpy(v_a), ctx.nu, ctx.weight, ctx.tanh)
        g_h, g_pq, g_k, g_v = (torch.from_numpy(g).to(g_s.device) for g in grads)
        n = g_h.shape[-1]
        # the parameters' gradients sum over all steps at once, in torch, so that they follow
        # torch's thread setting (numpy's BLAS threads stall when the cores are busy); V and
        # W_a act on the same s_{m-1}: one product for both
        s_prev = torch.cat([torch.zeros_like(s[:1]), s[:-1]]).to(g_s.device).reshape(-1, n)
        g_VW = g_pq.reshape(-1, 2 * n).T @ s_prev
        g_U_a = g_k.reshape(-1, n).T @ h_in.reshape(-1, n)
        run = ctx.run
        run.grad_h, run.grad_pre, run.grad_V = g_h, g_pq[..., :n], g_VW[:n]
        return g_h, None, g_VW[n:], g_U_a, g_v, None, None, None, None, None, None


def relevancy_recurrence(drive: torch.Tensor, V: torch.Tensor, W_a: torch.Tensor, U_a: torch.Tensor,
                         v_a: torch.Tensor, nu: int, rho: int, weight: float, tanh: bool,
                         delta: torch.Tensor | None = None, delta_index: int = 0,
                         trace: bool = False) -> tuple[torch.Tensor, list[torch.Tensor], TraceRows | None]:
    """The relevancy-screening recurrence of :class:`seqmi.models.attentive_rnn.AttentiveRNN`.

    Parameters
    ----------
    drive : Tensor, shape (T, B, n)
        The input drive ``U x_m + b``, time first.
    V, W_a, U_a, v_a : Tensor
        Recurrent weight and the additive score's parameters.
    nu, rho : int
        Buffer length and number of relevant states.
    weight : float
        ``s = weight (h + c)``: 1 or 1/2 (the two ``combine`` choices).
    tanh : bool
        ``phi = tanh``, else the identity.
    delta, delta_index : Tensor, int
        Added to ``h_{delta_index}`` right after it is computed (shape ``(n,)`` or ``(B, n)``).
    trace : bool
        Also return the first sequence's :class:`TraceRows`.

    Returns
    -------
    s : Tensor, shape (T, B, n)
    h : list of Tensor, each (B, n)
        The hidden states, graph nodes when gradients are recorded.
    rows : TraceRows or None
    """
    keep = torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (drive, V, W_a, U_a, v_a, delta))
    run, rows = _scan(np.ascontiguousarray(_numpy(drive)), _numpy(V), _numpy(W_a), _numpy(U_a), _numpy(v_a), nu, rho,
                      weight, tanh, None if delta is None else _numpy(delta), delta_index, keep, trace)
    h_cpu, s_cpu = torch.from_numpy(run.h), torch.from_numpy(run.s)
    h = _Cell.apply(drive, V, h_cpu, run) if keep else h_cpu.to(drive.device)
    hs = list(h.unbind(0))
    if delta is not None:
        hs[delta_index] = hs[delta_index] + delta
    if keep:
        s = _Context.apply(torch.stack(hs), V, W_a, U_a, v_a, h_cpu, s_cpu, run, nu, weight, tanh)
    else:
        s = s_cpu.to(drive.device)
    return s, hs, rows
