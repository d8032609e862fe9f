"""Model families: several members of one architecture trained in one pass, each exactly as alone.

:func:`seqmi.train.fit` trains the members of a family in lockstep, each with its own
weights, optimizer, data order and stop rule. This module says which members can share
a step (:func:`family_key`) and computes the losses of vanilla-RNN language models
(:class:`seqmi.models.lm.RNNLM`, ``cell="rnn"``) for all members at once
(:class:`RecurrentFamily`).

What is batched, and why (measured on 2 CPU cores, chapter 03's binary task, see
``benchmarks/bench_family.py``):

- ``torch.func.vmap`` cannot batch ``nn.RNN``/``nn.LSTM``: ``torch.func`` has no batching
  rule for ``aten::rnn_tanh`` or ``aten::lstm`` (it raises), and it falls back to one
  call per member for ``scaled_dot_product_attention``.
- Vanilla RNNs: a small model's step is dominated by the cost of launching operations,
  so the recurrence is written once for ``K`` members with batched weights
  (:class:`Recurrence`): one batched matrix product and a tanh per time step for all
  members, and a hand-written backward pass through time. A family of 16-32 trains
  several times more models per second than the same models one at a time.
- LSTMs keep their own forward pass, member by member: on the CPU ``nn.LSTM`` runs
  oneDNN's fused kernel for the whole sequence, and the same recurrence written with
  batched weights was no faster than it (0.8-2x for 16-32 members).
- Transformers keep their own forward pass too: their step is dominated by attention,
  which batching the members does not make cheaper.
- On CUDA every member keeps its own forward pass (cuDNN's fused kernels; the batched
  recurrence has not been measured there).

Members keep their numbers whatever the family: bit for bit on CPU, with one or two
threads (tested). With their own forward passes this holds by construction. The batched
recurrence gets there by computing everything that sums over a whole batch member by
member (input table, output layer, each member's mean) on 64-byte-aligned operands, by
giving a lone member a twin in the recurrence (so that torch takes the same BLAS path for
one member as for several), and by storing each member's batch rows in a slab of
``Bp * H`` numbers with ``Bp >= B`` chosen so that ``Bp * H`` is a multiple of 64: the
vectorised loops of the elementwise operations, and the split of a large one between
two threads, then cut every member's slab at the same places whatever ``K``. Its
arithmetic differs from ``nn.RNN``'s (other summation orders): a model trained here
agrees with one trained through ``nn.RNN`` to float32 rounding only.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from seqmi._optional import require

require("torch")  # first, so that a missing torch fails naming the extra that installs it

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from seqmi.device import DeviceLike, resolve_device
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.validate import check_int

SLAB = 64  # floats: a multiple of every CPU vector loop's stride (2 x 16 floats with AVX-512)


def _hooked(model: nn.Module) -> bool:
    return any(m._forward_hooks or m._forward_pre_hooks or m._backward_hooks for m in model.modules())


def _shapes(model: nn.Module) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return tuple((name, tuple(p.shape)) for name, p in model.named_parameters())


def _draws_randomness(model: nn.Module) -> bool:
    """Dropout anywhere: in lockstep the members' draws from torch's generator would interleave."""
    return any(isinstance(m, nn.Dropout) and m.p > 0 for m in model.modules()) or any(
        isinstance(m, nn.RNNBase) and m.dropout > 0 for m in model.modules())


def family_key(model: nn.Module, sequences: bool, device: DeviceLike = "cpu") -> Hashable | None:
    """Members with equal keys can be trained together in one lockstep family; ``None``: only alone.

    Parameters
    ----------
    model : nn.Module
        A freshly built member.
    sequences : bool
        Whether the data are independent sequences (:class:`seqmi.train.Sequences`); a
        stream read with a carried state is trained one model at a time.
    device : str or torch.device
        Where the family trains (``"auto" | "cpu" | "cuda" | torch.device``).

    Returns
    -------
    hashable or None
        ``("recurrent", ...)`` for a plain vanilla-RNN :class:`~seqmi.models.lm.RNNLM` on the CPU (losses
        of all members at once, :class:`RecurrentFamily`); ``("each", ...)`` for another
        :class:`~seqmi.models.lm.RNNLM` or :class:`~seqmi.models.lm.TransformerLM` without hooks or dropout (each member's
        own forward pass); ``None`` otherwise (other classes, hooks, dropout, streams).
        Keys differ for different parameter shapes: families group members of one width.
    """
    if not sequences or type(model) not in (RNNLM, TransformerLM) or _hooked(model) or _draws_randomness(model):
        return None
    if type(model) is RNNLM and model.cell == "rnn" and resolve_device(device).type == "cpu":
        return ("recurrent", model.tie_weights, _shapes(model))
    return ("each", type(model).__name__, _shapes(model))


def padded_batch(batch: int, hidden: int) -> int:
    """The smallest ``Bp >= batch`` with ``Bp * hidden`` a multiple of ``SLAB``."""
    bp = batch
    while (bp * hidden) % SLAB:
        bp += 1
    return bp


def _bmm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None) -> torch.Tensor:
    """``c + a @ b`` (or ``a @ b``) over the leading member dimension, on contiguous operands.

    The BLAS kernel a product takes depends on its operands' layout and, with several
    CPU threads, on the batch: torch computes a batch of two or more slices one per
    thread but a batch of one as a single multithreaded product, which sums in another
    order. Contiguous operands fix the layout; :func:`_recurrence` never passes a batch
    of one.
    """
    a, b = a.contiguous(), b.contiguous()
    return torch.bmm(a, b) if c is None else torch.baddbmm(c.contiguous(), a, b)


def _aligned(x: torch.Tensor) -> torch.Tensor:
    """``x`` itself if contiguous and 64-byte aligned (as a fresh tensor is), else a fresh copy."""
    return x if x.is_contiguous() and x.data_ptr() % 64 == 0 else x.clone(memory_format=torch.contiguous_format)


class _EachMM(torch.autograd.Function):
    """``a @ b`` member by member, forward and backward, each product on aligned operands.

    For the products of a whole batch (input table, projections, output layer): their
    weight gradients sum over every row of the batch, and BLAS kernels sum a long
    contraction in an order that depends on the batch of slices and on where a slice
    starts in memory; a lone member's tensors start 64-byte aligned.
    """

    @staticmethod
    def forward(ctx: Any, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(a, b)
        return torch.stack([_aligned(x) @ _aligned(y) for x, y in zip(a, b)])

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        a, b = ctx.saved_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = torch.stack([_aligned(g) @ _aligned(y).T for g, y in zip(grad, b)])
        if ctx.needs_input_grad[1]:
            gb = torch.stack([_aligned(x).T @ _aligned(g) for x, g in zip(a, grad)])
        return ga, gb


def _each_mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for ``(K, n, m)`` and ``(K, m, p)``, each member computed exactly as alone (:class:`_EachMM`)."""
    return _EachMM.apply(a, b)


