"""Trainable SSM and RNN language models for n-gram languages (Nandakumar et al., Section 5).

Both read a sentence word by word and predict the next word after every word; after
the last word of a sentence the target is the unknown token, which therefore doubles as
the end-of-sentence signal (as in :mod:`seqmi.data.ngram`, where ``f_N`` of a
sentence-final context is the unknown token).

- :class:`SSMLanguageModel`: embedding, ``h_t = A h_{t-1} + B x_t``,
  logits ``C ReLU(h_t + b)`` (Definitions 3.6-3.8, the model of the construction).
- :class:`RNNLanguageModel`: embedding, ``h_t = ReLU(W h_{t-1} + U x_t + b_h)``,
  logits ``C h_t + b_y`` (Definition A.5).

Shape comments in the code use these letters: ``B`` batch size (sentences, ``N`` in the
docstrings), ``T`` sequence length (words), ``E`` embedding size (``embed_dim``, the width of
``x_t``), ``C`` state width (``hidden_size``, the width of ``h_t``), ``V`` vocabulary
(``vocab_size``, the unknown token included).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.data.ngram import NgramLanguage
from seqmi.device import DeviceLike, resolve_device
from seqmi.validate import check_int

PAD_TARGET = -100  # ignored by the cross-entropy loss


class SSMLanguageModel(nn.Module):
    """Embedding + single-layer linear SSM with ReLU readout + softmax (Definition 3.8).

    Parameters
    ----------
    vocab_size, embed_dim, hidden_size : int
    """

    def __init__(self, vocab_size: int, embed_dim: int, hidden_size: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.A = nn.Linear(hidden_size, hidden_size, bias=False)
        self.B = nn.Linear(embed_dim, hidden_size, bias=False)
        self.b = nn.Parameter(torch.zeros(hidden_size))
        self.C = nn.Linear(hidden_size, vocab_size, bias=False)

    def states(self, ids: torch.Tensor) -> torch.Tensor:
        """States ``h_t`` for word ids of shape ``(N, T)``: ``(N, T, hidden)``."""
        u = self.B(self.embed(ids))  # ids (B, T) -> x (B, T, E) -> u (B, T, C), the input term of h_t
        h = torch.zeros(ids.shape[0], self.A.in_features, device=ids.device)  # (B, C)
        out = []
        for t in range(ids.shape[1]):
            h = self.A(h) + u[:, t]  # (B, C)
            out.append(h)
        return torch.stack(out, dim=1)  # (B, T, C)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Logits after every word, ``(N, T, vocab)``."""
        return self.C(torch.relu(self.states(ids) + self.b))  # (B, T, C) -> (B, T, V)

    def transition(self) -> NDArray[np.float64]:
        """The state transition matrix ``A``."""
        return self.A.weight.detach().cpu().double().numpy()


