"""Model families: several members of one architecture trained in one pass, each as if alone.

:func:`seqmi.train.fit` trains the members of a family in lockstep, each with its own
weights, optimizer, data order and stop rule. This module says which members can share
a step (:func:`seqmi.family.family_key`, :func:`seqmi.family.family_for`) and computes
the losses of all members at once: vanilla-RNN language models
(:class:`seqmi.models.lm.RNNLM`, ``cell="rnn"``) on the CPU through a hand-written
batched recurrence (:class:`RecurrentFamily`), Transformers
(:class:`seqmi.models.lm.TransformerLM`) on CUDA through ``torch.func``
(:class:`seqmi.family.StackedFamily`), which takes the task's own loss, so that it also
stacks the Transformers of Gaussian tokens of L2M Fig. 4
(:func:`seqmi.recipes.gaussian_tokens.train_gaussian_family`).

What ``torch.func.vmap`` (of ``functional_call`` over the members' stacked parameters)
can batch, measured with torch 2.13:

- every operation of a Transformer but the CPU's attention kernel: it has no batching
  rule for ``aten::_scaled_dot_product_flash_attention_for_cpu``, warns, and calls it
  once per member. The CUDA kernels (flash, memory-efficient, cuDNN attention) have
  rules (registered in torch's functorch dispatch table), which fold the members into
  the batch dimension: one call. :class:`seqmi.family.StackedFamily` does the same fold
  itself on the CPU, without touching the models' own forward;
- not ``nn.RNN`` or ``nn.LSTM``: there are no batching rules for ``aten::rnn_tanh`` or
  ``aten::lstm``, and vmap raises ("We could not generate a fallback");
- not ``mambapy``'s Mamba (:class:`seqmi.models.mamba.MambaBackbone`): its parallel scan
  is an ``autograd.Function`` written without a ``setup_context`` method, and vmap raises
  ("it must override the setup_context staticmethod"). Its sequential scan
  (``pscan=False``, which the models do not run) goes through vmap, one Python step per
  position.

What is batched, and why (measured on 2 CPU cores, chapter 03's binary task, see
``benchmarks/bench_family.py`` and ``benchmarks/bench_stacked.py``):

- Vanilla RNNs on the CPU: a small model's step is dominated by the cost of launching
  operations, so the recurrence is written once for ``K`` members with batched weights
  (:class:`Recurrence`): one batched matrix product and a tanh per time step for all
  members, and a hand-written backward pass through time. A family of 16-32 trains
  several times more models per second than the same models one at a time.
- LSTMs keep their own forward pass, member by member: on the CPU ``nn.LSTM`` runs
  oneDNN's fused kernel for the whole sequence, and the same recurrence written with
  batched weights was no faster than it (0.8-2x for 16-32 members).
- Transformers on the CPU keep their own forward pass: a step there is arithmetic, most
  of it attention, which stacking does not make cheaper (stacked against one at a time,
  one thread, widths 8 and 16, ``K`` = 1-8: 0.87-1.04x the seeds per minute).
- Transformers on CUDA, two members or more: :class:`seqmi.family.StackedFamily`.
  There a small model's step waits on launching operations (chapter 03's largest
  binary Transformer computes at about 1% of an H200's bf16 peak), and a stacked step
  launches one model's operations for all members. ``vmap`` makes launching them
  1.5-2.2 times as costly (a lone member's step where launching dominates, measured on
  the CPU), so a member alone keeps its own forward pass. Not measured on a GPU yet:
  ``benchmarks/README.md`` estimates about 3x (2.5-4.4x) more seeds per GPU-minute for
  8 members and about 5x (2.5-10x) for 32. The Transformers of Gaussian tokens of L2M
  Fig. 4 (replicates of one model,
  :func:`seqmi.recipes.gaussian_tokens.train_gaussian_family`, float32) stack the same
  way; there it estimates 1.1-1.3x for 3 members and 1.7-2.1x for 8, each member keeping
  about a third of the operations it launches alone (optimizer, clipping, gradients).
- On CUDA, RNNs and LSTMs keep their own forward pass (cuDNN's fused kernels; the
  batched recurrence has not been measured there), and so do Mambas (vmap cannot batch
  them, above).

On the CPU, where nothing is stacked, members keep their numbers whatever the family:
bit for bit, with one or two threads (tested). With their own forward passes this holds
by construction. The batched recurrence gets there by computing everything that sums
over a whole batch member by member (input table, output layer, each member's mean) on
64-byte-aligned operands, by giving a lone member a twin in the recurrence (so that
torch takes the same BLAS path for one member as for several), and by storing each
member's batch rows in a slab of ``Bp * H`` numbers with ``Bp >= B`` chosen so that
``Bp * H`` is a multiple of 64: the vectorised loops of the elementwise operations, and
the split of a large one between two threads, then cut every member's slab at the same
places whatever ``K``. Its arithmetic differs from ``nn.RNN``'s (other summation
orders): a model trained here agrees with one trained through ``nn.RNN`` to float32
rounding only.

Stacked members (:class:`seqmi.family.StackedFamily`, measured on the CPU, float32):

- A member's loss and gradients do not depend on which or how many members share the
  call: bit for bit, with one or two threads (``K`` = 1 against 4 at chapter 03's
  widths 8 and 16, batch 50 x 128; tested against 5). On CUDA this is not measured:
  cuBLAS may pick its kernels by the number of members.
- Against the member's own forward pass they agree to float32 rounding only (the
  linear layers become batched products, which sum in other orders): the largest
  difference, relative to the largest value of the tensor, was 1.6e-7 for losses and
  3.0e-6 for gradients (tested to 1e-6 and 2e-5). After 12 steps of
  :func:`seqmi.train.fit` step and validation losses agree to 2e-7 and weights to
  1.1e-6 relative, except the bias of the attention keys: it adds a constant to every
  row of scores, which the softmax removes, so its gradient is rounding noise, which
  RMSprop and Adam scale up to steps of the learning rate (1e-3 relative apart after 12
  steps, without changing what the model computes).
- Fig. 4's Transformers of Gaussian tokens, with their KL loss
  (:func:`seqmi.recipes.gaussian_tokens.kl_loss`), likewise: bit for bit whatever ``K``
  (one or two threads, ``K`` = 1 against 5, tested); against their own forward passes
  (widths 8 and 32, ``L`` = 16 and 64, 2 layers, ``K`` = 4) losses equal and gradients
  7.6e-7 apart, relative; after 12 AdamW steps step losses 1.9e-7 and weights 2.7e-7
  apart, the keys' bias 1.2e-3 (tested to 1e-5).
- Under bf16 autocast (CUDA) the two ways round differently at bf16 precision; the
  validation pass runs in float32 with autocast off, as :func:`seqmi.train.evaluate`.
  So on CUDA a Transformer trained in a family of two or more agrees with one trained
  alone to rounding, not bit for bit.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence
from contextlib import nullcontext
from typing import Any

from seqmi._optional import require

require("torch")  # first, so that a missing torch fails naming the extra that installs it

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, vmap
from torch.nn import functional as F
from torch.overrides import TorchFunctionMode

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
        of all members at once, :class:`RecurrentFamily`); ``("stacked", ...)`` for a
        :class:`~seqmi.models.lm.TransformerLM` on CUDA (one batched computation,
        :class:`seqmi.family.StackedFamily`); ``("each", ...)`` for another
        :class:`~seqmi.models.lm.RNNLM` or :class:`~seqmi.models.lm.TransformerLM` without hooks or dropout (each member's
        own forward pass); ``None`` otherwise (other classes, hooks, dropout, streams).
        Keys differ for different parameter shapes: families group members of one width
        (stacked ones, of one :func:`seqmi.family.architecture`).
    """
    if not sequences or type(model) not in (RNNLM, TransformerLM) or _hooked(model) or _draws_randomness(model):
        return None
    on = resolve_device(device).type
    if type(model) is RNNLM and model.cell == "rnn" and on == "cpu":
        return ("recurrent", model.tie_weights, _shapes(model))
    # on the CPU, where recorded runs were made, Transformers keep their own forward pass:
    # the stacked one rounds differently and is no faster there (module docstring)
    if type(model) is TransformerLM and on == "cuda":
        return ("stacked", architecture(model))
    return ("each", type(model).__name__, _shapes(model))


