"""The typed results of chapter 05, SSMs that express n-gram languages.

What the chapter on Nandakumar et al. saves and its rules
(:mod:`seqmi.claims.ch05_ngram_ssm`) read: the language of Appendix B, the constructions of
Theorem 4.1 and Sec. 4.5 checked for ε-equivalence, the context window of Prop. 4.6, the
piece counting of Prop. A.8 and the models trained on it, and the SSMs and RNNs trained on
the language (Sec. 5: accuracy, spectra, Lipschitz window, clustering of Fig. 4).
"""

from __future__ import annotations

from dataclasses import dataclass

from seqmi.results import ChapterResults, JsonRecord

__all__ = [
    "ConditioningDraws", "Construction", "ExplainedByLastTrigram", "Lipschitz", "LrSelectionRun", "MemorisationFit",
    "MemorisationTraining", "PieceCount", "RandomLanguage", "Results", "RnnConstruction", "SeedClustering",
    "SizeScanPoint", "SmallEmbeddingRun", "Spectrum", "Training", "TrigramClustering", "WindowCheck",
]


@dataclass(frozen=True, kw_only=True)
class Construction(JsonRecord):
    """One SSM built by the construction of Theorem 4.1 for the language of Appendix B.

    Attributes
    ----------
    eps : float
        The ε of ε-equivalence it was built for.
    embed_dim : int
        The embedding dimension d.
    max_tv : float
        Largest total variation distance between its next-word distribution and the
        language's, over all valid starting sequences.
    hidden_size : int
        Its hidden neurons (``|P|`` = 145 by construction).
    rank : int
        Numerical rank of the post-ReLU state matrix (Lemma A.2's certificate).
    condition_number : float
        That matrix's 2-norm condition number.
    nilpotency_index : int or None
        The smallest k with A^k = 0 to rounding (3 for n = 4), null if A is not nilpotent.
    """

    eps: float
    embed_dim: int
    max_tv: float
    hidden_size: int
    rank: int
    condition_number: float
    nilpotency_index: int | None


@dataclass(frozen=True, kw_only=True)
class ConditioningDraws(JsonRecord):
    """Certificates of constructions drawn at one embedding dimension (Lemmas A.2-A.4), one entry per draw.

    Attributes
    ----------
    embed_dim : int
        The embedding dimension d.
    ranks : list of int
        Numerical rank of each draw's post-ReLU state matrix.
    condition_numbers : list of float
        Its 2-norm condition number.
    smallest_singular_values : list of float
        Its smallest singular value.
    min_coordinate_gaps : list of float
        Lemma A.3's smallest gap between two contexts on one memorising coordinate,
        relative to its spread.
    max_logit_errors : list of float
        Largest error of the readout against the target logits.
    """

    embed_dim: int
    ranks: list[int]
    condition_numbers: list[float]
    smallest_singular_values: list[float]
    min_coordinate_gaps: list[float]
    max_logit_errors: list[float]


@dataclass(frozen=True, kw_only=True)
class WindowCheck(JsonRecord):
    """The context window of one constructed model (Prop. 4.6), on 12-word prefixes.

    Attributes
    ----------
    max_logit_change_older_words : float
        Largest change of the last logits when the nine oldest words are replaced.
    max_tv_change_older_words : float
        The same change as a total variation distance of the predictions.
    max_tv_change_third_word : float
        Largest total variation change when the third-last word is changed.
    window : float
        The nilpotency index of the transition matrix (inf if not nilpotent).
    relative_norm_power_n_minus_2 : float
        ‖M²‖ / ‖M‖² (Frobenius), M the transition matrix: of order one.
    relative_norm_power_n_minus_1 : float
        ‖M³‖ / ‖M‖³: at rounding level for a window of 3.
    """

    max_logit_change_older_words: float
    max_tv_change_older_words: float
    max_tv_change_third_word: float
    window: float
    relative_norm_power_n_minus_2: float
    relative_norm_power_n_minus_1: float


@dataclass(frozen=True, kw_only=True)
class RandomLanguage(JsonRecord):
    """The construction on one random n-gram language.

    Attributes
    ----------
    n : int
        The n of the n-gram language.
    embed_dim : int
        The embedding dimension d.
    n_rules : int
        Its rules ``|P|``.
    n_sentences : int
        Its sentences.
    hidden_size : int
        The construction's hidden neurons.
    window : float
        The context window of the construction's A (n − 1 when right).
    max_tv : float
        Largest total variation distance to the language's next-word distribution.
    """

    n: int
    embed_dim: int
    n_rules: int
    n_sentences: int
    hidden_size: int
    window: float
    max_tv: float