class RNNLanguageModel(nn.Module):
    """Embedding + one-layer ReLU RNN + linear output + softmax (Definition A.5).

    Parameters
    ----------
    vocab_size, embed_dim, hidden_size : int
    """

    def __init__(self, vocab_size: int, embed_dim: int, hidden_size: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.rnn = nn.RNN(embed_dim, hidden_size, nonlinearity="relu", batch_first=True)
        self.C = nn.Linear(hidden_size, vocab_size)

    def states(self, ids: torch.Tensor) -> torch.Tensor:
        """States ``h_t`` for word ids of shape ``(N, T)``: ``(N, T, hidden)``."""
        return self.rnn(self.embed(ids))[0]  # ids (B, T) -> x (B, T, E) -> h (B, T, C)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Logits after every word, ``(N, T, vocab)``."""
        return self.C(self.states(ids))  # (B, T, C) -> (B, T, V)

    def transition(self) -> NDArray[np.float64]:
        """The hidden-to-hidden matrix ``W``."""
        return self.rnn.weight_hh_l0.detach().cpu().double().numpy()


MODELS = {"ssm": SSMLanguageModel, "rnn": RNNLanguageModel}


def batch_tensors(language: NgramLanguage, sentences: Sequence[Sequence[str]],
                  device: DeviceLike = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Padded inputs and next-word targets (unknown token after the last word).

    Returns
    -------
    ids : LongTensor, shape (N, T_max)
        Word ids, padded with the unknown token's id.
    targets : LongTensor, shape (N, T_max)
        The id of the next word; ``PAD_TARGET`` on padding.
    """
    T = max(len(s) for s in sentences)
    ids = np.full((len(sentences), T), language.unk_index, dtype=np.int64)
    targets = np.full((len(sentences), T), PAD_TARGET, dtype=np.int64)
    for i, s in enumerate(sentences):
        e = language.encode(s)
        ids[i, : len(e)] = e
        targets[i, : len(e) - 1] = e[1:]
        targets[i, len(e) - 1] = language.unk_index
    device = resolve_device(device)
    return torch.as_tensor(ids, device=device), torch.as_tensor(targets, device=device)


@torch.no_grad()
def complete(model: nn.Module, language: NgramLanguage, prefixes: Sequence[Sequence[str]],
             max_length: int, device: DeviceLike = "cpu") -> list[tuple[str, ...]]:
    """Greedy completions: append the most likely word until the unknown token or ``max_length``.

    Parameters
    ----------
    model : nn.Module
        A model of this module.
    language : NgramLanguage
        Supplies the vocabulary.
    prefixes : sequence of sentences
        Prefixes of one common length.
    max_length : int
        Completions stop at this many words.
    device : str or torch.device

    Returns
    -------
    list of tuple of str
        The completed sentences (without the unknown token).
    """
    lengths = {len(p) for p in prefixes}
    if len(lengths) != 1:
        raise ValueError(f"prefixes must share one length, got {sorted(lengths)}")
    ids = torch.as_tensor(np.stack([language.encode(p) for p in prefixes]), device=resolve_device(device))
    done = torch.zeros(len(prefixes), dtype=torch.bool, device=ids.device)
    words = [list(p) for p in prefixes]
    model.eval()
    while ids.shape[1] < max_length and not bool(done.all()):
        nxt = model(ids)[:, -1].argmax(dim=-1)
        done |= nxt == language.unk_index
        ids = torch.cat([ids, nxt[:, None]], dim=1)
        for i in torch.nonzero(~done).flatten().tolist():
            words[i].append(language.vocab[int(nxt[i])])
    return [tuple(w) for w in words]


def completion_accuracy(model: nn.Module, language: NgramLanguage, test: Sequence[Sequence[str]],
                        prefix_length: int, device: DeviceLike = "cpu") -> float:
    """Section 5.1: the fraction of ``test`` sentences whose truncated prefix the model completes
    into a sentence of the language (greedy decoding).

    Sentences sharing a prefix share its completion, so each distinct prefix is decoded once.
    """
    check_int("prefix_length", prefix_length, 1)
    prefixes = [tuple(s[:prefix_length]) for s in test]
    distinct = list(dict.fromkeys(prefixes))
    max_length = max(len(s) for s in language.sentences)
    ok = {p: language.contains(c) for p, c in zip(distinct, complete(model, language, distinct, max_length, device))}
    return float(np.mean([ok[p] for p in prefixes]))


@torch.no_grad()
def hidden_states(model: nn.Module, language: NgramLanguage, prefixes: Sequence[Sequence[str]],
                  device: DeviceLike = "cpu") -> NDArray[np.float64]:
    """The state ``h_t`` after the last word of each prefix, ``(len(prefixes), hidden)``."""
    by_length: dict[int, list[int]] = {}
    for i, p in enumerate(prefixes):
        by_length.setdefault(len(p), []).append(i)
    rows: dict[int, NDArray[np.float64]] = {}
    for idx in by_length.values():
        ids = torch.as_tensor(np.stack([language.encode(prefixes[i]) for i in idx]), device=resolve_device(device))
        h = model.states(ids)[:, -1].double().cpu().numpy()
        rows.update(zip(idx, h))
    return np.stack([rows[i] for i in range(len(prefixes))])


@torch.no_grad()
def influence_by_lag(model: nn.Module, language: NgramLanguage, prefixes: Sequence[Sequence[str]],
                     max_lag: int, seed: int, device: DeviceLike = "cpu") -> NDArray[np.float64]:
    """How much the word ``k`` steps back moves the prediction, for ``k = 0 .. max_lag``.

    For each prefix (all of one length ``> max_lag``) the word ``k`` positions before the
    last is replaced by a random other word, and the total variation distance between
    the two next-word distributions is averaged over prefixes. A model with context
    window ``w`` has zero influence for ``k >= w``.

    Returns
    -------
    ndarray, shape (max_lag + 1,)
    """
    lengths = {len(p) for p in prefixes}
    if len(lengths) != 1 or lengths.pop() <= max_lag:
        raise ValueError("prefixes must share one length greater than max_lag")
    rng = np.random.default_rng(seed)
    dev = resolve_device(device)
    ids = np.stack([language.encode(p) for p in prefixes])
    base = torch.softmax(model(torch.as_tensor(ids, device=dev))[:, -1], dim=-1)
    n_words = len(language.vocab) - 1  # the unknown token is never an input word
    out = np.zeros(max_lag + 1)
    for k in range(max_lag + 1):
        other = ids.copy()
        col = ids.shape[1] - 1 - k
        other[:, col] = (ids[:, col] + rng.integers(1, n_words, size=len(ids))) % n_words
        pert = torch.softmax(model(torch.as_tensor(other, device=dev))[:, -1], dim=-1)
        out[k] = float(0.5 * (pert - base).abs().sum(dim=-1).mean())
    return out


@torch.no_grad()
def state_jacobian_norms(model: nn.Module, language: NgramLanguage, prefixes: Sequence[Sequence[str]],
                         max_lag: int, device: DeviceLike = "cpu") -> NDArray[np.float64]:
    """Operator norms ``||d h_T / d h_(T-k)||_2`` along real prefixes, ``k = 0 .. max_lag``.

    Section 5.2 bounds the effective context window by the Lipschitz norm of the state map.
    For the SSM the Jacobian is ``A^k`` whatever the words; for the ReLU RNN it is
    ``D_T W D_(T-1) W ... D_(T-k+1) W`` with ``D_t = diag(h_t > 0)``, so it depends on the
    prefix: the local Lipschitz constant of the map from ``h_(T-k)`` to ``h_T`` along it.

    Parameters
    ----------
    model : SSMLanguageModel or RNNLanguageModel
    language : NgramLanguage
    prefixes : sequence of sentences
        All of one length greater than ``max_lag``.
    max_lag : int
    device : str or torch.device

    Returns
    -------
    ndarray, shape (len(prefixes), max_lag + 1)
        Row ``i``: the norms along prefix ``i`` (1 at ``k = 0``).
    """
    check_int("max_lag", max_lag, 0)
    lengths = {len(p) for p in prefixes}
    if len(lengths) != 1 or lengths.pop() <= max_lag:
        raise ValueError("prefixes must share one length greater than max_lag")
    dev = resolve_device(device)
    ids = torch.as_tensor(np.stack([language.encode(p) for p in prefixes]), device=dev)
    W = torch.as_tensor(model.transition(), device=dev)
    n = W.shape[0]
    if isinstance(model, RNNLanguageModel):
        active = (model.states(ids) > 0).double()  # (N, T, n): the ReLU's derivative at each step
    else:
        active = torch.ones(ids.shape[0], ids.shape[1], n, dtype=torch.float64, device=dev)
    jac = torch.eye(n, dtype=torch.float64, device=dev).expand(ids.shape[0], n, n)
    out = [torch.ones(ids.shape[0], dtype=torch.float64, device=dev)]
    for k in range(1, max_lag + 1):
        jac = jac @ (active[:, -k, :, None] * W)  # one more step back: d h_(T-k+1) / d h_(T-k)
        out.append(torch.linalg.matrix_norm(jac, ord=2))
    return torch.stack(out, 1).cpu().numpy()


def explained_by_groups(states: NDArray[np.float64], labels: Sequence[object]) -> float:
    """Fraction of the states' total variance explained by the group means (1 - within/total).

    With labels the last n - 1 words, it is 1 exactly when the state depends only on them.
    """
    states = np.asarray(states, dtype=float)
    total = ((states - states.mean(axis=0)) ** 2).sum()
    within = 0.0
    groups: dict[object, list[int]] = {}
    for i, g in enumerate(labels):
        groups.setdefault(g, []).append(i)
    for idx in groups.values():
        block = states[idx]
        within += ((block - block.mean(axis=0)) ** 2).sum()
    return float(1.0 - within / total) if total > 0 else 1.0


def shuffled_label_null(states: NDArray[np.float64], labels: Sequence[object], permutations: int = 100,
                        seed: int = 0) -> NDArray[np.float64]:
    """:func:`explained_by_groups` with the labels shuffled across the states, once per permutation.

    The permutation null of "the states are grouped by their labels": a shuffle keeps
    every group's size and breaks any link between a state and its label. Its mean is
    exactly ``(K - 1) / (N - 1)`` for ``K`` groups of ``N`` states, whatever the states
    (the share of variance that ``K - 1`` free group means take by chance).

    Parameters
    ----------
    states : ndarray, shape (N, C)
        One state per row, ``N >= 2``.
    labels : sequence of hashable, length N
        The group of each state (for Fig. 4: its last ``n - 1`` words).
    permutations : int
        Shuffles drawn, at least 1.
    seed : int
        Seeds the shuffles.

    Returns
    -------
    ndarray, shape (permutations,)
        The explained fraction under each shuffle (all 1 when the states do not vary, as
        :func:`explained_by_groups` gives).

    Raises
    ------
    ValueError
        If ``states`` is not a 2-d array of at least two rows, or ``labels`` has another length.

    Examples
    --------
    >>> x = np.arange(12.0).reshape(6, 2)
    >>> round(float(shuffled_label_null(x, [0, 0, 1, 1, 2, 2], 4000).mean()), 1)  # (3 - 1) / (6 - 1)
    0.4
    """
    from scipy import sparse

    x = np.asarray(states, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"states must be a 2-d array of at least two rows, got shape {x.shape}")
    n = x.shape[0]
    if len(labels) != n:
        raise ValueError(f"labels must have one entry per state ({n}), got {len(labels)}")
    check_int("permutations", permutations, 1)
    x = x - x.mean(axis=0)
    total = float((x**2).sum())
    if total == 0:
        return np.ones(permutations)
    index: dict[object, int] = {}
    codes = np.array([index.setdefault(g, len(index)) for g in labels])
    k, sizes = len(index), np.bincount(codes)
    shuffled = np.random.default_rng(seed).permuted(np.broadcast_to(codes, (permutations, n)), axis=1)  # (P, N)
    # column i of the one-hot holds state i's group under each shuffle p, at row p * K + group:
    # one sparse product sums the states of every group of every shuffle, (P * K, N) @ (N, C)
    rows = (shuffled + k * np.arange(permutations)[:, None]).T.ravel()
    onehot = sparse.csc_matrix((np.ones(rows.size), rows, np.arange(0, rows.size + 1, permutations)),
                               shape=(permutations * k, n))
    sums = (onehot @ x).reshape(permutations, k, -1)  # (P, K, C)
    # between-group sum of squares of centred states: sum over groups of |group sum|^2 / size
    return ((sums**2).sum(axis=2) / sizes).sum(axis=1) / total


def pca_2d(states: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Project centred ``states`` on their two leading principal axes.

    Returns
    -------
    coords : ndarray, shape (N, 2)
    explained : ndarray, shape (2,)
        Fraction of the total variance along each axis.
    """
    x = np.asarray(states, dtype=float) - np.mean(states, axis=0)
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    return x @ vt[:2].T, s[:2] ** 2 / (s**2).sum()