def family_for(key: Hashable | None, valid: np.ndarray, device: DeviceLike = "cpu", members: int = 2) -> Any:
    """The ``seqmi.train.Task.family`` of ``members`` models whose :func:`seqmi.family.family_key` is ``key``.

    Parameters
    ----------
    key : hashable or None
        A :func:`seqmi.family.family_key`.
    valid : ndarray of int, shape (n, L)
        Validation sequences.
    device : str or torch.device
        Where the family trains.
    members : int
        How many models the family starts with.

    Returns
    -------
    object or None
        A :class:`seqmi.family.RecurrentFamily` or :class:`seqmi.family.StackedFamily`;
        ``None`` where each member keeps its own forward pass: ``"each"`` keys, and a
        stacked key with a single member (``vmap`` makes launching a step's operations
        1.5-2.2 times as costly, which only a family of several members earns back).
    """
    check_int("members", members, 1)
    if key is None or key[0] not in ("recurrent", "stacked") or (key[0] == "stacked" and members < 2):
        return None
    return (RecurrentFamily if key[0] == "recurrent" else StackedFamily)(valid, device)


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


# ---------------------------------------------------------------------- stacked members
_PLAIN = (type(None), bool, int, float, str, tuple)


def _settings(module: nn.Module) -> tuple[tuple[str, Any], ...]:
    """The plain attributes of one module (sizes, heads, flags): what its forward reads besides tensors."""
    return tuple(sorted(((k, v) for k, v in vars(module).items()
                         if not k.startswith("_") and k != "training" and isinstance(v, _PLAIN)), key=lambda kv: kv[0]))