class Recurrence(torch.autograd.Function):
    """One tanh-RNN layer for ``K`` members at once, with a hand-written backward pass through time.

    ``forward(inputs, w, symbols=None) -> hs``:

    - ``inputs`` : the input part of the pre-activations (biases included), either
      ``(L, K, H, Bp)`` for every step, or, with ``symbols``, a table ``(K, H, S)`` of its
      value for each of ``S`` input symbols, read at step ``t`` for the symbols
      ``symbols[t]`` (``(L, K, Bp)``, int64);
    - ``w`` : ``(K, H, H)``, the recurrent weights;
    - ``hs`` : ``(L, K, H, Bp)``, the hidden states ``h_t = tanh(inputs_t + w h_(t-1))``
      from a zero initial state.

    Features before batch rows: a member's states at one step are one contiguous slab.
    The table's gradient is summed step by step; that of ``w`` member by member at the end.
    """

    @staticmethod
    def forward(ctx: Any, inputs: torch.Tensor, w: torch.Tensor, symbols: torch.Tensor | None = None) -> torch.Tensor:
        K, H = w.shape[:2]
        L, Bp = (inputs.shape[0], inputs.shape[-1]) if symbols is None else (symbols.shape[0], symbols.shape[2])
        hs = w.new_zeros(L + 1, K, H, Bp)
        for t in range(L):
            x = inputs[t] if symbols is None else torch.gather(inputs, 2, symbols[t][:, None, :].expand(K, H, Bp))
            torch.tanh(_bmm(w, hs[t], x), out=hs[t + 1])
        ctx.save_for_backward(inputs, w, symbols, hs)
        return hs[1:]

    @staticmethod
    def backward(ctx: Any, dhs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        inputs, w, symbols, hs = ctx.saved_tensors
        L, K, H, Bp = dhs.shape
        wt = w.transpose(1, 2).contiguous()
        one = dhs.new_ones(())
        dinputs = torch.zeros_like(inputs) if symbols is not None else dhs.new_empty(L, K, H, Bp)
        # each step's pre-activation gradients, member-major: a member's block is contiguous
        # and starts at a multiple of 64 floats, so its weight gradient is one product as alone
        dpre = dhs.new_empty(K, H, L, Bp)
        d = dhs.new_empty(K, H, Bp)
        dh = torch.zeros_like(hs[0])
        for t in range(L - 1, -1, -1):
            dh = dh + dhs[t]
            torch.mul(dh, torch.addcmul(one, hs[t + 1], hs[t + 1], value=-1), out=d)  # tanh' = 1 - h^2
            dpre[:, :, t] = d
            if symbols is None:
                dinputs[t] = d
            else:
                dinputs.scatter_add_(2, symbols[t][:, None, :].expand(K, H, Bp), d)
            dh = _bmm(wt, d)
        h_rows = hs[:-1].permute(1, 0, 3, 2).contiguous()  # (K, L, Bp, H)
        dw = torch.stack([dpre[k].view(H, L * Bp) @ h_rows[k].view(L * Bp, H) for k in range(K)])
        return dinputs, dw, None


def _recurrence(inputs: torch.Tensor, w: torch.Tensor, symbols: torch.Tensor | None = None) -> torch.Tensor:
    """:class:`Recurrence` for any number of members; a lone member runs with a twin.

    The twin makes every batched product of the recurrence a batch of two, as in a
    family (see :func:`_bmm`); its outputs are dropped, so its gradients are zero and
    add nothing.
    """
    if w.shape[0] > 1:
        return Recurrence.apply(inputs, w, symbols)
    member = 1 if symbols is None else 0
    twin_inputs = torch.cat([inputs, inputs], member)
    twin_symbols = None if symbols is None else torch.cat([symbols, symbols], 1)
    return Recurrence.apply(twin_inputs, torch.cat([w, w]), twin_symbols)[:, :1]


class RecurrentFamily:
    """The next-token losses of ``K`` vanilla-RNN :class:`~seqmi.models.lm.RNNLM` members of one architecture, computed together.

    The object ``seqmi.train.Task.family`` expects: :meth:`losses` for a step,
    :meth:`evaluate` for the validation loss.

    Parameters
    ----------
    valid : ndarray of int, shape (n, L)
        Validation sequences (read from the start token, like :func:`seqmi.train.evaluate`).
    device : str or torch.device
        Where the validation rows go (``"auto" | "cpu" | "cuda" | torch.device``).
    batch_size : int
        Validation rows per pass.
    """

    def __init__(self, valid: np.ndarray, device: DeviceLike = "cpu", batch_size: int = 256) -> None:
        self.valid = torch.as_tensor(np.asarray(valid, dtype=np.int64))
        self.device, self.batch_size = resolve_device(device), check_int("batch_size", batch_size, 1)

    @staticmethod
    def _log_probs(models: Sequence[RNNLM], tokens: torch.Tensor) -> torch.Tensor:
        """Log-probabilities ``(K, V, L, Bp)`` of the next symbol after every prefix of ``tokens`` ``(K, B, L)``.

        Rows ``B..Bp-1`` are padding (zero states). Biases ride in the matrix products as
        an extra input row of ones (zero on padding rows): an added bias would be summed
        over rows by autograd with a reduction whose order depends on ``K``.
        """
        first = models[0]
        K, B, L = tokens.shape
        H, V = first.width, first.vocab_size
        Bp = padded_batch(B, H)
        device = tokens.device
        ones = torch.zeros(L, Bp, device=device)
        ones[:, :B] = 1.0
        ones = ones.view(1, 1, L * Bp).expand(K, 1, L * Bp)
        rnn = [m.rnn for m in models]

        def input_weights(layer: int) -> torch.Tensor:  # (K, H, H_in + 1): [W_ih | b_ih + b_hh]
            return torch.stack([torch.cat([getattr(r, f"weight_ih_l{layer}"),
                                           (getattr(r, f"bias_ih_l{layer}") + getattr(r, f"bias_hh_l{layer}"))[:, None]],
                                          1) for r in rnn])

        # layer 0 reads symbols: the pre-activations of each of the V + 1 input symbols,
        # and a zero column (symbol V + 1) read by the padding rows
        embed = torch.stack([m.embed.weight for m in models])
        table = _each_mm(input_weights(0), torch.cat([embed, embed.new_ones(K, V + 1, 1)], 2).transpose(1, 2))
        table = F.pad(table, (0, 1))  # (K, H, V + 2)
        inputs = torch.cat([torch.full((K, B, 1), first.bos, dtype=tokens.dtype, device=device), tokens[:, :, :-1]], 2)
        symbols = F.pad(inputs.permute(2, 0, 1), (0, Bp - B), value=V + 1).contiguous()  # (L, K, Bp)
        hs = _recurrence(table, torch.stack([r.weight_hh_l0 for r in rnn]), symbols)  # (L, K, H, Bp)
        for layer in range(1, first.depth):
            proj = _each_mm(input_weights(layer), torch.cat([hs.permute(1, 2, 0, 3).reshape(K, H, L * Bp), ones], 1))
            hs = _recurrence(proj.view(K, H, L, Bp).permute(2, 0, 1, 3).contiguous(),
                             torch.stack([getattr(r, f"weight_hh_l{layer}") for r in rnn]))
        head = torch.stack([torch.cat([m.embed.weight[:V] if m.tie_weights else m.head.weight, m.head.bias[:, None]], 1)
                            for m in models])  # (K, V, H + 1)
        logits = _each_mm(head, torch.cat([hs.permute(1, 2, 0, 3).reshape(K, H, L * Bp), ones], 1))  # (K, V, L Bp)
        # symbols along a middle axis: the softmax runs vectorised over positions (a tiny
        # last axis would make it run position by position, five times slower)
        return F.log_softmax(logits, dim=1).view(K, V, L, Bp)

    def _losses(self, models: Sequence[RNNLM], tokens: torch.Tensor) -> list[torch.Tensor]:
        K, B, L = tokens.shape
        logp = self._log_probs(models, tokens)
        Bp = logp.shape[3]
        target = F.pad(tokens.transpose(1, 2), (0, Bp - B))[:, None]  # (K, 1, L, Bp)
        picked = logp.gather(1, target)[:, 0]
        # the mean of each member's own tokens, one reduction per member
        return [-picked[k, :, :B].mean() for k in range(K)]

    def losses(self, models: Sequence[RNNLM], batches: Sequence[torch.Tensor]) -> list[tuple[torch.Tensor, int]]:
        """Mean cross-entropy (nats/token) of every member on its own batch, and the token count."""
        return [(loss, x.numel()) for loss, x in zip(self._losses(models, torch.stack(list(batches))), batches)]

    @torch.no_grad()
    def evaluate(self, models: Sequence[RNNLM]) -> list[float]:
        """Validation cross-entropy (nats/token) of every member."""
        for m in models:
            m.eval()
        total, count = [0.0] * len(models), 0
        for start in range(0, len(self.valid), self.batch_size):
            x = self.valid[start: start + self.batch_size].to(self.device)
            for k, loss in enumerate(self._losses(models, x.expand(len(models), *x.shape))):
                total[k] += float(loss) * x.numel()
            count += x.numel()
        for m in models:
            m.train()
        return [t / count for t in total]
