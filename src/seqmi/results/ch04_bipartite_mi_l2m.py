"""The typed results of chapter 04, bipartite mutual information and the L2M condition.

What the chapter on Chen et al. 2025 (L2M) saves and its rules
(:mod:`seqmi.claims.ch04_bipartite_mi_l2m`) read: the identical-token toy (Sec. 4.4), the
exact sub-volume and logarithmic Gaussian families at equal and unequal splits (Fig. 3,
App. A.V, B), the two-point and bipartite MI of the KJV and of a pretrained model's samples
(Fig. 2, App. A; Shen 2019 Fig. 3(d)), the history states of Thm. 5.2 and their exact
linear form (Thm. 5.4), the trained models of Fig. 4 and of the exact bound's sweep, and
Fig. 5's position-wise NLL on text.

Every section may be absent: a recording begun from one section
(:func:`seqmi.book.record_section`) holds that section's numbers only, so every field of
:class:`Results` defaults to ``None``. MI and KL are in nats throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from seqmi.results import ChapterResults, JsonRecord

__all__ = [
    "BipartiteCurve", "BipartiteEstimate", "BoundRun", "BoundSettings", "CharModel", "ChapterSettings",
    "ContextFreeKL", "ExactCollapse", "ExactFamilies", "ExactStates", "Figure5", "GaussianSplit", "GrowthFit",
    "L2MExact", "L2MRun", "L2MSettings", "OffsetFit", "Results", "SmolLM2Info", "SplitCurve", "TextTwoPoint",
]


@dataclass(frozen=True, kw_only=True)
class GaussianSplit(JsonRecord):
    """Both Gaussian families cut at one split ratio L/ℓ (App. A.V), at every length.

    Attributes
    ----------
    ell : list of int
        The cut ℓ at each length L.
    subvolume, logarithmic : list of float
        Each family's per-copy bipartite MI I(X_1:ℓ; X_ℓ+1:L) at each length.
    subvolume_beta : float
        The sub-volume family's fitted exponent of L.
    subvolume_beta_ci : list of float
        Its 95% interval.
    subvolume_ratios : list of float
        The sub-volume MI's ratio from one layer to the next (3 for L^log_4 3).
    subvolume_local_exponent : float
        Its exponent over the last layer.
    log_steps : list of float
        The logarithmic family's increment per layer (×4 in L).
    log_slope_per_ln_L : float
        That family's mean increment per unit of ln L.
    log_local_exponent : float
        Its power of L over the last layer.
    """

    ell: list[int]
    subvolume: list[float]
    logarithmic: list[float]
    subvolume_beta: float
    subvolume_beta_ci: list[float]
    subvolume_ratios: list[float]
    subvolume_local_exponent: float
    log_steps: list[float]
    log_slope_per_ln_L: float
    log_local_exponent: float


@dataclass(frozen=True, kw_only=True)
class OffsetFit(JsonRecord):
    """A two-point MI curve with L2M's offset power-law fit ``A d^-α + C`` (:class:`seqmi.fit.OffsetFit`).

    Attributes
    ----------
    mi : list of float
        The estimate I(d) at distances d = 1, 2, ...
    alpha : float
        The fitted exponent α.
    alpha_ci : list of float
        Its 95% interval given C.
    offset : float
        C, the estimator's constant bias.
    amplitude : float
        A.
    r2 : float
        r² of the log-log line of I − C.
    min_lag : int
        The first distance fitted.
    alpha_jack_ci, offset_jack_ci : list of float, optional
        Jackknife 95% intervals of α and C over blocks of the text (absent without them).
    n_jackknife : int, optional
        The jackknife's replicates (absent without them).
    """

    mi: list[float]
    alpha: float
    alpha_ci: list[float]
    offset: float
    amplitude: float
    r2: float
    min_lag: int
    alpha_jack_ci: list[float] | None = None
    offset_jack_ci: list[float] | None = None
    n_jackknife: int | None = None


@dataclass(frozen=True, kw_only=True)
class TextTwoPoint(OffsetFit):
    """The KJV's two-point MI and its offset fit (Fig. 2(e, f), App. A.VII).

    Attributes
    ----------
    lags : list of int
        The distances d of ``mi``, in characters.
    chars : int
        The characters of text counted.
    """

    lags: list[int]
    chars: int


@dataclass(frozen=True, kw_only=True)
class BipartiteEstimate(JsonRecord):
    """One length's bipartite MI estimate over held-out chapters.

    Attributes
    ----------
    mi : float
        The mean estimate of I_bp(L).
    stderr : float
        Its standard error over chapters.
    h_first, h_second : float
        The mean entropies of the two halves (the second given nothing, as the estimator
        counts them).
    n : int
        The chapters averaged.
    """

    mi: float
    stderr: float
    h_first: float
    h_second: float
    n: int


@dataclass(frozen=True, kw_only=True)
class GrowthFit(JsonRecord):
    """The fitted exponent of a bipartite curve, as the chapter prints it.

    Attributes
    ----------
    beta : float
        The exponent β of L.
    ci : list of float
        Its 95% interval.
    n_points : int
        The lengths fitted.
    """

    beta: float
    ci: list[float]
    n_points: int


@dataclass(frozen=True, kw_only=True)
class BipartiteCurve(JsonRecord):
    """One estimator's bipartite MI of text at every length (Fig. 2(b, c)).

    Attributes
    ----------
    lengths : list of int
        The lengths L (tokens of the model; characters for lzma).
    estimates : list of BipartiteEstimate
        The estimate at each length.
    fit : GrowthFit or None
        Its fitted exponent; null where too few estimates are positive.
    """

    lengths: list[int]
    estimates: list[BipartiteEstimate]
    fit: GrowthFit | None


@dataclass(frozen=True, kw_only=True)
class SplitCurve(BipartiteCurve):
    """One estimator's bipartite MI of text cut at ℓ = L / ratio (App. A.V).

    Attributes
    ----------
    ell : list of int
        The cut ℓ at each length.
    """

    ell: list[int]


@dataclass(frozen=True, kw_only=True)
class CharModel(JsonRecord):
    """The character Transformer that estimates the text's bipartite MI.

    Attributes
    ----------
    n_params : int
        Its parameters.
    valid_loss : float
        Its best held-out loss, nats per character.
    two_gram_entropy : float
        The 2-gram entropy of the correction (App. A.III), nats.
    """

    n_params: int
    valid_loss: float
    two_gram_entropy: float


@dataclass(frozen=True, kw_only=True)
class SmolLM2Info(JsonRecord):
    """The pretrained SmolLM2-135M that estimates the text's bipartite MI.

    Attributes
    ----------
    transformers : str
        The version of the library that ran it.
    bos_id : int
        The token that starts every chapter.
    chars_per_token : float
        Characters per token on the KJV.
    two_gram_entropy : float
        The 2-gram entropy of the correction (App. A.III), nats.
    """

    transformers: str
    bos_id: int
    chars_per_token: float
    two_gram_entropy: float


@dataclass(frozen=True, kw_only=True)
class Figure5(JsonRecord):
    """Fig. 5: the position-wise NLL of a Transformer and an SSM of equal size on held-out chapters.

    Attributes
    ----------
    tf_params, ssm_params : int
        The two models' parameters.
    ssm_width : int
        The SSM's width, chosen to match the Transformer's parameters.
    tf_position_nll, ssm_position_nll : list of float
        Each model's mean NLL at each position of the context, nats.
    gap_change : float
        The mean change over chapters of the gap SSM − Transformer from the second quarter
        of positions to the last, nats.
    gap_change_se : float
        Its standard error over chapters.
    gap_late : float
        The gap over the last quarter, nats.
    n_docs : int
        The held-out chapters.
    n_windows : int, optional
        The context windows scored (absent from records made before they were counted:
        one per chapter).
    windows_per_doc : int
        The most windows scored per chapter.
    n_seeds : int, optional
        The models trained per architecture (absent: one).
    tf_valid_loss, ssm_valid_loss : float
        The two models' best held-out loss, nats per character.
    """

    tf_params: int
    ssm_params: int
    ssm_width: int
    tf_position_nll: list[float]
    ssm_position_nll: list[float]
    gap_change: float
    gap_change_se: float
    gap_late: float
    n_docs: int
    n_windows: int | None = None
    windows_per_doc: int
    n_seeds: int | None = None
    tf_valid_loss: float
    ssm_valid_loss: float


@dataclass(frozen=True, kw_only=True)
class ChapterSettings(JsonRecord):
    """The text models' sizes of the run.

    Attributes
    ----------
    char_steps : int
        Training steps of the character models.
    char_folds : int, optional
        Folds of the character models, each chapter held out once (0: one model; absent
        from recordings made before folds).
    text_docs : int
        Chapters of text the character models are scored on.
    smol_docs : int
        Chapters scored by SmolLM2-135M (0: the model skipped).
    """

    char_steps: int
    char_folds: int | None = None
    text_docs: int
    smol_docs: int


@dataclass(frozen=True, kw_only=True)
class ExactStates(JsonRecord):
    """One Gaussian family's linear history states computed exactly (Thm. 5.4).

    Attributes
    ----------
    lengths : list of int
        The lengths L, one per layer.
    bipartite_mi : list of float
        I_bp at the equal split of each length.
    rank : list of int
        The number of nonzero canonical correlations between past and future.
    d_needed : dict of str to list of int
        Per ε (keyed as written, e.g. ``"0.01"``), the smallest linear state keeping
        1 − ε of I_bp at each length.
    excess : dict of str to list of float
        Per state size d (keyed ``"4"``), the MI such a state must lose, E(d), at each length.
    """

    lengths: list[int]
    bipartite_mi: list[float]
    rank: list[int]
    d_needed: dict[str, list[int]]
    excess: dict[str, list[float]]


@dataclass(frozen=True, kw_only=True)
class ExactFamilies(JsonRecord):
    """The exact linear states of both Gaussian families.

    Attributes
    ----------
    subvolume : ExactStates
        The sub-volume family (I_bp ~ L^log_4 3).
    logarithmic : ExactStates
        The logarithmic family (I_bp ~ ln L).
    """

    subvolume: ExactStates
    logarithmic: ExactStates


@dataclass(frozen=True, kw_only=True)
class ExactCollapse(JsonRecord):
    """How well the lost fraction E/I of exact linear states is one function of I/d (Fig. 4(b)).

    Attributes
    ----------
    spearman : float
        Spearman's correlation of E/I with I/d over every (L, d) with E > 0.
    n_points : int
        Those (L, d).
    max_spread : float
        The largest gap in E/I between two lengths at equal I/d, a fraction of I.
    """

    spearman: float
    n_points: int
    max_spread: float


@dataclass(frozen=True, kw_only=True)
class L2MExact(JsonRecord):
    """The L2M condition computed exactly for linear states (Thm. 5.4, Fig. 4(b)).

    Attributes
    ----------
    states : ExactFamilies
        Each family's exact states.
    beta : float
        log_4 3, the sub-volume family's exponent.
    eps : list of float
        The fractions ε of I_bp a state may lose.
    dims : list of int
        The fixed state sizes d.
    d_exponent : dict of str to float
        Per ε, the last layer's exponent of the state needed.
    excess_exponent : dict of str to float
        Per d whose excess is positive, the last layer's exponent of E(d).
    collapse : ExactCollapse
        The exact collapse of E/I onto I/d.
    excess_per_position : list of float
        The smallest state's excess per position of the second half, at each length.
    """

    states: ExactFamilies
    beta: float
    eps: list[float]
    dims: list[int]
    d_exponent: dict[str, float]
    excess_exponent: dict[str, float]
    collapse: ExactCollapse
    excess_per_position: list[float]


@dataclass(frozen=True, kw_only=True)
class L2MSettings(JsonRecord):
    """The sizes of Fig. 4's trained models.

    Attributes
    ----------
    l2m_lengths : list of int
        The sequence lengths L.
    model_widths : list of int
        The widths of both backbones.
    model_layers : int
        Their layers.
    flat_ratio : float
        The late/early KL ratio below which a position profile is flat (Fig. 4(c, d)).
    train_steps : int
        Training steps per model.
    batch : int
        Sequences per step.
    token_dim : int
        Copies of the sub-volume process per token.
    """

    l2m_lengths: list[int]
    model_widths: list[int]
    model_layers: int
    flat_ratio: float
    train_steps: int
    batch: int
    token_dim: int


@dataclass(frozen=True, kw_only=True)
class L2MRun(JsonRecord):
    """One Fig. 4 model (backbone, width, L), its seeds pooled
    (:func:`seqmi.experiments.ch04_bipartite_mi_l2m.pool_replicates`).

    Attributes
    ----------
    state_size : int
        The numbers its history state holds at L/2 (Thm. 5.2).
    n_params : int
        Its parameters.
    bipartite_mi : float
        The process's I_bp at the equal split of L.
    position_kl : list of float
        The KL to the true conditional at each position, mean over seeds.
    average_kl : float
        Its mean over positions and seeds.
    final_train_loss : float
        The last training loss, mean over seeds.
    average_kl_replicates : list of float, optional
        Each seed's average KL (absent from recordings made before seeds were pooled).
    position_kl_replicates : list of list of float, optional
        Each seed's position profile (likewise).
    """

    state_size: int
    n_params: int
    bipartite_mi: float
    position_kl: list[float]
    average_kl: float
    final_train_loss: float
    average_kl_replicates: list[float] | None = None
    position_kl_replicates: list[list[float]] | None = None


@dataclass(frozen=True, kw_only=True)
class ContextFreeKL(JsonRecord):
    """The KL of the context-free (marginal) prediction at one length: what a trained model must beat.

    Attributes
    ----------
    mean : float
        Its mean over positions, I(z_i; z_<i) averaged.
    curve : list of float
        Its value at each position.
    """

    mean: float
    curve: list[float]


@dataclass(frozen=True, kw_only=True)
class BoundRun(JsonRecord):
    """One seed of one model of the exact bound's sweep
    (:func:`seqmi.experiments.ch04_bipartite_mi_l2m.bound_point`).

    Attributes
    ----------
    backbone : {"linear", "mamba", "transformer"}
        The model.
    size : int
        The linear model's state size d, else the width.
    L : int
        The sequence length.
    seed : int
        The training seed.
    position_kl : list of float
        The KL at each position (to four digits).
    sum_kl : float
        The KL summed over positions from L/2, over every copy.
    bound : float
        The exact excess E(size) of a linear state of that size (a bound for linear models only).
    bipartite_mi : float
        I_bp at L/2, E(0).
    context_free_sum : float
        The context-free prediction's summed KL.
    state_size : int
        The numbers its history state holds at L/2.
    final_train_loss : float
        The last training loss.
    steps : int
        The training steps.
    n_params : int
        Its parameters.
    wall_s : float
        Its training time, seconds.
    device : str, optional
        Where it trained (absent from recordings made before it was stored).
    """

    backbone: Literal["linear", "mamba", "transformer"]
    size: int
    L: int
    seed: int
    position_kl: list[float]
    sum_kl: float
    bound: float
    bipartite_mi: float
    context_free_sum: float
    state_size: int
    final_train_loss: float
    steps: int
    n_params: int
    wall_s: float
    device: str | None = None


@dataclass(frozen=True, kw_only=True)
class BoundSettings(JsonRecord):
    """The sizes of the exact bound's sweep.

    Attributes
    ----------
    linear_states : list of int
        The linear models' state sizes d.
    mamba_width, transformer_width : int
        The widths of the other two models.
    head_width : int
        The linear models' readout width.
    layers : int
        Layers of the Mamba and the Transformer.
    copies : int
        Stacked copies of the process per token.
    steps : int
        Training steps per model.
    batch : int
        Sequences per step.
    lr : float
        The learning rate.
    lengths : list of int
        The sequence lengths L.
    mamba_max_length : int
        The longest L the Mamba trains at.
    seeds : list of int
        The training seeds of every model.
    """

    linear_states: list[int]
    mamba_width: int
    transformer_width: int
    head_width: int
    layers: int
    copies: int
    steps: int
    batch: int
    lr: float
    lengths: list[int]
    mamba_max_length: int
    seeds: list[int]


@dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    """What chapter 04 saves: the exact families, the text, the history states and the trained models.

    Attributes
    ----------
    toy_vocab : int, optional
        M, the vocabulary of the identical-token toy (Sec. 4.4).
    toy_two_point, toy_bipartite : list of float, optional
        Its two-point MI at each distance and bipartite MI at each split (ln M everywhere).
    toy_max_deviation : float, optional
        Their largest deviation from ln M.
    layers : list of int, optional
        The Gaussian families' layers.
    lengths : list of int, optional
        Their lengths L = 4^layers.
    alpha_theory, beta_theory : float, optional
        The derived exponents 2 ln(16/5)/ln 4 (two-point) and log_4 3 (bipartite, Fig. 3).
    bipartite_mi : dict of str to list of float, optional
        Per ``"<family>/<boundary operation>"`` (``mix``: reading (b); ``overwrite``:
        reading (a) of App. B), the per-copy I_bp at each length (Fig. 3(b)).
    two_point_far : dict of str to list of float, optional
        Per family, the two-point MI at maximal distance at each length (Fig. 3(a)).
    two_point_far_rel_diff : float, optional
        The largest relative difference of the two families' far two-point MI.
    alpha_fit, beta_fit : float, optional
        The fitted two-point and sub-volume bipartite exponents.
    alpha_ci, beta_ci : list of float, optional
        Their 95% intervals.
    bipartite_ratios : list of float, optional
        The sub-volume I_bp's ratio from one layer to the next (reading (b)).
    bipartite_ratios_overwrite : list of float, optional
        The same under reading (a).
    log_family_steps : list of float, optional
        The logarithmic family's increment per layer.
    log_family_local_exponent : float, optional
        Its power of L over the last layer.
    cross_rank : dict of str to list of int, optional
        Per family, the rank of the covariance across the cut at each length.
    split_ratios : list of int, optional
        The split ratios L/ℓ (App. A.V).
    split_lengths : list of int, optional
        The lengths of the unequal splits.
    split_dense_check : float, optional
        The largest difference of the structured computation from the dense one.
    gaussian_splits : dict of str to GaussianSplit, optional
        Both families at each split ratio (keyed ``"2"``).
    split_argmax_fraction : dict of str to float, optional
        Per family, the cut ℓ/L of largest I at the largest length.
    split_over_equal : dict of str to dict of str to float, optional
        Per family and ratio, I at that split over I at the equal split.
    text_two_point : TextTwoPoint, optional
        The KJV's two-point MI (Fig. 2(e, f)).
    text_bipartite : dict of str to BipartiteCurve, optional
        Per ``"<model>/<estimator>"`` (``direct_raw``, ``direct``, ``vclub``;
        ``lzma/compression``), the bipartite MI of text at the equal split (Fig. 2(b, c)).
    text_char_model : CharModel, optional
        The character Transformer.
    smollm2 : SmolLM2Info, optional
        The pretrained model (null, read as absent, where a run skips it).
    two_gram_relative_change : dict of str to list of float, optional
        Per model, the 2-gram correction's relative change of I_bp at each length (App. A.III).
    generated_two_point : dict of str to OffsetFit, optional
        Per ``"<model>, T = <temperature>"``, the two-point MI of generated text (Shen 2019 Fig. 3(d)).
    sample_chars : int, optional
        Characters generated per temperature.
    text_bipartite_splits : dict of str to SplitCurve, optional
        Per ``"<model>/<ratio>/<estimator>"``, the bipartite MI of text at unequal splits (App. A.V).
    state_sizes : dict of str to dict of str to int, optional
        Per model, the numbers its history state holds at each length (Thm. 5.2).
    crossover_length : dict of str to dict of str to float, optional
        Per fixed-state model, the length at which the sub-volume I_bp exceeds what its state
        can hold (as ``float32`` numbers, or at one nat per number).
    mi_per_dim_slope_transformer, mi_per_dim_slope_ssm : float, optional
        The log-log slopes of I_bp per state dimension for a KV cache and a fixed state.
    l2m_settings : L2MSettings, optional
        Fig. 4's sizes.
    l2m_runs : dict of str to L2MRun, optional
        Fig. 4's models, keyed ``"<backbone>/d=<width>/L=<length>"``.
    late_early_ratio : dict of str to float, optional
        Per ``"<backbone> d=<width>"``, the late/early KL ratio at the longest L (Fig. 4(c, d)).
    kl_growth : dict of str to float, optional
        Per model, the average KL's ratio from the shortest L to the longest (Fig. 4(a)).
    ssm_collapse_spearman : float, optional
        Spearman's correlation of every Mamba run's average KL with I_bp per state dimension.
    l2m_context_free_kl : dict of str to ContextFreeKL, optional
        Per length (keyed ``"1024"``), the context-free KL (absent from recordings made before it).
    l2m_exact : L2MExact, optional
        The exact linear states (Thm. 5.4).
    bound_runs : list of BoundRun, optional
        The exact bound's sweep, one record per (model, L, seed).
    bound_settings : BoundSettings, optional
        Its sizes.
    figure5 : Figure5, optional
        Fig. 5's models on text.
    settings : ChapterSettings, optional
        The text models' sizes.
    """

    toy_vocab: int | None = None
    toy_two_point: list[float] | None = None
    toy_bipartite: list[float] | None = None
    toy_max_deviation: float | None = None
    layers: list[int] | None = None
    lengths: list[int] | None = None
    alpha_theory: float | None = None
    beta_theory: float | None = None
    bipartite_mi: dict[str, list[float]] | None = None
    two_point_far: dict[str, list[float]] | None = None
    two_point_far_rel_diff: float | None = None
    alpha_fit: float | None = None
    alpha_ci: list[float] | None = None
    beta_fit: float | None = None
    beta_ci: list[float] | None = None
    bipartite_ratios: list[float] | None = None
    bipartite_ratios_overwrite: list[float] | None = None
    log_family_steps: list[float] | None = None
    log_family_local_exponent: float | None = None
    cross_rank: dict[str, list[int]] | None = None
    split_ratios: list[int] | None = None
    split_lengths: list[int] | None = None
    split_dense_check: float | None = None
    gaussian_splits: dict[str, GaussianSplit] | None = None
    split_argmax_fraction: dict[str, float] | None = None
    split_over_equal: dict[str, dict[str, float]] | None = None
    text_two_point: TextTwoPoint | None = None
    text_bipartite: dict[str, BipartiteCurve] | None = None
    text_char_model: CharModel | None = None
    smollm2: SmolLM2Info | None = None
    two_gram_relative_change: dict[str, list[float]] | None = None
    generated_two_point: dict[str, OffsetFit] | None = None
    sample_chars: int | None = None
    text_bipartite_splits: dict[str, SplitCurve] | None = None
    state_sizes: dict[str, dict[str, int]] | None = None
    crossover_length: dict[str, dict[str, float]] | None = None
    mi_per_dim_slope_transformer: float | None = None
    mi_per_dim_slope_ssm: float | None = None
    l2m_settings: L2MSettings | None = None
    l2m_runs: dict[str, L2MRun] | None = None
    late_early_ratio: dict[str, float] | None = None
    kl_growth: dict[str, float] | None = None
    ssm_collapse_spearman: float | None = None
    l2m_context_free_kl: dict[str, ContextFreeKL] | None = None
    l2m_exact: L2MExact | None = None
    bound_runs: list[BoundRun] | None = None
    bound_settings: BoundSettings | None = None
    figure5: Figure5 | None = None
    settings: ChapterSettings | None = None