def architecture(model: nn.Module) -> tuple:
    """The class, parameter and buffer shapes and module settings that one stacked family's members share.

    Two models with equal architectures run the same forward pass on tensors of the same
    shapes, so that one of them can run it for all (``torch.func.functional_call``).
    Parameter shapes alone do not say it: a Transformer's heads change no shape.

    Parameters
    ----------
    model : nn.Module

    Returns
    -------
    tuple
        Hashable: the class name, the named parameter and buffer shapes, and for every
        submodule its plain attributes (sizes, heads, flags; ``training`` left out).
    """
    return (type(model).__name__, _shapes(model), tuple((n, tuple(b.shape)) for n, b in model.named_buffers()),
            tuple((name, type(m).__name__, _settings(m)) for name, m in model.named_modules()))


class _FoldedAttention(torch.autograd.Function):
    """Attention under ``torch.func.vmap`` as one call, the members folded into its batch dimension.

    Only its ``vmap`` rule runs: it is applied to batched tensors alone (by
    ``_FoldAttention``), and the attention call inside the rule records its own
    backward pass, so no backward is written here.
    """

    generate_vmap_rule = False

    @staticmethod
    def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, is_causal: bool,
                scale: float | None) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: torch.Tensor) -> None:
        """Nothing to save (see the class docstring)."""

    @staticmethod
    def vmap(info: Any, in_dims: tuple, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, is_causal: bool,
             scale: float | None) -> tuple[torch.Tensor, int]:
        K = info.batch_size

        def fold(x: torch.Tensor, dim: int | None) -> torch.Tensor:
            x = x.expand(K, *x.shape) if dim is None else x.movedim(dim, 0)  # (K, B, H, T, D)
            return x.reshape(K * x.shape[1], *x.shape[2:])  # (K B, H, T, D)

        out = F.scaled_dot_product_attention(fold(q, in_dims[0]), fold(k, in_dims[1]), fold(v, in_dims[2]),
                                             is_causal=is_causal, scale=scale)  # (K B, H, T, D)
        return out.view(K, -1, *out.shape[1:]), 0  # (K, B, H, T, D)


_SDPA_ARGS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
_SDPA_DEFAULTS = {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None, "enable_gqa": False}


