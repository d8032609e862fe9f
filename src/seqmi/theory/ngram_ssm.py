"""State space (and recurrent) language models built to express an n-gram language.

The construction of Nandakumar et al. (Theorem 4.1, Propositions 4.4-4.6, Appendix A):

1. **Embedding.** A generic ``d x |V|`` matrix ``E`` (distinct columns), any ``d >= 1``.
2. **Nilpotent transition, Proposition 4.6.** ``h_t = A h_{t-1} + B x_t`` with
   ``A^(n-1) = 0``, so ``h_t = sum_{k<n-1} A^k B x_{t-k}`` depends on the last ``n - 1``
   words only: exactly the n-gram context. Order ``n - 1`` is the smallest that still
   sees the whole context (``A^(n-2) != 0``).
3. **Distinct coordinates, Lemma A.3.** For generic ``A`` and ``B`` each hidden
   coordinate takes pairwise distinct values on the ``|P|`` rule contexts.
4. **Bias, Lemma A.4.** The induction: pick a coordinate and a threshold between its
   largest and second largest value over the contexts not yet used, so that after
   ``ReLU(h + b)`` exactly one of them is non-zero there; recurse on the rest. The
   post-ReLU states form a triangular, hence invertible, ``|P| x |P|`` matrix.
   The lemma allows any order and any threshold inside the gap; we pivot, as Gaussian
   elimination does, choosing at each step the coordinate and sign that keep the
   triangle's inverse smallest, and put the threshold near the second largest value.
   Without that the inverse, and with it ``C``, can grow to where rounding in the
   hidden state alone moves the logits by more than ``eps`` (see :func:`independence_bias`).
5. **Readout, Proposition 4.5.** ``C`` solves ``C ReLU(H + b) = Z`` where column ``j`` of
   ``Z`` is the log of the epsilon-smoothed n-gram distribution of context ``j``
   (Definition 4.2), so ``softmax(C ReLU(h_t + b))`` is that distribution.

``A`` is a generic nilpotent matrix ``A = P L P^{-1}``: ``L`` is strictly block lower
triangular with ``n - 1`` layers (``L^(n-1) = 0`` holds structurally, with exact zeros)
and ``P`` is a random orthogonal matrix times the diagonal rescaling of step 4. The
recurrence runs on ``z = P^{-1} h``, where the nilpotency is exact in floating point;
``h = P z`` is the same model as ``h_t = A h_{t-1} + B x_t`` with ``B = P B_z``, and
its output ignores older words bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from seqmi.data.ngram import NgramLanguage
from seqmi.validate import check_float, check_int

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Certificate:
    """Numbers that certify one memorising construction.

    Attributes
    ----------
    min_coordinate_gap : float
        Lemma A.3: the smallest distance between two contexts' values of one
        (memorising) hidden coordinate, relative to that coordinate's spread; > 0 means
        every coordinate separates every pair of contexts.
    rank : int
        Numerical rank of the post-ReLU state matrix (one column per context).
    smallest_singular_value : float
        Its smallest singular value.
    condition_number : float
        Its 2-norm condition number.
    max_logit_error : float
        ``max |C ReLU(H + b) - Z|``: how exactly the readout reproduces the targets.
    """

    min_coordinate_gap: float
    rank: int
    smallest_singular_value: float
    condition_number: float
    max_logit_error: float


# Placeholder certificate of a model whose readout has not been solved yet.
_EMPTY = Certificate(math.nan, 0, math.nan, math.nan, math.nan)

# Where independence_bias puts a threshold between the second largest and the largest
# value, as a fraction of their gap. Lemma A.4 allows anything strictly between; low in
# the gap the diagonal of the triangle keeps most of the gap while the entries below it
# grow only by as much (lowering the ratios that compound in the inverse, see
# independence_bias), and a tenth of a gap still puts the unselected values far more
# than rounding below the threshold.
_THRESHOLD_POSITION = 0.1


def layered_nilpotent(m: int, order: int, rng: np.random.Generator) -> Array:
    """A random ``m x m`` matrix ``L`` with ``L^order = 0`` and ``L^(order-1) != 0``.

    Coordinates are split into ``order`` consecutive layers; only the blocks mapping layer
    ``k`` to layer ``k + 1`` are non-zero (Gaussian, variance ``1 / |layer k|``), so the
    zeros of every power are exact.
    """
    check_int("order", order, 1, m)
    sizes = np.full(order, m // order)
    sizes[: m % order] += 1
    edges = np.concatenate([[0], np.cumsum(sizes)])
    L = np.zeros((m, m))
    for k in range(order - 1):
        a, b, c = edges[k], edges[k + 1], edges[k + 2]
        L[b:c, a:b] = rng.standard_normal((c - b, b - a)) / math.sqrt(b - a)
    return L


def random_orthogonal(m: int, rng: np.random.Generator) -> Array:
    """A Haar-random orthogonal matrix (QR of a Gaussian matrix, signs fixed)."""
    q, r = np.linalg.qr(rng.standard_normal((m, m)))
    return q * np.sign(np.diag(r))


def min_coordinate_gap(V: Array) -> float:
    """Smallest gap between two columns' values within one row, relative to that row's spread.

    Lemma A.3's condition holds (every row separates every pair of columns) iff this is > 0.
    """
    if V.shape[1] < 2:
        return math.inf
    s = np.sort(V, axis=1)
    spread = s[:, -1] - s[:, 0]
    return float((np.diff(s, axis=1).min(axis=1) / np.where(spread > 0, spread, 1.0)).min())


def independence_bias(V: Array, carriers: Array | None = None) -> tuple[Array, Array]:
    """Lemma A.4 with pivoting: a scale and bias making ``ReLU(scale * V + bias)`` independent.

    Step ``k`` picks an unused row and a sign, and puts the threshold between the largest
    and second largest (signed) value among the columns not selected yet, a tenth of
    their gap above the second, so exactly one of them, the one selected at step ``k``,
    stays positive in that row (values in units of the row's spread). Ordering rows by step and columns by
    selection, the post-ReLU matrix ``T`` is lower triangular with positive diagonal.

    The pivot bounds the inverse, whose size sets how far rounding in the hidden state
    moves the readout's output. Row ``k`` of ``T^-1`` is
    ``(e_k - sum_{l<k} T_kl (T^-1)_l) / T_kk``, and ``T >= 0``, so its 1-norm is at most
    ``g_k = (1 + sum_{l<k} T_kl g_l) / T_kk``; each step takes the row and sign with the
    smallest ``g_k``. The widest gap alone (the largest diagonal) ignores the entries
    below the diagonal, the earlier columns' values above the threshold: their ratios to
    the diagonal compound along the triangle, to condition numbers near ``1e15`` and
    more for ``d = 1``, where the readout is wrong by more than ``eps`` in double precision.

    Parameters
    ----------
    V : ndarray, shape (r, N)
        Pre-activations: one row per memorising neuron, one column per input sequence.
        Each row must take pairwise distinct values (Lemma A.3).
    carriers : ndarray, shape (N - r, N), optional
        Post-ReLU values of further neurons, for when there are fewer memorising rows
        than columns (the RNN construction). The ``N - r`` columns never selected are
        zero in every memorising row, so the full matrix is block triangular and is
        invertible iff ``carriers`` restricted to them is; selections that would make
        that block singular are skipped.

    Returns
    -------
    scale : ndarray, shape (r,)
        Positive or negative row multipliers (``±1 / spread``).
    bias : ndarray, shape (r,)

    Raises
    ------
    ValueError
        If a row repeats a value, or no admissible selection exists.
    """
    r, N = V.shape
    k = N - r
    if k < 0 or (k > 0) != (carriers is not None) or (carriers is not None and carriers.shape != (k, N)):
        raise ValueError(f"need N - r carrier rows for {r} rows and {N} columns")
    if min_coordinate_gap(V) <= 0:
        raise ValueError("a hidden coordinate takes the same value on two inputs (Lemma A.3 fails)")
    spread = V.max(axis=1) - V.min(axis=1)
    unit = V / spread[:, None]
    signed = np.concatenate([unit, -unit])  # candidate i < r: row i, sign +; r + i: row i, sign -
    scale, bias = np.zeros(r), np.zeros(r)
    free = np.ones(r, dtype=bool)
    remaining = np.ones(N, dtype=bool)
    growth = np.zeros(N)  # g of the step that selected each column
    for _ in range(r):
        cands = np.flatnonzero(np.concatenate([free, free]))
        cols, done = np.flatnonzero(remaining), np.flatnonzero(~remaining)
        X = signed[np.ix_(cands, cols)]
        if len(cols) == 1:
            # Any threshold below the last value works; one spread below it, as if a
            # second value sat at the row's other end.
            top, second = X[:, 0], X[:, 0] - 1.0
            pick = np.zeros(len(X), dtype=int)
        else:
            part = np.partition(X, -2, axis=1)
            top, second = part[:, -1], part[:, -2]
            pick = X.argmax(axis=1)
        threshold = second + _THRESHOLD_POSITION * (top - second)
        below = np.maximum(signed[np.ix_(cands, done)] - threshold[:, None], 0.0)
        g = (1.0 + below @ growth[done]) / (top - threshold)
        for opt in np.argsort(g, kind="stable"):
            j = cols[pick[opt]]
            if k == 0 or _carrier_rank_kept(carriers, remaining, j):
                break
        else:
            raise ValueError("no selection keeps the carrier block invertible; redraw the weights")
        i = cands[opt] % r
        scale[i] = (1.0 if cands[opt] < r else -1.0) / spread[i]
        bias[i] = -threshold[opt]
        growth[j] = g[opt]
        free[i] = False
        remaining[j] = False
    return scale, bias


def _carrier_rank_kept(carriers: Array, remaining: NDArray[np.bool_], j: int) -> bool:
    """Whether selecting column ``j`` keeps the unselected columns' carrier block of full rank."""
    rest = remaining.copy()
    rest[j] = False
    return np.linalg.matrix_rank(carriers[:, rest]) == carriers.shape[0]


def _certify(H: Array, Z: Array, C: Array, gap: float) -> Certificate:
    sv = np.linalg.svd(H, compute_uv=False)
    return Certificate(
        min_coordinate_gap=gap,
        rank=int(np.linalg.matrix_rank(H)),
        smallest_singular_value=float(sv[-1]),
        condition_number=float(sv[0] / sv[-1]) if sv[-1] > 0 else math.inf,
        max_logit_error=float(np.abs(C @ H - Z).max()),
    )


@dataclass(frozen=True)
class SSMWeights:
    """A single-layer SSM ``h_t = A h_{t-1} + B x_t``, ``y_t = C ReLU(h_t + b)`` (Def. 3.6).

    ``A = P L P^{-1}`` and ``B = P B_z`` are stored factored; see the module docstring.
    """

    P: Array
    L: Array
    Bz: Array
    b: Array
    C: Array
    certificate: Certificate

    @classmethod
    def from_matrices(cls, A: Array, B: Array, b: Array, C: Array) -> SSMWeights:
        """An SSM given by its plain matrices (``P = I``), e.g. one found by training.

        It carries no certificate: nothing about it was constructed.
        """
        A = np.asarray(A, dtype=float)
        return cls(np.eye(A.shape[0]), A, np.asarray(B, dtype=float), np.asarray(b, dtype=float),
                   np.asarray(C, dtype=float), _EMPTY)

    @property
    def A(self) -> Array:
        """The state transition matrix ``P L P^{-1}``."""
        return self.P @ np.linalg.solve(self.P.T, self.L.T).T

    @property
    def B(self) -> Array:
        """The input matrix ``P B_z``."""
        return self.P @ self.Bz

    @property
    def hidden_size(self) -> int:
        return self.L.shape[0]

    def hidden(self, x: Array) -> Array:
        """Pre-activation states ``h_t`` for inputs ``x`` of shape ``(N, T, d)``: ``(N, T, m)``."""
        z = np.zeros((x.shape[0], self.hidden_size))
        out = np.empty((x.shape[0], x.shape[1], self.hidden_size))
        for t in range(x.shape[1]):
            z = z @ self.L.T + x[:, t] @ self.Bz.T
            out[:, t] = z @ self.P.T
        return out

    def outputs(self, x: Array) -> Array:
        """Outputs ``y_t = C ReLU(h_t + b)`` for inputs of shape ``(N, T, d)``."""
        return np.maximum(self.hidden(x) + self.b, 0.0) @ self.C.T


def memorising_ssm(x: Array, y: Array, order: int, seed: int) -> SSMWeights:
    """Proposition 4.5: an SSM with ``N`` hidden neurons that maps each input sequence to its target.

    Parameters
    ----------
    x : ndarray, shape (N, T, d)
        ``N`` distinct input sequences of ``T`` vectors.
    y : ndarray, shape (N, k)
        Targets: the output after the last vector of sequence ``j`` is ``y[j]``.
    order : int
        Nilpotency order of ``A`` (``A^order = 0``), ``1 <= order``; it is capped at
        ``N`` (a nilpotent ``N x N`` matrix has order at most ``N``).
    seed : int
        Seed of the generic random weights.

    Returns
    -------
    SSMWeights
        With ``outputs(x)[:, -1] == y`` up to rounding, as its certificate records.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    N, _, d = x.shape
    check_int("order", order, 1)
    rng = np.random.default_rng(seed)
    L = layered_nilpotent(N, min(order, N), rng)
    Q = random_orthogonal(N, rng)
    Bz = Q.T @ rng.standard_normal((N, d))
    raw = SSMWeights(Q, L, Bz, np.zeros(N), np.zeros((y.shape[1], N)), _EMPTY)
    V = raw.hidden(x)[:, -1].T  # (N coordinates, N sequences)
    gap = min_coordinate_gap(V)
    scale, bias = independence_bias(V)
    H = np.maximum(scale[:, None] * V + bias[:, None], 0.0)
    C = np.linalg.solve(H.T, y).T
    P = scale[:, None] * Q
    return SSMWeights(P, L, Bz, bias, C, _certify(H, y.T, C, gap))


def smoothed_logits(p: Array, eps: float) -> Array:
    """Definition 4.2: logits of ``(1 - eps/2) p + eps/(2|V|)``, centred.

    The mixture has every entry positive and lies within L1 distance ``eps`` of ``p``
    (so within total variation ``eps / 2``); logits are defined up to a constant, and
    centring keeps the readout small.
    """
    check_float("eps", eps, 0.0, 1.0, low_open=True, high_open=True)
    z = np.log((1.0 - eps / 2.0) * p + eps / (2.0 * p.shape[-1]))
    return z - z.mean(axis=-1, keepdims=True)


def _softmax(logits: Array) -> Array:
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class _WordModel:
    """Shared word-level plumbing of the constructed language models.

    Subclasses define the recurrence through ``_init_state``, ``_step`` and ``_readout``.
    """

    vocab: list[str]
    n: int
    E: Array
    _index: dict[str, int] | None = None

    def _init_state(self, batch: int) -> Array:
        raise NotImplementedError

    def _step(self, state: Array, x: Array) -> Array:
        raise NotImplementedError

    def _readout(self, state: Array) -> Array:
        raise NotImplementedError

    def _ids(self, words: Sequence[str]) -> NDArray[np.int64]:
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.vocab)}
        return np.array([self._index.get(w, len(self.vocab) - 1) for w in words], dtype=np.int64)

    def logits_ids(self, ids: NDArray[np.int64]) -> Array:
        """Logits after every word of each row of ``ids`` (shape ``(N, T)``): ``(N, T, |V|)``."""
        x = self.E[:, np.asarray(ids)].transpose(1, 2, 0)
        state = self._init_state(x.shape[0])
        out = np.empty((x.shape[0], x.shape[1], len(self.vocab)))
        for t in range(x.shape[1]):
            state = self._step(state, x[:, t])
            out[:, t] = self._readout(state)
        return out

    def predict_proba(self, prefix: Sequence[str]) -> Array:
        """Next-word distribution over ``vocab`` after ``prefix``."""
        if len(prefix) == 0:
            raise ValueError("prefix must hold at least one word")
        return _softmax(self.logits_ids(self._ids(prefix)[None])[0, -1])

    def _prefix_states(self, prefixes: Sequence[Sequence[str]]) -> Array:
        """Recurrent state after each prefix, each distinct prefix computed once.

        Runs level by level: the state after ``w_1..w_k`` is one step from the state
        after ``w_1..w_{k-1}``, shorter prefixes included.
        """
        wanted = [tuple(p) for p in prefixes]
        if any(len(p) == 0 for p in wanted):
            raise ValueError("every prefix must hold at least one word")
        levels: list[dict[tuple[str, ...], int]] = [{(): 0}]
        for p in wanted:
            for k in range(1, len(p) + 1):
                while len(levels) <= k:
                    levels.append({})
                levels[k].setdefault(p[:k], len(levels[k]))
        states = [self._init_state(1)]
        for k in range(1, len(levels)):
            keys = list(levels[k])
            parent = np.array([levels[k - 1][p[:-1]] for p in keys])
            x = self.E[:, self._ids([p[-1] for p in keys])].T
            states.append(self._step(states[k - 1][parent], x))
        return np.stack([states[len(p)][levels[len(p)][p]] for p in wanted])

    def predict_proba_prefixes(self, prefixes: Sequence[Sequence[str]]) -> Array:
        """Next-word distributions after each of ``prefixes``, shape ``(len(prefixes), |V|)``."""
        return _softmax(self._readout(self._prefix_states(prefixes)))

    def states_after(self, prefixes: Sequence[Sequence[str]]) -> Array:
        """The hidden state ``h_t`` after each of ``prefixes``, shape ``(len(prefixes), m)``."""
        return self._prefix_states(prefixes)


class NgramSSM(_WordModel):
    """A state space language model (Definition 3.8) constructed from an n-gram language.

    Attributes
    ----------
    vocab : list of str
        Output order (the language's vocabulary, unknown token last).
    n : int
        The n of the language.
    E : ndarray, shape (d, |V|)
        Embedding matrix.
    weights : SSMWeights
        The SSM; ``A``, ``B``, ``b``, ``C`` and ``hidden_size`` are forwarded from it.
    contexts : list of tuple of str
        The rule contexts, column order of the memorised states.
    eps : float
        The target equivalence level.
    """

    def __init__(self, vocab: list[str], n: int, E: Array, weights: SSMWeights,
                 contexts: list[tuple[str, ...]], eps: float) -> None:
        self.vocab, self.n, self.E, self.weights = vocab, n, E, weights
        self.contexts, self.eps = contexts, eps

    A = property(lambda self: self.weights.A, doc="State transition matrix, nilpotent of order n - 1.")
    B = property(lambda self: self.weights.B, doc="Input matrix.")
    b = property(lambda self: self.weights.b, doc="Bias inside the ReLU readout.")
    C = property(lambda self: self.weights.C, doc="Output matrix.")
    hidden_size = property(lambda self: self.weights.hidden_size, doc="Number of hidden neurons, ``|P|``.")
    certificate = property(lambda self: self.weights.certificate, doc="The construction's Certificate.")

    def states_after(self, prefixes: Sequence[Sequence[str]]) -> Array:
        """The hidden state ``h_t = P z_t`` after each of ``prefixes``, shape ``(len(prefixes), m)``."""
        return self._prefix_states(prefixes) @ self.weights.P.T

    # The state carried along is z = P^{-1} h, where A's nilpotency is exact.
    def _init_state(self, batch: int) -> Array:
        return np.zeros((batch, self.hidden_size))

    def _step(self, state: Array, x: Array) -> Array:
        return state @ self.weights.L.T + x @ self.weights.Bz.T

    def _readout(self, state: Array) -> Array:
        return np.maximum(state @ self.weights.P.T + self.weights.b, 0.0) @ self.weights.C.T


def _check_language(language: NgramLanguage) -> None:
    if not language.is_consistent:
        bad = language.inconsistencies(limit=1)
        e = bad[0]
        raise ValueError(
            f"the language is not generated by its {language.n}-gram rules: after "
            f"{' '.join(e.prefix)!r} the language allows {list(e.in_language)} but the rule of "
            f"{' '.join(e.prefix[len(e.prefix) - language.n + 1:])!r} allows {list(e.by_rules)}")


def construct_ssm(language: NgramLanguage, eps: float, embed_dim: int, seed: int) -> NgramSSM:
    """Theorem 4.1: an SSM language model with ``|P|`` hidden neurons, eps-equivalent to ``f_N``.

    Parameters
    ----------
    language : NgramLanguage
        A consistent n-gram language (see :meth:`~seqmi.data.ngram.NgramLanguage.inconsistencies`).
    eps : float
        Target equivalence level, ``0 < eps < 1``; the smoothed targets are within total
        variation ``eps / 2`` of ``f_N``.
    embed_dim : int
        Embedding dimension ``d >= 1``.
    seed : int
        Seed of the generic random weights (embedding, ``A``, ``B``).

    Returns
    -------
    NgramSSM

    Raises
    ------
    ValueError
        If the language's rules do not generate it, or an argument is out of range.
    """
    check_float("eps", eps, 0.0, 1.0, low_open=True, high_open=True)
    check_int("embed_dim", embed_dim, 1)
    _check_language(language)
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((embed_dim, len(language.vocab)))
    contexts = language.contexts
    ids = np.stack([language.encode(c) for c in contexts])
    x = E[:, ids].transpose(1, 2, 0)
    y = smoothed_logits(language.context_distributions(), eps)
    weights = memorising_ssm(x, y, language.n - 1, int(rng.integers(2**32)))
    return NgramSSM(language.vocab, language.n, E, weights, contexts, eps)


class NgramRNN(_WordModel):
    """A one-layer RNN language model (Definition A.5) constructed from an n-gram language.

    ``h_t = ReLU(W h_{t-1} + U x_t + b_h)``, logits ``C h_t``. The hidden matrix ``W`` is
    block nilpotent of order ``n - 1`` (Definition A.6) in the standard basis: neurons
    ``0 .. n-3`` are *carriers* (carrier ``k`` feeds carrier ``k + 1``, the last feeds every
    memorising neuron), so ``W^(n-1) = 0`` with exact zeros and, by Lemma A.7, ``h_t``
    depends on the last ``n - 1`` words only. Carriers stay in ReLU's linear regime
    (their bias exceeds what any input can subtract), so carrier ``k`` is a generic linear
    code of the last ``k + 1`` words. The remaining ``|P| - (n - 2)`` neurons memorise via
    :func:`independence_bias`; the ``n - 2`` contexts it leaves unselected are told apart
    by the carriers. Hidden size ``|P|``, as the paper expects (Section 4.5).

    Attributes
    ----------
    W, U, b_h, C : ndarray
        Hidden, input, bias and output weights.
    certificate : Certificate
    """

    def __init__(self, vocab: list[str], n: int, E: Array, W: Array, U: Array, b_h: Array, C: Array,
                 contexts: list[tuple[str, ...]], eps: float, certificate: Certificate) -> None:
        self.vocab, self.n, self.E = vocab, n, E
        self.W, self.U, self.b_h, self.C = W, U, b_h, C
        self.contexts, self.eps, self.certificate = contexts, eps, certificate

    @property
    def hidden_size(self) -> int:
        return self.W.shape[0]

    def hidden_from_inputs(self, x: Array) -> Array:
        """States ``h_t`` for embedded inputs of shape ``(N, T, d)``: ``(N, T, m)``."""
        h = self._init_state(x.shape[0])
        out = np.empty((x.shape[0], x.shape[1], self.hidden_size))
        for t in range(x.shape[1]):
            h = self._step(h, x[:, t])
            out[:, t] = h
        return out

    def _init_state(self, batch: int) -> Array:
        return np.zeros((batch, self.hidden_size))

    def _step(self, state: Array, x: Array) -> Array:
        return np.maximum(state @ self.W.T + x @ self.U.T + self.b_h, 0.0)

    def _readout(self, state: Array) -> Array:
        return state @ self.C.T


def construct_rnn(language: NgramLanguage, eps: float, embed_dim: int, seed: int,
                  max_tries: int = 20) -> NgramRNN:
    """The RNN analogue of :func:`construct_ssm` (Appendix A.4, Lemma A.7), ``|P|`` neurons.

    Parameters
    ----------
    language, eps, embed_dim, seed
        As for :func:`construct_ssm`.
    max_tries : int
        Generic weights fail only on a null set, but the last carrier block can come out
        singular for ``n >= 5``; the weights are redrawn up to this many times.

    Returns
    -------
    NgramRNN
    """
    check_float("eps", eps, 0.0, 1.0, low_open=True, high_open=True)
    check_int("embed_dim", embed_dim, 1)
    check_int("max_tries", max_tries, 1)
    _check_language(language)
    n, m = language.n, len(language.rules)
    n_car = n - 2
    if m <= n_car:
        raise ValueError(f"need more rule contexts than n - 2 = {n_car}, got {m}")
    rng = np.random.default_rng(seed)
    contexts = language.contexts
    ids = np.stack([language.encode(c) for c in contexts])
    y = smoothed_logits(language.context_distributions(), eps)
    for _ in range(max_tries):
        E = rng.standard_normal((embed_dim, len(language.vocab)))
        W = np.zeros((m, m))
        U = rng.standard_normal((m, embed_dim))
        b_h = np.zeros(m)
        # Carrier k sees carrier k-1 of the previous step, which ranges over [lo, hi]
        # for any input (0 included: the initial state); its bias lifts every possible
        # pre-activation to >= 1, so its ReLU never clips.
        lo = hi = 0.0
        proj_all = U @ E  # (m, |V|): what each neuron receives from each word
        for k in range(n_car):
            if k > 0:
                W[k, k - 1] = rng.standard_normal()
            w = W[k, k - 1] if k > 0 else 0.0
            low = min(w * lo, w * hi) + proj_all[k].min()
            high = max(w * lo, w * hi) + proj_all[k].max()
            b_h[k] = 1.0 - low
            lo, hi = 0.0, high + b_h[k]
        if n_car > 0:
            W[n_car:, n_car - 1] = rng.standard_normal(m - n_car)
        rnn = NgramRNN(language.vocab, n, E, W, U, b_h, np.zeros((len(language.vocab), m)),
                       contexts, eps, _EMPTY)
        # Pre-activations of the memorising neurons on the contexts (ReLU off for them).
        x = E[:, ids].transpose(1, 2, 0)
        carriers_prev = rnn.hidden_from_inputs(x[:, :-1])[:, -1, :n_car] if n_car else np.zeros((m, 0))
        V = (carriers_prev @ W[n_car:, :n_car].T + x[:, -1] @ U[n_car:].T).T
        gap = min_coordinate_gap(V)
        if gap <= 0:
            continue
        car = rnn.hidden_from_inputs(x)[:, -1, :n_car].T if n_car else None
        try:
            scale, bias = independence_bias(V, car)
        except ValueError:
            continue
        # The row multipliers of independence_bias (sign and scale) become the
        # memorising neurons' incoming weights, as the rescaling P does for the SSM.
        U[n_car:] *= scale[:, None]
        W[n_car:] *= scale[:, None]
        b_h[n_car:] = bias
        rnn = NgramRNN(language.vocab, n, E, W, U, b_h, rnn.C, contexts, eps, _EMPTY)
        H = rnn.hidden_from_inputs(x)[:, -1].T  # (m neurons, m contexts)
        C = np.linalg.solve(H.T, y).T
        return NgramRNN(language.vocab, n, E, W, U, b_h, C, contexts, eps, _certify(H, y.T, C, gap))
    raise ValueError(f"no admissible generic weights in {max_tries} draws")


def nilpotency_index(A: Array, rtol: float = 1e-10) -> int | None:
    """Smallest ``k`` with ``||A^k|| <= rtol ||A||^k`` (Frobenius), or ``None`` if ``k > m``.

    For a matrix built nilpotent this is its order, with rounding below ``rtol``. Do not
    use it on a trained matrix: a strongly contracting one can pass the relative test.
    """
    A = np.asarray(A, dtype=float)
    norm = np.linalg.norm(A)
    if norm == 0:
        return 1
    power = np.eye(A.shape[0])
    for k in range(1, A.shape[0] + 1):
        power = power @ A
        if np.linalg.norm(power) <= rtol * norm**k:
            return k
    return None


def context_window(A: Array, tol: float | None = None) -> float:
    """The context window of an SSM with transition matrix ``A`` (Proposition 4.6).

    Parameters
    ----------
    A : ndarray, shape (m, m)
    tol : float, optional
        ``None``: the smallest ``k`` with ``A^k = 0`` (see :func:`nilpotency_index`);
        ``inf`` if ``A`` is not nilpotent. A number: the effective window of a
        non-nilpotent ``A``, the smallest ``k`` with ``rho(A)^k <= tol`` (``rho`` the
        spectral radius): inputs older than ``k`` steps reach the state damped by at least
        ``tol`` asymptotically. ``inf`` if ``rho >= 1``.

    Returns
    -------
    float
        An integer-valued window, or ``inf``.
    """
    if tol is None:
        k = nilpotency_index(A)
        return math.inf if k is None else float(k)
    check_float("tol", tol, 0.0, 1.0, low_open=True, high_open=True)
    rho = spectral_radius(A)
    if rho >= 1.0:
        return math.inf
    if rho == 0.0:
        return float(nilpotency_index(A) or A.shape[0])
    return float(max(1, math.ceil(math.log(tol) / math.log(rho))))


def spectral_radius(A: Array) -> float:
    """Largest eigenvalue modulus of ``A``."""
    return float(np.abs(np.linalg.eigvals(np.asarray(A, dtype=float))).max())


def alternating_task(n_points: int, length: int, input_dim: int, seed: int) -> tuple[Array, Array]:
    """Proposition A.8's hard set: ``x_j = (j u, ..., j u)``, ``y_j = (-1)^j``.

    Inputs lie on a line, so any single-layer SSM's output along them is a piecewise
    linear function of ``j`` with at most ``m + 1`` pieces for ``m`` hidden neurons.

    Returns
    -------
    x : ndarray, shape (n_points, length, input_dim)
        ``u`` is a random unit vector; ``j`` runs over ``1 .. n_points`` scaled to ``(0, 1]``.
    y : ndarray, shape (n_points, 1)
    """
    check_int("n_points", n_points, 2)
    u = np.random.default_rng(seed).standard_normal(input_dim)
    u /= np.linalg.norm(u)
    j = np.arange(1, n_points + 1)
    x = np.broadcast_to((j / n_points)[:, None, None] * u, (n_points, length, input_dim)).copy()
    return x, ((-1.0) ** j)[:, None]


def random_line_ssm(x: Array, hidden_size: int, rng: np.random.Generator) -> SSMWeights:
    """A random single-output SSM whose ReLU bends fall inside the range of a line of inputs.

    ``A`` is Gaussian with variance ``1 / m``, ``B`` and ``C`` standard Gaussian. Along
    inputs ``x_j = s_j (u, ..., u)`` the state is ``s_j w``, with ``w`` the state after the
    last input (``s_N = 1``); neuron ``i`` bends at ``s = -b_i / w_i``, and ``b`` puts these
    bends uniformly in ``[s_1, s_N]``, where they shape the output on the data.

    Parameters
    ----------
    x : ndarray, shape (N, T, d)
        Inputs of :func:`alternating_task` (``s_j = j / N``).
    hidden_size : int
        ``m``, the number of hidden neurons.
    rng : numpy.random.Generator

    Returns
    -------
    SSMWeights
        With ``C`` of shape ``(1, m)``.
    """
    m = check_int("hidden_size", hidden_size, 1)
    N, _, d = x.shape
    A = rng.standard_normal((m, m)) / math.sqrt(m)
    B = rng.standard_normal((m, d))
    w = SSMWeights.from_matrices(A, B, np.zeros(m), np.zeros((1, m))).hidden(x[-1:])[0, -1]
    b = -w * rng.uniform(1 / N, 1.0, m)
    return SSMWeights.from_matrices(A, B, b, rng.standard_normal((1, m)))


def pieces_and_sign_changes(x: Array, hidden_size: int, n_models: int, seed: int) -> tuple[Array, Array]:
    """Piece counting (Proposition A.8) on random single-output SSMs along a line of inputs.

    For inputs ``x_j = s_j (u, ..., u)`` the state is ``h = s w`` with ``w = sum_k A^k B u``,
    so the output ``sum_i c_i ReLU(s w_i + b_i)`` is piecewise linear in ``s`` with a bend
    at ``s = -b_i / w_i`` for each neuron: at most ``hidden_size + 1`` pieces, and each
    piece changes sign at most once. The models are those of :func:`random_line_ssm`.

    Parameters
    ----------
    x : ndarray, shape (N, T, d)
        Inputs of :func:`alternating_task` (``s_j = j / N``).
    hidden_size, n_models, seed : int

    Returns
    -------
    pieces : ndarray of int, shape (n_models,)
        Linear pieces of each model's output over the data range ``[s_1, s_N]``.
    sign_changes : ndarray of int, shape (n_models,)
        Sign changes of its outputs along ``x_1, ..., x_N``.
    """
    check_int("hidden_size", hidden_size, 1)
    rng = np.random.default_rng(seed)
    N = x.shape[0]
    s = np.arange(1, N + 1) / N
    pieces = np.zeros(n_models, dtype=int)
    changes = np.zeros(n_models, dtype=int)
    for k in range(n_models):
        model = random_line_ssm(x, hidden_size, rng)
        w = model.hidden(x[-1:])[0, -1]
        bends = np.unique(-model.b / w)
        pieces[k] = 1 + int(((bends > s[0]) & (bends < s[-1])).sum())
        signs = np.sign(model.outputs(x)[:, -1, 0])
        changes[k] = int((signs[1:] * signs[:-1] < 0).sum())
    return pieces, changes