@dataclass(frozen=True, kw_only=True)
class SizeScanPoint(JsonRecord):
    """The construction on a random 4-gram language of growing size (Sec. 4.3, any d).

    Attributes
    ----------
    n_rules : int
        The language's rules ``|P|`` (= hidden neurons).
    embed_dim : int
        The embedding dimension d.
    rank : int
        Numerical rank of the post-ReLU state matrix.
    condition_number : float
        Its 2-norm condition number.
    max_logit_error : float
        Largest error of the readout against the target logits.
    max_tv : float
        Largest total variation distance to the language's next-word distribution.
    """

    n_rules: int
    embed_dim: int
    rank: int
    condition_number: float
    max_logit_error: float
    max_tv: float


@dataclass(frozen=True, kw_only=True)
class RnnConstruction(JsonRecord):
    """One RNN built with a block-nilpotent hidden matrix (Sec. 4.5, Lemma A.7).

    Attributes
    ----------
    embed_dim : int
        The embedding dimension d.
    eps : float
        The ε it was built for.
    hidden_size : int
        Its hidden neurons.
    max_tv : float
        Largest total variation distance to the language's next-word distribution.
    rank : int
        Numerical rank of its post-ReLU state matrix.
    condition_number : float
        That matrix's 2-norm condition number.
    W_cubed_is_zero : bool
        Whether W³ = 0 exactly.
    """

    embed_dim: int
    eps: float
    hidden_size: int
    max_tv: float
    rank: int
    condition_number: float
    W_cubed_is_zero: bool


@dataclass(frozen=True, kw_only=True)
class PieceCount(JsonRecord):
    """Linear pieces and sign changes of random SSMs of one hidden size on Prop. A.8's line.

    Attributes
    ----------
    hidden : int
        Hidden neurons m.
    max_pieces : int
        Most linear pieces of the output along the line, over the random SSMs.
    max_sign_changes : int
        Most sign changes of the output.
    bound_holds : bool
        Whether every SSM has at most m + 1 pieces and at most one sign change per piece.
    """

    hidden: int
    max_pieces: int
    max_sign_changes: int
    bound_holds: bool


@dataclass(frozen=True, kw_only=True)
class MemorisationFit(JsonRecord):
    """SSMs of one hidden size trained on Prop. A.8's alternating targets, one entry per restart.

    Attributes
    ----------
    hidden : int
        Hidden neurons m.
    max_error : list of float
        Each restart's largest error ``|f(x_j) − y_j|`` (≥ 1 when a sign is wrong).
    sign_errors : list of int
        Each restart's number of wrong signs.
    min_sign_errors : int
        The fewest wrong signs the piece count forces, ⌈(N − 2 − m)/2⌉.
    from_construction : bool
        Whether restart 0 started from the construction (m ≥ N).
    wrong_points : list of list of int
        Each restart's points j (from 1) with a wrong sign.
    """

    hidden: int
    max_error: list[float]
    sign_errors: list[int]
    min_sign_errors: int
    from_construction: bool
    wrong_points: list[list[int]]


@dataclass(frozen=True, kw_only=True)
class MemorisationTraining(JsonRecord):
    """How the models of :class:`seqmi.results.ch05_ngram_ssm.MemorisationFit` were trained (full-batch Adam).

    Attributes
    ----------
    restarts : int
        Restarts per hidden size.
    steps : int
        Adam steps per restart.
    lr : float
        Adam's learning rate.
    """

    restarts: int
    steps: int
    lr: float


@dataclass(frozen=True, kw_only=True)
class Training(JsonRecord):
    """The SSMs and RNNs trained on the language by SGD (Sec. 5.1-5.2), one seed per split.

    Attributes
    ----------
    n_train : int
        Training sentences per seed (the paper's 40).
    epochs : int
        Training epochs (the paper's 25).
    n_seeds : int
        Independently trained seeds per model and learning rate.
    paper_lr : float
        The paper's SGD learning rate.
    tuned_lr : float
        Our tuned SGD learning rate.
    embed_dim : int
        The embedding dimension d.
    hidden_size : int
        Hidden neurons.
    accuracy : dict of str to list of float
        Test completion accuracy per seed, keyed ``<model>_<setting>`` (``ssm_paper``,
        ``ssm_tuned``, ``rnn_paper``, ``rnn_tuned``).
    final_loss : dict of str to list of float
        Last epoch's training cross-entropy per seed [nats/word], keyed likewise.
    """

    n_train: int
    epochs: int
    n_seeds: int
    paper_lr: float
    tuned_lr: float
    embed_dim: int
    hidden_size: int
    accuracy: dict[str, list[float]]
    final_loss: dict[str, list[float]]