class _FoldAttention(TorchFunctionMode):
    """Inside ``vmap`` on the CPU: attention without mask or dropout as one call for all members.

    ``torch.func.vmap`` has no batching rule for the CPU kernel of attention and runs it
    once per member; every ``scaled_dot_product_attention`` call without mask, dropout
    or grouped heads goes through ``_FoldedAttention`` instead, and the models' own
    forward passes stay as they are. Other calls keep vmap's own handling.
    """

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if func is F.scaled_dot_product_attention:
            call = {**_SDPA_DEFAULTS, **dict(zip(_SDPA_ARGS, args)), **kwargs}
            if call["attn_mask"] is None and call["dropout_p"] == 0.0 and not call["enable_gqa"]:
                return _FoldedAttention.apply(call["query"], call["key"], call["value"], call["is_causal"],
                                              call["scale"])
        return func(*args, **kwargs)


def next_token_loss(model: nn.Module, seqs: torch.Tensor) -> tuple[torch.Tensor, int]:
    """:func:`seqmi.train.sequence_loss` of ``model`` on ``seqs`` ``(B, L)``, and the token count.

    The loss of a :class:`seqmi.family.StackedFamily` unless it is given another.
    """
    bos = torch.full((seqs.shape[0], 1), model.bos, dtype=seqs.dtype, device=seqs.device)
    logits = model(torch.cat([bos, seqs[:, :-1]], dim=1))  # (B, T, V)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), seqs.reshape(-1)), seqs.numel()


class _MemberLoss(nn.Module):
    """``loss(model, batch)`` as a module holding ``model``: ``functional_call`` of it runs the
    whole loss with one member's tensors in place of the model's."""

    def __init__(self, model: nn.Module, loss: Callable[[nn.Module, Any], tuple[torch.Tensor, int]]) -> None:
        super().__init__()
        self.model, self.loss = model, loss

    def forward(self, batch: Any) -> tuple[torch.Tensor, int]:
        return self.loss(self.model, batch)


def _stack(batches: Sequence[Any]) -> Any:
    """The members' batches stacked along a new first dimension: a tensor, or a tuple of tensors."""
    if isinstance(batches[0], torch.Tensor):
        return torch.stack(list(batches))
    return tuple(torch.stack(parts) for parts in zip(*batches))


