"""The text sweeps of the KJV (Secs. 4.2.2, 5.2): settings, corpora, character and word models, their points."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np
from torch import nn

from seqmi.data.text import UNK, CharVocab, Splits, WordVocab, join, kjv_documents, split_contiguous
from seqmi.device import DeviceLike, check_device
from seqmi.experiments.ch03_rnn_transformer_mi._families import Model, SeedFamily, _check_family
from seqmi.experiments.ch03_rnn_transformer_mi._seeds import run_family
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.models.wordchar import CharLevelSampler, add_lstm_dropout
from seqmi.rng import child_seed
from seqmi.sweep import current_budget, unkeyed
from seqmi.train import Sequences, Stream, TrainConfig
from seqmi.validate import check_float, check_int, check_type

CHAR_KINDS = ("lstm", "transformer")
WORD_KINDS = ("word_lstm", "word_transformer")
TEXT_HEADS = 8  # attention heads of the text Transformers (App. E.2.2)
TEXT_THRESHOLD = 2e-3  # fits of text curves use I(tau) above this (App. E.1.2)
MID_START = 10  # the text's intermediate range starts here: tau >= 10 characters (sentence level)
HEAD_CHARS = 600  # characters of a text model's first sample kept in its record (App. F)


def xi_series(points: Mapping[Model, Mapping[str, Any]], kind: str, widths: Mapping[str, Sequence[int]],
              depth_sweeps: Mapping[str, tuple[int, Sequence[int]]]) -> tuple[list, list]:
    """The character- and word-level series of ``kind`` for :func:`seqmi.plots.xi_panel` (Figs. 8, 10).

    Parameters
    ----------
    points : mapping
        ``{(kind, width, depth): record}`` of the text sweeps (a missing model reads ``None``).
    kind : str
        ``"lstm"`` or ``"transformer"``: its character-level kind and ``"word_" + kind``.
    widths : mapping
        ``{kind: widths}`` of the width sweeps (depth 1).
    depth_sweeps : mapping
        ``{kind: (width, depths)}`` of the depth sweeps.

    Returns
    -------
    (by_width, by_depth)
        Each a list of ``(label, xs, records)``, character level first.
    """
    levels = {kind: "character", f"word_{kind}": "word"}
    by_width = [(level, widths[k], [points.get((k, w, 1)) for w in widths[k]]) for k, level in levels.items()]
    by_depth = [(f"{level} (width {depth_sweeps[k][0]})", depth_sweeps[k][1],
                 [points.get((k, depth_sweeps[k][0], d)) for d in depth_sweeps[k][1]])
                for k, level in levels.items()]
    return by_width, by_depth


@dataclass(frozen=True)
class TextSettings:
    """What the character and word sweeps share: the training text and the measurement.

    Attributes
    ----------
    train_chars : int
        Characters of the training split used for training (0: all).
    generate : int
        Characters generated per model, in independent rows of ``row`` characters.
    sample_sets : int
        Independent sets of ``generate`` characters per model, the sampling replicates of
        every text comparison (:func:`set_gaps`).
    row : int
    max_lag : int
        Largest ``tau`` of the character-level MI.
    patience : int
        Early-stopping patience in epochs.
    seed : int
        The chapter's seed.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys (each model's record says where it ran).
    """

    train_chars: int
    generate: int
    sample_sets: int
    row: int
    max_lag: int
    patience: int
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("train_chars", self.train_chars, 0)
        check_int("row", self.row, 32)
        check_int("max_lag", self.max_lag, 1, self.row - 1)
        check_int("generate", self.generate, self.row)
        check_int("sample_sets", self.sample_sets, 2)
        check_int("patience", self.patience, 1)
        check_int("seed", self.seed, 0)
        check_device(self.device)


@dataclass(frozen=True)
class CharSettings:
    """What every point of the character-level sweep shares (App. E.1.2, E.2.2).

    Attributes
    ----------
    text : TextSettings
    window : int
        Context of the Transformers, in characters.
    epochs : int
        Epoch limit.
    lstm_batch, transformer_batch : int
        Tracks of the LSTMs' truncated BPTT, windows per batch of the Transformers.
    transformer_lr : float
        Adam peak learning rate of the Transformers (the LSTMs use RMSprop at 5e-3).
    """

    text: TextSettings
    window: int
    epochs: int
    lstm_batch: int
    transformer_batch: int
    transformer_lr: float

    def __post_init__(self) -> None:
        check_type("text", self.text, TextSettings)
        check_int("window", self.window, 16)
        check_int("epochs", self.epochs, 1)
        check_int("lstm_batch", self.lstm_batch, 1)
        check_int("transformer_batch", self.transformer_batch, 1)
        check_float("transformer_lr", self.transformer_lr, 0.0, 1.0, low_open=True)


@dataclass(frozen=True)
class WordSettings:
    """What every point of the word-level sweep shares (Sec. 5.2, App. E.1.2, E.2.2).

    Attributes
    ----------
    text : TextSettings
    min_count : int
        Training tokens seen fewer times become ``<unk>``.
    window : int
        Context of the Transformers, in tokens.
    epochs : int
        Epoch limit.
    lstm_batch : int
        Tracks of the LSTMs' truncated BPTT (50 tokens).
    lstm_lr : float
        SGD learning rate of the LSTMs, divided by 4 on each validation plateau.
    dropout : float
        LSTM dropout after the embedding and between layers.
    transformer_batch : int
        Windows per batch of the Transformers.
    transformer_lr : float
        Adam peak learning rate of the Transformers.
    """

    text: TextSettings
    min_count: int
    window: int
    epochs: int
    lstm_batch: int
    lstm_lr: float
    dropout: float
    transformer_batch: int
    transformer_lr: float

    def __post_init__(self) -> None:
        check_type("text", self.text, TextSettings)
        check_int("min_count", self.min_count, 1)
        check_int("window", self.window, 16)
        check_int("epochs", self.epochs, 1)
        check_int("lstm_batch", self.lstm_batch, 1)
        check_float("lstm_lr", self.lstm_lr, 0.0, 100.0, low_open=True)
        check_float("dropout", self.dropout, 0.0, 1.0, high_open=True)
        check_int("transformer_batch", self.transformer_batch, 1)
        check_float("transformer_lr", self.transformer_lr, 0.0, 1.0, low_open=True)


@dataclass(frozen=True)
class CharCorpus:
    """The KJV at character level, split contiguously (training: Genesis to Acts).

    Attributes
    ----------
    vocab : CharVocab
        Every character of the whole corpus.
    split : Splits
        :func:`~seqmi.data.text.split_contiguous` of the chapters.
    train_text : str
        The training characters used (the first ``train_chars``, or all).
    train, valid : ndarray of int64
        ``train_text`` and the whole validation split, encoded.
    """

    vocab: CharVocab
    split: Splits
    train_text: str
    train: np.ndarray
    valid: np.ndarray


@lru_cache(maxsize=2)
def char_corpus(train_chars: int) -> CharCorpus:
    """The character-level corpus of the text sweeps (cached per process).

    Parameters
    ----------
    train_chars : int
        Characters of the training split to keep (0: all).
    """
    docs = kjv_documents()
    vocab = CharVocab(join(docs))
    split = split_contiguous(docs)
    train_text = split.train[:train_chars] if train_chars else split.train
    return CharCorpus(vocab, split, train_text, vocab.encode(train_text), vocab.encode(split.valid))


@dataclass(frozen=True)
class WordCorpus:
    """The training text of :func:`char_corpus` as the word models see it.

    Attributes
    ----------
    words : WordVocab
        Tokens of the training text seen at least ``min_count`` times, and ``<unk>``.
    chars : CharVocab
        The alphabet of the samples: the corpus's characters and those of ``<unk>``.
    train, valid : ndarray of int64
        Token ids of the training text and of the first quarter of the validation split.
    """

    words: WordVocab
    chars: CharVocab
    train: np.ndarray
    valid: np.ndarray


@lru_cache(maxsize=2)
def word_corpus(train_chars: int, min_count: int) -> WordCorpus:
    """The word-level corpus of the word sweep (cached per process)."""
    corpus = char_corpus(train_chars)
    words = WordVocab(corpus.train_text, min_count)
    chars = CharVocab("".join(corpus.vocab.chars) + UNK)
    return WordCorpus(words, chars, words.encode(corpus.train_text),
                      words.encode(_stream_valid(corpus.split.valid)))


def char_data(kind: str, settings: CharSettings) -> Sequences | Stream:
    """LSTMs: the training text as one stream (BPTT 100, reset 0.01); Transformers: its windows."""
    corpus = char_corpus(settings.text.train_chars)
    if kind == "lstm":
        return Stream(corpus.train, _stream_valid(corpus.valid), bptt=100, reset_prob=0.01)
    return Sequences(_windows(corpus.train, settings.window), _windows(corpus.valid, settings.window)[:200])


def char_model(kind: str, width: int, depth: int, settings: CharSettings) -> nn.Module:
    """A fresh character model: an LSTM (embedding of size ``min(200, width)``) or a Transformer."""
    vocab_size = len(char_corpus(settings.text.train_chars).vocab)
    if kind == "lstm":
        return RNNLM(vocab_size, width, depth, cell="lstm", embed_dim=min(200, width))
    return TransformerLM(vocab_size, width, depth, heads=TEXT_HEADS, max_len=settings.window)


def char_config(kind: str, width: int, depth: int, settings: CharSettings) -> TrainConfig:
    """The recipe of a character model (App. E.1.2, E.2.2), seeded per model."""
    text = settings.text
    seed = child_seed(text.seed, "char-train", kind, width, depth)
    stop = {"max_epochs": settings.epochs, "patience": text.patience, "restarts": 1, "seed": seed}
    if kind == "lstm":
        return TrainConfig(optimizer="rmsprop", lr=5e-3, clip=0.25, batch_size=settings.lstm_batch, **stop)
    rows = len(char_corpus(text.train_chars).train) // settings.window
    return TrainConfig(optimizer="adam", lr=settings.transformer_lr, clip=5.0, batch_size=settings.transformer_batch,
                       schedule="cosine", warmup_steps=_warmup(rows, settings.transformer_batch, settings.epochs),
                       **stop)


def word_data(kind: str, settings: WordSettings) -> Sequences | Stream:
    """LSTMs: the token stream (BPTT 50, reset 0.01); Transformers: windows of ``window`` tokens."""
    corpus = word_corpus(settings.text.train_chars, settings.min_count)
    if kind == "word_lstm":
        return Stream(corpus.train, corpus.valid, bptt=50, reset_prob=0.01)
    return Sequences(_windows(corpus.train, settings.window), _windows(corpus.valid, settings.window)[:200])


def word_model(kind: str, width: int, depth: int, settings: WordSettings) -> nn.Module:
    """A fresh word model with tied weights, sampling characters (:class:`~seqmi.models.wordchar.CharLevelSampler`)."""
    corpus = word_corpus(settings.text.train_chars, settings.min_count)
    if kind == "word_lstm":
        inner = add_lstm_dropout(RNNLM(len(corpus.words), width, depth, cell="lstm", embed_dim=width,
                                       tie_weights=True), settings.dropout)
    else:
        inner = TransformerLM(len(corpus.words), width, depth, heads=TEXT_HEADS, max_len=settings.window,
                              tie_weights=True)
    return CharLevelSampler(inner, corpus.words, corpus.chars)


def word_config(kind: str, width: int, depth: int, settings: WordSettings) -> TrainConfig:
    """The recipe of a word model (App. E.1.2: the PyTorch example's SGD; E.2.2), seeded per model."""
    text = settings.text
    seed = child_seed(text.seed, "word-train", kind, width, depth)
    stop = {"max_epochs": settings.epochs, "patience": text.patience, "restarts": 1, "seed": seed}
    if kind == "word_lstm":
        return TrainConfig(optimizer="sgd", lr=settings.lstm_lr, clip=0.25, batch_size=settings.lstm_batch,
                           schedule="plateau", plateau_factor=4.0, **stop)
    rows = len(word_corpus(text.train_chars, settings.min_count).train) // settings.window
    return TrainConfig(optimizer="adam", lr=settings.transformer_lr, clip=5.0, batch_size=settings.transformer_batch,
                       schedule="cosine", warmup_steps=_warmup(rows, settings.transformer_batch, settings.epochs),
                       **stop)


def _text_family(point: SeedFamily, level: str, make: Callable[..., nn.Module], data: Sequences | Stream,
                 configure: Callable[..., TrainConfig], settings: CharSettings | WordSettings,
                 checkpoint_dir: str | None) -> dict[str, Any]:
    kind, widths, depth, seed = point
    text = settings.text
    return run_family(
        [partial(make, kind, w, depth, settings) for w in widths], data,
        [configure(kind, w, depth, settings) for w in widths],
        sample_seeds=[child_seed(text.seed, f"{level}-sample", kind, w, depth) for w in widths],
        n_samples=text.generate // text.row, sample_length=text.row, max_lag=text.max_lag,
        threshold=TEXT_THRESHOLD, seeds=(seed,), device=text.device, checkpoint_dir=checkpoint_dir,
        budget=current_budget(), head_tokens=HEAD_CHARS, sample_sets=text.sample_sets)


def char_point(point: SeedFamily, checkpoint_dir: str | None, settings: CharSettings) -> dict[str, Any]:
    """Train, sample and measure one seed of one family of the character-level sweep.

    Parameters
    ----------
    point : (kind, widths, depth, seed)
        ``kind`` in ``CHAR_KINDS``; ``seed`` the training seed index.
    checkpoint_dir : str or None
        The family's training checkpoints.
    settings : CharSettings

    Returns
    -------
    dict
        :func:`run_family`'s record: per width, the character-level ``I(tau)`` of
        ``generate`` characters and the first ``HEAD_CHARS`` of them.
    """
    _check_family(point, CHAR_KINDS)
    return _text_family(point, "char", char_model, char_data(point[0], settings), char_config, settings,
                        checkpoint_dir)


def word_point(point: SeedFamily, checkpoint_dir: str | None, settings: WordSettings) -> dict[str, Any]:
    """Train, sample and measure one seed of one family of the word-level sweep, at character level.

    Parameters
    ----------
    point : (kind, widths, depth, seed)
        ``kind`` in ``WORD_KINDS``; ``seed`` the training seed index.
    checkpoint_dir : str or None
        The family's training checkpoints.
    settings : WordSettings

    Returns
    -------
    dict
        As :func:`char_point`; ``val_loss`` is per word.
    """
    _check_family(point, WORD_KINDS)
    return _text_family(point, "word", word_model, word_data(point[0], settings), word_config, settings,
                        checkpoint_dir)


def _warmup(rows: int, batch: int, epochs: int) -> int:
    # a short linear warmup (a tenth of the run, at most 100 steps) steadies Adam's first steps
    return min(100, rows // batch * epochs // 10)


def _windows(ids: np.ndarray, window: int) -> np.ndarray:
    """``ids`` cut into rows of ``window`` tokens (the remainder dropped)."""
    return ids[: len(ids) // window * window].reshape(-1, window)


def _stream_valid(split: Any) -> Any:
    # a quarter of the validation split (at least 4,000 tokens) keeps the streams'
    # validation pass short
    return split[: max(len(split) // 4, 4000)]