@dataclass(frozen=True, kw_only=True)
class SmallEmbeddingRun(JsonRecord):
    """One SSM trained at a small embedding dimension (Sec. 5.1, "SGD does not converge").

    Attributes
    ----------
    embed_dim : int
        The embedding dimension d.
    lr : float
        The SGD learning rate.
    seed : int
        The split's index.
    diverged : bool
        Whether the training loss became non-finite.
    accuracy : float
        Test completion accuracy.
    """

    embed_dim: int
    lr: float
    seed: int
    diverged: bool
    accuracy: float


@dataclass(frozen=True, kw_only=True)
class LrSelectionRun(JsonRecord):
    """One SSM at the smallest d on a split of its own, to choose the learning rate of Sec. 5.1's claim.

    Attributes
    ----------
    lr : float
        The SGD learning rate.
    seed : int
        The selection split's index.
    diverged : bool
        Whether the training loss became non-finite.
    accuracy : float
        Test completion accuracy.
    """

    lr: float
    seed: int
    diverged: bool
    accuracy: float


@dataclass(frozen=True, kw_only=True)
class Lipschitz(JsonRecord):
    """The Lipschitz norm of the trained models' state maps (Sec. 5.2), keyed by model (``ssm``, ``rnn``).

    Attributes
    ----------
    lags : list of int
        The steps back k.
    norms : dict of str to list of list of float
        Per seed, ‖∂h_t/∂h_(t−k)‖₂ at each lag, mean over 12-word test prefixes.
    contraction : dict of str to list of float
        Per seed, the per-step contraction factor fitted on k ≥ 4.
    window : dict of str to list of float
        Per seed, the lag at which the extrapolated norm falls below the window tolerance
        (inf where the factor is ≥ 1).
    """

    lags: list[int]
    norms: dict[str, list[list[float]]]
    contraction: dict[str, list[float]]
    window: dict[str, list[float]]


@dataclass(frozen=True, kw_only=True)
class Spectrum(JsonRecord):
    """The spectrum of one trained model's transition matrix, A or W (Fig. 5.2).

    Attributes
    ----------
    spectral_radius : float
        Largest eigenvalue modulus.
    n_outside : int
        Eigenvalues of modulus ≥ 1.
    fraction_inside : float
        Fraction of eigenvalues of modulus < 1.
    effective_window : float
        The smallest k with ρ^k ≤ the window tolerance (inf if ρ ≥ 1).
    """

    spectral_radius: float
    n_outside: int
    fraction_inside: float
    effective_window: float


@dataclass(frozen=True, kw_only=True)
class ExplainedByLastTrigram(JsonRecord):
    """The fraction of the states' variance that the input's last trigram explains (Fig. 4).

    Attributes
    ----------
    constructed_ssm : float
        The constructed SSM's (1: its state depends on the last trigram only).
    trained_ssm : float, optional
        Seed 0's trained SSM, in recordings made before :class:`seqmi.results.ch05_ngram_ssm.TrigramClustering`.
    trained_rnn : float, optional
        Seed 0's trained RNN, likewise.
    """

    constructed_ssm: float
    trained_ssm: float | None = None
    trained_rnn: float | None = None


@dataclass(frozen=True, kw_only=True)
class SeedClustering(JsonRecord):
    """One trained model's clustering by the last trigram, one entry per seed (Fig. 4).

    Attributes
    ----------
    explained : list of float
        Fraction of the variance of the states after every valid starting sequence that
        the last trigram explains.
    null_mean : list of float
        Its mean with the trigram labels shuffled across the states.
    p_value : list of float
        Permutation p-value of the explained fraction against the shuffles.
    """

    explained: list[float]
    null_mean: list[float]
    p_value: list[float]