class StackedFamily:
    """The losses of ``K`` members of one architecture as one computation, each member with its own weights.

    The object ``seqmi.train.Task.family`` expects (:meth:`losses`, :meth:`evaluate`), for
    models that ``torch.func.vmap`` can batch: :class:`~seqmi.models.lm.TransformerLM`,
    the Transformer of :class:`~seqmi.models.gaussian_lm.GaussianSequenceModel` (and
    other models without recurrent layers or Mamba scans). Every step stacks the members'
    parameters and buffers (``torch.stack``, differentiable: each member's own ``.grad``
    fills, so that its optimizer, clipping and stop rule stay its own) and computes every
    loss with one ``vmap`` of ``torch.func.functional_call`` over (parameters, batch);
    attention runs as one call for all members (see :mod:`seqmi.family`). Each loss means
    what ``loss`` means for the member alone: by default the mean next-token cross-entropy
    of its tokens (:func:`seqmi.family.next_token_loss`, as :func:`seqmi.train.sequence_loss`).
    Numbers agree with the members' own forward passes to float32 rounding, and do not
    depend on the other members (bit for bit on the CPU).

    Parameters
    ----------
    valid : ndarray of int, shape (n, L), optional
        Validation sequences (read from the start token, like :func:`seqmi.train.evaluate`),
        scored by ``loss``; ``None`` for a task that evaluates nothing (no :meth:`evaluate`).
    device : str or torch.device
        Where the validation rows go (``"auto" | "cpu" | "cuda" | torch.device``).
    batch_size : int
        Validation rows per pass.
    loss : callable, optional
        ``loss(model, batch) -> (scalar loss, weight)``, a ``seqmi.train.Task.loss``: it
        runs once, under ``vmap``, with the model's tensors replaced by the members'
        stacked ones and the batch by the stacked batches (a tensor or a tuple of
        tensors), so that it may call the model and read its plain attributes, not its
        tensors; the weight must depend on the batch's shape alone. Default:
        :func:`seqmi.family.next_token_loss`.
    """

    def __init__(self, valid: np.ndarray | None = None, device: DeviceLike = "cpu", batch_size: int = 256,
                 loss: Callable[[nn.Module, Any], tuple[torch.Tensor, int]] = next_token_loss) -> None:
        self.valid = None if valid is None else torch.as_tensor(np.asarray(valid, dtype=np.int64))
        self.device, self.batch_size = resolve_device(device), check_int("batch_size", batch_size, 1)
        self.loss = loss
        # computed once per model: walking a model's modules costs about 0.2 ms, at every step
        self._architectures: weakref.WeakKeyDictionary[nn.Module, tuple] = weakref.WeakKeyDictionary()

    def _architecture(self, model: nn.Module) -> tuple:
        if model not in self._architectures:
            if any(isinstance(m, nn.RNNBase) for m in model.modules()):
                raise ValueError(f"a StackedFamily cannot batch {type(model).__name__} with nn.RNN or nn.LSTM layers: "
                                 "torch.func.vmap has no batching rule for aten::rnn_tanh or aten::lstm; allowed are "
                                 "models without recurrent layers, such as TransformerLM")
            self._architectures[model] = architecture(model)
        return self._architectures[model]

    def check(self, models: Sequence[nn.Module]) -> None:
        """Raise ``ValueError`` unless ``models`` are one or more models of one architecture that vmap can batch."""
        if not models:
            raise ValueError("a StackedFamily needs at least one model, got none")
        first = self._architecture(models[0])
        for k, model in enumerate(models[1:], 1):
            if self._architecture(model) != first:
                raise ValueError(f"members of a StackedFamily share one architecture: member {k} "
                                 f"({type(model).__name__}, parameters {dict(_shapes(model))}) differs from member 0 "
                                 f"({type(models[0]).__name__}, parameters {dict(_shapes(models[0]))})")

    def _losses(self, models: Sequence[nn.Module], batch: Any, shared: bool = False) -> tuple[torch.Tensor, int]:
        """Each member's loss ``(K,)`` on its slice of ``batch`` (tensors ``(K, ...)``) or on a shared one; the weight."""
        named = [dict(m.named_parameters()) | dict(m.named_buffers()) for m in models]
        state = {f"model.{name}": torch.stack([n[name] for n in named]) for name in named[0]}  # (K, ...) each
        loss, weights = _MemberLoss(models[0], self.loss), []

        def member(state: dict[str, torch.Tensor], batch: Any) -> torch.Tensor:
            value, weight = functional_call(loss, state, (batch,))
            weights.append(weight)  # vmap calls this once, for all members
            return value

        first = batch if isinstance(batch, torch.Tensor) else batch[0]
        # vmap batches CUDA's attention kernels itself; the CPU's it would run member by member
        with _FoldAttention() if first.device.type == "cpu" else nullcontext():
            values = vmap(member, in_dims=(0, None if shared else 0))(state, batch)
        return values, weights[0]

    def losses(self, models: Sequence[nn.Module], batches: Sequence[Any]) -> list[tuple[torch.Tensor, int]]:
        """The loss of every member on its own batch, and its weight (by default nats/token and tokens)."""
        self.check(models)
        values, weight = self._losses(models, _stack(batches))
        return [(value, weight) for value in values]

    @torch.no_grad()
    def evaluate(self, models: Sequence[nn.Module]) -> list[float]:
        """Validation loss of every member (cross-entropy, nats/token), in float32 whatever autocast is on outside."""
        if self.valid is None:
            raise ValueError("this StackedFamily was built without validation sequences (valid=None): "
                             "pass valid to evaluate its members")
        self.check(models)
        for m in models:
            m.eval()
        total, count = [0.0] * len(models), 0
        with torch.autocast(self.device.type, enabled=False):
            for start in range(0, len(self.valid), self.batch_size):
                values, weight = self._losses(models, self.valid[start: start + self.batch_size].to(self.device),
                                              shared=True)
                for k, loss in enumerate(values.tolist()):
                    total[k] += loss * weight
                count += weight
        for m in models:
            m.train()
        return [t / count for t in total]
