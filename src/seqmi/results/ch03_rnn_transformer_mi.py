"""The typed results of chapter 03, what trained RNNs, LSTMs and Transformers generate (Shen 2019).

Chapter ``03_rnn_transformer_mi`` trains vanilla RNNs, LSTMs and Transformers on binary
sequences with a power-law MI (Figs. 1, 3a, 7, 9) and on the King James Bible at
character and word level (Figs. 2, 3b, 3c, 8, 10, App. F), each model as several
independently trained seeds, and compares the MI of their samples with the training
data's; it also measures how uniform the text's splits are (App. D.2). Its rules are
:mod:`seqmi.claims.ch03_rnn_transformer_mi`.

Every model is a :class:`~seqmi.results.ch03_rnn_transformer_mi.Model`: the fields of its
seed with the best validation loss (the paper's reading, the best of its restarts) and
every seed's own record in ``seeds``, which the rules read. A model is keyed
``"<kind>_w<width>_d<depth>"`` in ``points`` (binary) and ``text_points`` (text), e.g.
``"lstm_w8_d2"`` or ``"word_transformer_w64_d1"``.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from seqmi.results import ChapterResults, JsonRecord

__all__ = ["Convergence", "DecayFit", "LongRange", "LongRangeShape", "Model", "PointKeys", "Results", "Seed",
           "Settings", "Throughput", "UnkRate", "WordVocab"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class DecayFit(JsonRecord):
    """Both fits of one MI curve ``I(τ)`` (the fields of :class:`seqmi.fit.DecayFits`).

    Attributes
    ----------
    n_fit_points : int
        Lags whose ``I(τ)`` is above the threshold, on which both fits run.
    ci_method : str
        ``"regression"``, or the bootstrap over rows the intervals came from.
    xi : float
        Correlation length ξ of the exponential fit, in lags (NaN with fewer than 3 points).
    xi_ci : list of float
        Its 95% interval (the upper bound may be infinite).
    gamma : float
        Exponent γ of the power-law fit ``I ∝ τ^-γ``.
    gamma_ci : list of float
        Its 95% interval.
    exp_rss, pow_rss : float
        Residual sums of squares of the exponential and power-law fits of ``ln I``;
        ``ln(pow_rss / exp_rss) > 0``: the exponential fits better (the decay form).
    form_ci : list of float
        95% interval of the decay form over the bootstrap replicates (NaN without them).
    """

    n_fit_points: int
    ci_method: str
    xi: float
    xi_ci: list[float]
    gamma: float
    gamma_ci: list[float]
    exp_rss: float
    pow_rss: float
    form_ci: list[float]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Seed(DecayFit):
    """One trained model (a seed): its training and the MI of its samples, with their fits.

    Attributes
    ----------
    mi : list of float
        ``I(τ)`` of its samples at ``τ = 1, 2, ...``, in nats (for text, its first sample
        set's).
    val_loss : float
        Its best validation loss, nats per symbol.
    val_history : list of float
        Its validation loss after every epoch.
    epochs : int
        Epochs it trained.
    stopped : str or None
        Why it stopped: ``"epochs"``, ``"patience"``, ``"target"`` or ``"time"`` (null for a
        training restored from a checkpoint older than stop reasons).
    converged : bool
        Converged by the run's criterion (:func:`seqmi.convergence.converged`, with the
        tolerance and window of the results' ``convergence``).
    sample_s : float
        Seconds its sampling took.
    head : list of int, optional
        The first tokens of its first sample (the text's passages; empty for binary models;
        absent from some seeds of older recordings).
    """

    mi: list[float]
    val_loss: float
    val_history: list[float]
    epochs: int
    stopped: Literal["epochs", "patience", "target", "time"] | None
    converged: bool
    sample_s: float
    head: list[int] | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Model(Seed):
    """One model configuration: its best seed's fields (inherited), every seed, and its cost.

    Attributes
    ----------
    best_seed : int
        Position in ``seeds`` of the seed with the lowest validation loss, whose fields
        the record's own are.
    seed_val_losses : list of float
        Every seed's best validation loss, in seed order.
    seed_indices : list of int, optional
        The training seeds' indices (absent from older recordings).
    seeds : list of Seed
        Every independently trained seed, each measured: what the rules decide over.
    params : int
        Trainable parameters.
    state_floats : int
        Floats of the model's state after a long row: an RNN's hidden state, a
        Transformer's key/value cache ``2·depth·width·context`` (its context).
    device : str
        The device it trained on (``"cpu"``, ``"cuda"``, ...).
    amp : bool
        Whether it trained under bf16 autocast.
    tokens_per_s : float
        Training throughput, tokens per second (the seeds' mean).
    """

    best_seed: int
    seed_val_losses: list[float]
    seed_indices: list[int] | None = None
    seeds: list[Seed]
    params: int
    state_floats: int
    device: str
    amp: bool
    tokens_per_s: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class Settings(JsonRecord):
    """The run's sizes, as the chapter's parameters set them.

    Attributes
    ----------
    seeds : int
        Independently trained seeds per model.
    seed : int
        The chapter's seed, of which every training seed is a child.
    binary_seeds : dict of str to list of int, optional
        Per binary kind (``"rnn"``, ``"lstm"``, ``"transformer"``), its training seeds'
        indices (absent from older recordings).
    text_seeds : list of int, optional
        The text models' training seeds' indices (absent from older recordings).
    rnn_widths, rnn_depths : list of int
        Widths of the RNNs and LSTMs (Fig. 1), and their depths (Figs. 1d, 7).
    depth_widths : list of int
        Widths at which depths are swept.
    transformer_widths : list of int
        Widths of the single-layer binary Transformers (Figs. 3a, 9a).
    transformer_depth_width : int, optional
        Width of the deeper binary Transformers (Fig. 9b; absent from older recordings).
    transformer_depths : list of int, optional
        Their depths (absent from older recordings).
    text_lstm_widths, word_lstm_widths, word_transformer_widths : list of int
        Widths of the character LSTMs and Transformers, the word LSTMs and the word
        Transformers.
    text_train_chars : int
        Characters of the training split trained on (0: all of it).
    text_epochs, word_epochs : int
        Epoch limits of the character and word models.
    text_generate : int
        Characters generated per sample set.
    text_sets : int
        Sample sets per text model.
    text_max_lag : int
        The text's largest lag τ.
    mid_start : int
        First lag of the intermediate range (Sec. 4.2.2).
    split_row : int
        Characters per row of the split measurements (App. D.2).
    split_max_lag : int
        Their largest lag τ.
    """

    seeds: int
    seed: int
    binary_seeds: dict[str, list[int]] | None = None
    text_seeds: list[int] | None = None
    rnn_widths: list[int]
    rnn_depths: list[int]
    depth_widths: list[int]
    transformer_widths: list[int]
    transformer_depth_width: int | None = None
    transformer_depths: list[int] | None = None
    text_lstm_widths: list[int]
    word_lstm_widths: list[int]
    word_transformer_widths: list[int]
    text_train_chars: int
    text_epochs: int
    word_epochs: int
    text_generate: int
    text_sets: int
    text_max_lag: int
    mid_start: int
    split_row: int
    split_max_lag: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class Convergence(JsonRecord):
    """The run's convergence criterion (:func:`seqmi.convergence.converged`).

    Attributes
    ----------
    window : int
        Epochs over which the best validation loss is compared.
    tol : float
        Relative improvement below which a run has converged.
    """

    window: int
    tol: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class PointKeys(JsonRecord):
    """The sweep points the run read, by sweep: their names in the cache and the ledger.

    Attributes
    ----------
    binary, char, word : list of str
        The keys of the binary, character and word sweeps' points.
    """

    binary: list[str]
    char: list[str]
    word: list[str]


@dataclasses.dataclass(frozen=True, kw_only=True)
class LongRange(JsonRecord):
    """A held-out split's long-range mean MI against same-size training text (App. D.2, Fig. 6).

    Every value is the mean of ``I(τ)`` over ``τ ≥ split_far_start`` (the results'), in nats.

    Attributes
    ----------
    valid : float
        The held-out (validation) set's.
    train : float
        The whole training split's.
    null_mean, null_sd : float
        Mean and standard deviation over same-size random subsamples of the training split.
    z_valid, z_train : float
        ``valid`` and ``train`` as z-scores against the subsamples.
    """

    valid: float
    train: float
    null_mean: float
    null_sd: float
    z_valid: float
    z_train: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class LongRangeShape(JsonRecord):
    """How a held-out set's long-range MI decays, against the training split's (App. D.2).

    Attributes
    ----------
    decay, decay_se : float
        The held-out set's mean ``I`` over the first third of the long range minus over its
        last third (positive where it decays), nats, and its standard error (batch means).
    excess, excess_se : float
        Its mean ``I`` over the long range minus the training split's, and the standard error.
    train_decay, train_decay_se : float
        The training split's decay, as ``decay``, and its standard error.
    """

    decay: float
    decay_se: float
    excess: float
    excess_se: float
    train_decay: float
    train_decay_se: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class UnkRate(JsonRecord):
    """Fraction of word tokens outside the vocabulary.

    Attributes
    ----------
    train, valid : float
        In the training and the validation split.
    """

    train: float
    valid: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class WordVocab(JsonRecord):
    """The word models' vocabulary (Sec. 5, word level).

    Attributes
    ----------
    size : int
        Tokens in the vocabulary.
    min_count : int
        Occurrences in the training text a token needs to be in it.
    chars_per_token : float
        Characters of text per token.
    train_tokens : int
        Tokens of the training text (a word model's epoch).
    unk_rate : UnkRate
        Fraction of tokens outside the vocabulary.
    """

    size: int
    min_count: int
    chars_per_token: float
    train_tokens: int
    unk_rate: UnkRate


@dataclasses.dataclass(frozen=True, kw_only=True)
class Throughput(JsonRecord):
    """One text model's training speed.

    Attributes
    ----------
    params : int
        Trainable parameters.
    tokens_per_s : float
        Tokens per second.
    tflops : float
        Its compute rate, in TFLOP/s (about ``6·params`` FLOPs a token).
    device : str
        The device it trained on.
    amp : bool
        Whether it trained under bf16 autocast.
    """

    params: int
    tokens_per_s: float
    tflops: float
    device: str
    amp: bool


@dataclasses.dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    """What chapter 03 records: the binary models, the text's splits and the text models.

    Attributes
    ----------
    n_train : int
        Binary training sequences.
    length : int
        Their length, in symbols.
    n_generate : int
        Sequences generated per binary seed.
    threshold : float
        The binary fits' threshold on ``I(τ)``, nats.
    data_mi : list of float
        The binary training data's ``I(τ)``, nats (Fig. 1's baseline).
    data_fit : DecayFit
        Its fits (ξ and γ with bootstrap intervals).
    points : dict of str to Model
        The binary models (Figs. 1, 3a, 7, 9), keyed ``"<kind>_w<width>_d<depth>"``.
    pending : list of str
        Models whose sweep points a time budget left unfinished (``"binary lstm 8x2"``).
    settings : Settings
        The run's sizes.
    convergence : Convergence
        The run's convergence criterion.
    point_keys : PointKeys, optional
        The sweep points read (absent from older recordings).
    split_short_range_difference : dict of str to list of float
        Per ``"<split>_<part>"`` (``contiguous``/``random``, ``valid``/``test``), the
        held-out part's mean ``I(τ ≤ 10)`` minus the training part's and its standard
        error, nats (Fig. 6).
    split_long_range : dict of str to LongRange
        Per split (``"contiguous"``, ``"random"``), its validation set's long-range MI
        against same-size training text (App. D.2).
    split_long_range_shape : dict of str to LongRangeShape
        Per ``"<split>_<part>"``, the shape of its far-lag MI.
    split_far_start : int
        First lag of the long range the splits are compared on.
    split_mi : dict of str to list of float
        Per ``"<split>_<part>"`` (``train``, ``valid``, ``test``, ``train_subsample``), its
        ``I(τ)`` (Fig. 6's curves).
    corpus_mi, corpus_small_mi : list of float
        ``I(τ)`` of the whole training text and of a sample of it the size of a model's
        samples (the text models' reference).
    corpus_fit, corpus_small_fit : DecayFit
        Their fits (Figs. 8, 10a).
    text_points : dict of str to Model
        The character and word models (Figs. 2, 3b, 3c, 8, 10), keyed as ``points``.
    word_vocab : WordVocab
        The word models' vocabulary.
    word_corpus_mi, word_corpus_small_mi : list of float
        ``I(τ)`` of the training text in word tokens, whole and at the samples' size.
    text_gaps, intermediate_gaps : dict of str to list of list of float
        Per text model ``"<kind> <width>×<depth>"``, per seed, every sample set's mismatch
        ``mean |Δ ln I|`` to the text over all lags and over the intermediate ones.
    gap_null : float
        The mismatch of two disjoint same-size samples of the text (a perfect model's;
        NaN with one sample).
    depth_pairs : list of str
        The text depth comparisons, ``"<kind> <width>×<shallow>→<deep>"``.
    train_split_chars : int
        Characters of the training split.
    samples_floor_dominated : bool
        Whether the same-size text sample stays above the threshold at every lag: the
        text comparisons then read the estimator's floor.
    passages : dict of str to str
        Per text model, the start of its first seed's first sample (App. F).
    spelling : dict of str to list of float
        Per character model ``"<kind> <width>×<depth>"``, per seed, the fraction of its
        passage's words found in the training text (App. F).
    throughput : dict of str to Throughput
        Training speed of the four largest models, keyed ``"binary <kind> <width>×<depth>"``
        or ``"text <kind> <width>×<depth>"``.
    device : str
        The device the run trained on.
    wall_s : float
        The run's wall time, seconds.
    """

    n_train: int
    length: int
    n_generate: int
    threshold: float
    data_mi: list[float]
    data_fit: DecayFit
    points: dict[str, Model]
    pending: list[str]
    settings: Settings
    convergence: Convergence
    point_keys: PointKeys | None = None
    split_short_range_difference: dict[str, list[float]]
    split_long_range: dict[str, LongRange]
    split_long_range_shape: dict[str, LongRangeShape]
    split_far_start: int
    split_mi: dict[str, list[float]]
    corpus_mi: list[float]
    corpus_small_mi: list[float]
    corpus_fit: DecayFit
    corpus_small_fit: DecayFit
    text_points: dict[str, Model]
    word_vocab: WordVocab
    word_corpus_mi: list[float]
    word_corpus_small_mi: list[float]
    text_gaps: dict[str, list[list[float]]]
    intermediate_gaps: dict[str, list[list[float]]]
    gap_null: float
    depth_pairs: list[str]
    train_split_chars: int
    samples_floor_dominated: bool
    passages: dict[str, str]
    spelling: dict[str, list[float]]
    throughput: dict[str, Throughput]
    device: str
    wall_s: float