@dataclass(frozen=True, kw_only=True)
class TrigramClustering(JsonRecord):
    """The per-seed clustering statistic of Fig. 4 for each trained model.

    Attributes
    ----------
    permutations : int
        Label shuffles per seed.
    ssm_tuned : SeedClustering
        The SSMs at the tuned learning rate (the claim's).
    rnn_tuned : SeedClustering
        The RNNs at the tuned learning rate.
    ssm_paper : SeedClustering
        The SSMs at the paper's learning rate (which learn nothing).
    """

    permutations: int
    ssm_tuned: SeedClustering
    rnn_tuned: SeedClustering
    ssm_paper: SeedClustering


@dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    """What chapter 05 saves: the constructions, the piece count and the trained models.

    Attributes
    ----------
    n_sentences : int
        Sentences of the language of Appendix B.
    n_contexts : int
        Its three-word rules ``|P|`` (145 in the paper's table).
    paper_table_same_set : bool
        Whether the generated rules are the printed table's.
    paper_table_same_order : bool
        Whether they come in its order.
    n_starting_sequences : int
        Valid starting sequences, on which ε-equivalence is checked.
    construction_grid : list of Construction
        The SSM construction at each (ε, d) (Theorem 4.1).
    worst_tv_over_eps : float
        Largest max TV / ε over that grid.
    conditioning_scan : list of ConditioningDraws
        Certificates per embedding dimension (Lemmas A.2-A.4).
    median_condition_number : list of float
        Their median condition number per dimension.
    window_checks : dict of str to WindowCheck
        Prop. 4.6's window, keyed by constructed model (``ssm``, ``rnn``).
    random_languages : list of RandomLanguage
        The construction on random n-gram languages.
    random_eps : float
        The ε used on random languages.
    size_scan : list of SizeScanPoint
        The construction on growing random 4-gram languages.
    rnn_grid : list of RnnConstruction
        The RNN construction per embedding dimension (Sec. 4.5).
    piece_counting : list of PieceCount
        Prop. A.8's piece count on random SSMs, per hidden size.
    n_points : int
        The alternating set's size N.
    memorisation_error : float
        The construction's largest error on it with m = N.
    memorisation_sign_changes : int
        Its sign changes (N − 1 when right).
    memorisation_fits : list of MemorisationFit
        Models trained on the set, per hidden size.
    memorisation_training : MemorisationTraining
        How they were trained.
    training : Training
        The SSMs and RNNs trained on the language (Sec. 5.1-5.2).
    small_embeddings : list of SmallEmbeddingRun
        SSMs trained at small d (Sec. 5.1).
    small_lr_selection : list of LrSelectionRun
        The splits that choose the learning rate at the smallest d.
    lipschitz : Lipschitz
        The trained models' state-map Lipschitz norms (Sec. 5.2).
    spectra : dict of str to list of Spectrum
        Per seed, the trained transition matrix's spectrum, keyed by model (``ssm``, ``rnn``; Fig. 5.2).
    window_tol : float
        The tolerance that defines an effective window.
    influence_by_lag : dict of str to list of float
        Seed 0's mean TV change of the prediction when the word k steps back is replaced,
        per k, keyed by model (a figure's data).
    explained_by_last_trigram : ExplainedByLastTrigram
        The constructed SSM's clustering by the last trigram.
    trigram_clustering : TrigramClustering, optional
        The trained models' per-seed clustering (Fig. 4); absent from recordings made before it.
    """

    n_sentences: int
    n_contexts: int
    paper_table_same_set: bool
    paper_table_same_order: bool
    n_starting_sequences: int
    construction_grid: list[Construction]
    worst_tv_over_eps: float
    conditioning_scan: list[ConditioningDraws]
    median_condition_number: list[float]
    window_checks: dict[str, WindowCheck]
    random_languages: list[RandomLanguage]
    random_eps: float
    size_scan: list[SizeScanPoint]
    rnn_grid: list[RnnConstruction]
    piece_counting: list[PieceCount]
    n_points: int
    memorisation_error: float
    memorisation_sign_changes: int
    memorisation_fits: list[MemorisationFit]
    memorisation_training: MemorisationTraining
    training: Training
    small_embeddings: list[SmallEmbeddingRun]
    small_lr_selection: list[LrSelectionRun]
    lipschitz: Lipschitz
    spectra: dict[str, list[Spectrum]]
    window_tol: float
    influence_by_lag: dict[str, list[float]]
    explained_by_last_trigram: ExplainedByLastTrigram
    trigram_clustering: TrigramClustering | None = None
