"""The typed results of chapter 06, gradient propagation through attention.

What the chapter on Kerg et al. 2020 saves and its rules
(:mod:`seqmi.claims.ch06_attention_gradients`) read: the supplement's derivations checked
exactly (the path decomposition, Lemmas 9-12, Prop. 4, Theorems 1 and 2), the Copy and
Denoise runs of Table 5 and Fig. 4, the gradient profiles of Fig. 3, the MiniGrid agents of
Table 4 and the cost of relevancy screening. Each section of the chapter
(:func:`seqmi.book.record_section`) can begin a recording of its own, which then holds its
numbers alone: so every number but the profile is one a recording may lack.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from seqmi.results import ChapterResults, JsonRecord

__all__ = [
    "AgentKind", "AgentRun", "CopyRun", "CostExponents", "CostPoint", "DenoiseLong", "DenoiseRun", "Evaluation",
    "Fig3Settings", "Fig4Sweep", "FreshBatch", "LongRun", "MiniGridSweep", "PatternSurvey", "RLTransferSweep",
    "RelLSTMRun", "RelLSTMSweep", "Results", "Settings", "SparseLevel", "TransferTest", "TransferTraining",
    "UniformSpectrum",
]

#: The kinds of Table 4's agents (a plain LSTM, MemLSTM with full attention, RelLSTM with relevancy screening).
AgentKind = Literal["lstm", "full", "relevancy"]


@dataclass(frozen=True, kw_only=True)
class UniformSpectrum(JsonRecord):
    """The decay exponent of uniform attention for one recurrent matrix (supplement eq. 248, Theorem 1).

    Each exponent ``eta`` describes ``||dS_T/dh_t||`` as ``T^(-eta)`` (negative: growth).

    Attributes
    ----------
    fitted : float
        The exponent fitted to the exact gradient norms from ``fit_from`` to ``horizon``.
    exact : float
        The exact exponent ``min_i [1 - Re(lambda_i/(1 - lambda_i))]``.
    supplement : float
        The exponent the supplement prints, ``min_i min(1, 1 - Re lambda_i)``.
    """

    fitted: float
    exact: float
    supplement: float


@dataclass(frozen=True, kw_only=True)
class SparseLevel(JsonRecord):
    """The gradient of one kappa-sparse pattern of depth d built to meet Theorem 2's bound (eq. 290).

    Attributes
    ----------
    kappa : int
        States each step attends to.
    depth : int
        Attention hops from ``h_t`` to every distant state.
    level : float
        ``||ds_{t+k}/dh_t||`` at the largest distance ``k``.
    min_far : float
        Its smallest value over the last nine tenths of the distances.
    bound : float
        The bound ``lambda^(d-1)/kappa^d`` of one path.
    flatness : float
        The largest over the smallest norm there, minus 1 (0: flat in ``k``).
    """

    kappa: int
    depth: int
    level: float
    min_far: float
    bound: float
    flatness: float


@dataclass(frozen=True, kw_only=True)
class PatternSurvey(JsonRecord):
    """Theorem 2's bound on kappa-sparse patterns not built for it: medians over one kind's patterns.

    Attributes
    ----------
    kind : {"random", "window"}
        Random kappa-sparse patterns, or the sliding window of the last kappa states.
    kappa : int
        States each step attends to.
    patterns : int
        Patterns drawn (1 for the window).
    min_margin_log : float
        The smallest ``ln`` of the exact gradient over the bound at its measured depth, over
        every pattern and distance (at least 0: never below the bound).
    median_depth_far : float
        The dependency depth at the largest distance.
    loglog_slope : float
        Slope of ``ln`` norm against ``ln k`` (a power law's exponent).
    rate_per_step : float
        Slope of ``ln`` norm against ``k`` (an exponential's rate).
    log_norm_far : float
        ``ln`` norm at the largest distance.
    """

    kind: Literal["random", "window"]
    kappa: int
    patterns: int
    min_margin_log: float
    median_depth_far: float
    loglog_slope: float
    rate_per_step: float
    log_norm_far: float


@dataclass(frozen=True, kw_only=True)
class FreshBatch(JsonRecord):
    """Recall on a fresh held-out batch that no stopping rule saw (:func:`seqmi.recipes.copy_tasks.fresh_recall`).

    Attributes
    ----------
    accuracy : float
        The share of its recalled symbols predicted right.
    sequences : int
        Its sequences (ten recalled symbols each).
    """

    accuracy: float
    sequences: int


@dataclass(frozen=True, kw_only=True)
class CopyRun(JsonRecord):
    """RelRNN trained on Copy at ``length``, the start of Table 5's length transfer.

    Attributes
    ----------
    length : int
        The delay T it trained at.
    lr : float
        Adam's learning rate.
    batch : int
        Sequences per update.
    max_steps : int
        Its budget of updates.
    updates : int
        The updates it made (it stops once its held-out batch reaches 99%).
    steps_to_99 : int or None
        The update at which the held-out recall reached 99%, null if it never did.
    accuracy : float
        The held-out recall on the batch it stopped on.
    fresh : FreshBatch or None
        Its recall on a fresh batch; absent from recordings made before the fresh batch.
    seconds_per_update : float
        Wall seconds per update.
    eval_steps : list of int
        The updates at which the held-out recall was measured.
    eval_accuracy : list of float
        That recall, at each of them.
    plateau : float
        The memoryless plateau of the loss, ``10 ln 8/(T + 20)``.
    final_loss : float
        The mean training loss over the last (up to 50) updates.
    """

    length: int
    lr: float
    batch: int
    max_steps: int
    updates: int
    steps_to_99: int | None
    accuracy: float
    fresh: FreshBatch | None = None
    seconds_per_update: float
    eval_steps: list[int]
    eval_accuracy: list[float]
    plateau: float
    final_loss: float


@dataclass(frozen=True, kw_only=True)
class TransferTraining(JsonRecord):
    """How one model of the length-transfer sweep learned Copy where it trained.

    Attributes
    ----------
    updates : int
        The updates it made.
    accuracy : float
        Its held-out recall when it stopped.
    steps_to_99 : int or None
        The update at which that recall reached 99%, null if it never did.
    """

    updates: int
    accuracy: float
    steps_to_99: int | None


@dataclass(frozen=True, kw_only=True)
class LongRun(JsonRecord):
    """The Copy RelRNN at ``length`` (Table 5's T = 1000): zero-shot, then after ``steps`` updates there.

    Attributes
    ----------
    length : int
        The long delay T.
    steps : int
        Updates trained there after the transfer test (0: none, the curriculum claim is not made).
    lr : float
        Their learning rate.
    zero_shot : float
        The recall at ``length`` of the model trained at the short delay, on the transfer
        test's held-out sequences.
    accuracy : float
        The recall after the ``steps`` updates (the zero-shot one when there were none).
    seconds_per_update : float or None
        Wall seconds per update there, null without updates.
    eval_accuracy : list of float
        The held-out recall along those updates (empty without them).
    """

    length: int
    steps: int
    lr: float
    zero_shot: float
    accuracy: float
    seconds_per_update: float | None
    eval_accuracy: list[float]


@dataclass(frozen=True, kw_only=True)
class DenoiseRun(JsonRecord):
    """One RelRNN trained on Denoise from scratch, stopping once its held-out recall reaches 99%.

    What :func:`seqmi.experiments.ch06_attention_gradients.denoise_point` records.

    Attributes
    ----------
    updates : int
        The updates it made.
    steps_to_99 : int or None
        The update at which its held-out recall reached 99%, null if it never did.
    accuracy : float
        The held-out recall on the batch it stopped on.
    fresh : FreshBatch
        Its recall on a fresh batch, which decides the claim.
    seconds_per_update : float
        Wall seconds per update.
    eval_steps : list of int
        The updates at which the held-out recall was measured.
    eval_accuracy : list of float
        That recall, at each of them.
    eval_loss : list of float
        The mean training loss since the previous measurement, at each of them.
    device : str
        The device it trained on.
    """

    updates: int
    steps_to_99: int | None
    accuracy: float
    fresh: FreshBatch
    seconds_per_update: float
    eval_steps: list[int]
    eval_accuracy: list[float]
    eval_loss: list[float]
    device: str


@dataclass(frozen=True, kw_only=True)
class DenoiseLong(DenoiseRun):
    """Table 5's Denoise run: RelRNN from scratch at the grid's largest T with the authors' recipe (Table 7).

    Attributes
    ----------
    fresh : FreshBatch or None
        Its recall on a fresh batch; absent from recordings made before the fresh batch.
    length : int
        The delay T.
    hidden : int
        Its width.
    lr : float
        Adam's learning rate.
    max_steps : int
        Its budget of updates.
    """

    fresh: FreshBatch | None = None
    length: int
    hidden: int
    lr: float
    max_steps: int


@dataclass(frozen=True, kw_only=True)
class Fig4Sweep(JsonRecord):
    """Fig. 4 at a longer delay: RelRNNs trained on Denoise from scratch, one per seed.

    Attributes
    ----------
    length : int
        The delay T.
    hidden : int
        Their width.
    lr : float
        Adam's learning rate.
    max_steps : int
        Each run's budget of updates.
    first_seed : int
        The first seed.
    replicates : int
        The seeds, from ``first_seed`` on.
    runs : dict of str to DenoiseRun
        Each seed's run, keyed by the seed.
    """

    length: int
    hidden: int
    lr: float
    max_steps: int
    first_seed: int
    replicates: int
    runs: dict[str, DenoiseRun]


@dataclass(frozen=True, kw_only=True)
class TransferTest(JsonRecord):
    """A frozen RelLSTM tested on Copy at the long delay.

    Attributes
    ----------
    length : int
        The delay T.
    sequences : int
        Held-out sequences (ten recalled symbols each).
    accuracy : float
        The share of recalled symbols predicted right.
    seconds : float
        Wall seconds of the test.
    """

    length: int
    sequences: int
    accuracy: float
    seconds: float


@dataclass(frozen=True, kw_only=True)
class RelLSTMRun(JsonRecord):
    """One RelLSTM trained on Copy at the short delay and tested at the long one (Table 5's RelLSTM column).

    Attributes
    ----------
    updates : int
        The updates it made.
    steps_to_99 : int or None
        The update at which its held-out recall reached 99%, null if it never learned Copy.
    accuracy : float
        The held-out recall on the batch it stopped on.
    fresh : FreshBatch
        Its recall at the short delay on a fresh batch.
    seconds_per_update : float
        Wall seconds per update.
    eval_steps : list of int
        The updates at which the held-out recall was measured.
    eval_accuracy : list of float
        That recall, at each of them.
    test : TransferTest
        Its recall at the long delay.
    device : str
        The device it trained on.
    """

    updates: int
    steps_to_99: int | None
    accuracy: float
    fresh: FreshBatch
    seconds_per_update: float
    eval_steps: list[int]
    eval_accuracy: list[float]
    test: TransferTest
    device: str


@dataclass(frozen=True, kw_only=True)
class RelLSTMSweep(JsonRecord):
    """Table 5's RelLSTM column by length transfer, one RelLSTM per seed.

    Attributes
    ----------
    copy_length : int
        The delay T they trained at.
    lr : float
        Adam's learning rate.
    batch : int
        Sequences per update.
    hidden : int
        Their width.
    max_steps : int
        Each run's budget of updates.
    test_length : int
        The delay T they are tested at.
    test_batch : int
        Held-out sequences of that test.
    first_seed : int
        The first seed.
    replicates : int
        The seeds, from ``first_seed`` on.
    runs : dict of str to RelLSTMRun
        Each seed's run, keyed by the seed.
    """

    copy_length: int
    lr: float
    batch: int
    hidden: int
    max_steps: int
    test_length: int
    test_batch: int
    first_seed: int
    replicates: int
    runs: dict[str, RelLSTMRun]


@dataclass(frozen=True, kw_only=True)
class Fig3Settings(JsonRecord):
    """The Fig. 3 sweep's settings, recorded with it.

    Attributes
    ----------
    steps : int
        Training updates per model.
    length : int
        The Denoise delay T.
    first_seed : int
        The first seed (those below it were the pilot's).
    held_out_batches : int
        Held-out batches each profile is averaged over.
    held_out_sequences : int
        Sequences per held-out batch.
    """

    steps: int
    length: int
    first_seed: int
    held_out_batches: int
    held_out_sequences: int


@dataclass(frozen=True, kw_only=True)
class Evaluation(JsonRecord):
    """A trained agent on fresh layouts of one environment (:func:`seqmi.recipes.ppo.evaluate_agent`).

    Attributes
    ----------
    episodes : int
        Episodes played.
    successes : int
        Episodes that reached the goal.
    success : float
        Their share.
    mean_return : float
        The mean reward, ``1 - 0.9 steps/max_steps`` on success and 0 otherwise (Table 4's number).
    mean_length : float
        The mean episode length in steps.
    """

    episodes: int
    successes: int
    success: float
    mean_return: float
    mean_length: float


@dataclass(frozen=True, kw_only=True)
class AgentRun(JsonRecord):
    """One agent trained by PPO on MiniGrid and tested unchanged (Table 4).

    Attributes
    ----------
    success_curve : list of float
        The success rate of each rollout, or of each block of rollouts in a long run.
    return_curve : list of float
        Their mean reward.
    env_steps : list of int
        Environment steps taken by the end of each.
    busy_s : float
        Seconds of training compute.
    evaluation : dict of str to Evaluation
        Its test on each environment, keyed by the environment's name.
    device : str or None
        The device it trained on; absent from the MiniGrid pilot's records.
    """

    success_curve: list[float]
    return_curve: list[float]
    env_steps: list[int]
    busy_s: float
    evaluation: dict[str, Evaluation]
    device: str | None = None


@dataclass(frozen=True, kw_only=True)
class MiniGridSweep(JsonRecord):
    """Table 4's Memory rows: agents trained on ``train_env`` and tested on it and ``test_envs``.

    Attributes
    ----------
    train_env : str
        The MiniGrid environment trained on (MemoryS7).
    test_envs : list of str
        The larger ones tested on, the last one the transfer claim's.
    kinds : list of {"lstm", "full", "relevancy"}
        The agent kinds trained.
    replicates : int
        Seeds per kind.
    first_seed : int or None
        The first seed; absent from the pilot, recorded before the sweep had one (its seeds start at 0).
    updates : int
        PPO rollouts per agent.
    n_envs : int
        Episodes per rollout.
    eval_episodes : int
        Test episodes per environment.
    lr : float
        Adam's learning rate.
    runs : dict of str to AgentRun
        Each agent, keyed ``"kind/seed"``.
    """

    train_env: str
    test_envs: list[str]
    kinds: list[AgentKind]
    replicates: int
    first_seed: int | None = None
    updates: int
    n_envs: int
    eval_episodes: int
    lr: float
    runs: dict[str, AgentRun]


@dataclass(frozen=True, kw_only=True)
class RLTransferSweep(JsonRecord):
    """Table 4's DoorKey and RedBlueDoors rows: agents trained on a small room, tested on it and a large one.

    Attributes
    ----------
    pairs : list of str
        The pairs trained (keys of :data:`seqmi.experiments.ch06_records.RL_PAIRS`).
    kinds : list of {"lstm", "full", "relevancy"}
        The agent kinds trained.
    replicates : int
        Seeds per kind and pair.
    first_seed : int
        The first seed.
    updates : int
        PPO rollouts per agent.
    n_envs : int
        Episodes per rollout.
    eval_episodes : int
        Test episodes per room.
    lr : float
        Adam's learning rate.
    runs : dict of str to AgentRun
        Each agent, keyed ``"pair/kind/seed"``.
    """

    pairs: list[str]
    kinds: list[AgentKind]
    replicates: int
    first_seed: int
    updates: int
    n_envs: int
    eval_episodes: int
    lr: float
    runs: dict[str, AgentRun]


@dataclass(frozen=True, kw_only=True)
class CostPoint(JsonRecord):
    """One forward and backward pass on Copy (batch 4) at one length.

    Attributes
    ----------
    seconds : float
        Its wall time.
    saved_bytes : int
        Bytes of the tensors autograd saved for the backward pass.
    """

    seconds: float
    saved_bytes: int


@dataclass(frozen=True, kw_only=True)
class CostExponents(JsonRecord):
    """How one model's cost grows with the length, from the two largest lengths (supplement Sec. C).

    Attributes
    ----------
    time : float
        The exponent of the wall time.
    memory : float
        The exponent of the bytes saved for backward (1: linear, 2: quadratic).
    """

    time: float
    memory: float


@dataclass(frozen=True, kw_only=True)
class Settings(JsonRecord):
    """The sizes a whole run states beside its numbers.

    Attributes
    ----------
    eval_batch : int
        Held-out sequences a grid run is scored on.
    transfer_batch : int
        Held-out sequences of the length-transfer test, at each T.
    task_replicates : int or None
        Runs per grid point, pooled; absent from recordings that made one.
    profile_steps : int or None
        Training updates per Fig. 3 model, in recordings made before ``fig3_settings``.
    profile_length : int or None
        The Fig. 3 Denoise delay T, in those recordings.
    profile_replicates : int or None
        Seeds per Fig. 3 setting, in those recordings.
    """

    eval_batch: int
    transfer_batch: int
    task_replicates: int | None = None
    profile_steps: int | None = None
    profile_length: int | None = None
    profile_replicates: int | None = None


@dataclass(frozen=True, kw_only=True)
class Results(ChapterResults):
    """What chapter 06 saves; a recording begun from one section holds that section's fields alone.

    Attributes
    ----------
    decomposition_max_rel_error : dict of str to float or None
        The largest relative difference between the path recursion (Lemmas 1-4, Prop. 1) and
        autograd in float64, per attention kind.
    xi_enumeration_max_error : float or None
        The largest difference between the path sums by dynamic programming and by
        enumerating every index tuple (eq. 42).
    w_identities_ok : bool or None
        Whether Lemma 9 and Prop. 3's expressions of w(s) hold for s <= 6 (eqs. 150-183).
    w4_printed_rel_error : float or None
        The relative error of the printed w(4) (eqs. 144-149).
    lemma10_ok, lemma11_ok : bool or None
        Whether Lemma 10's theta bounds and Lemma 11's chi bounds hold (eqs. 195, 221).
    harmonic_2n_eps : list of float or None
        ``2n eps_n`` of the harmonic sums at n = 10 to 10,000 (eqs. 133-137).
    lemma12_ks : list of int or None
        The distances k of the Lemma 12 check.
    lemma12_scaled_remainder : dict of str to list of float, or None
        Per s, chi(s) minus its lower sum, times t + k, at each of ``lemma12_ks`` (eq. 232).
    lemma12_growth_per_log : dict of str to float or None
        Per s, the growth of that remainder per unit ``ln T`` over the last two distances.
    no_attention_rate, no_attention_rate_predicted : float or None
        The fitted decay rate of ``||V^k||`` without attention, and ``-ln rho(V)`` (supplement A).
    uniform_lambdas : list of float or None
        The eigenvalues lambda of the scalar uniform-attention curves (Prop. 4).
    uniform_fitted, uniform_exact, uniform_supplement : list of float or None
        Their fitted, exact and printed decay exponents (see :class:`UniformSpectrum`).
    uniform_matrix : dict of str to UniformSpectrum, or None
        The same for recurrent matrices, keyed by their names.
    uniform_fit_vs_exact_max : float or None
        The largest difference between fitted and exact exponents over every spectrum.
    uniform_autograd_check : float or None
        The largest relative difference between the uniform recursion and autograd.
    theorem1_fails : list of str or None
        The spectra whose fitted exponent exceeds Theorem 1's bound by more than 0.05.
    growing_lambdas : list of str or None
        The eigenvalues whose gradient grows with T.
    sparse_rows : list of SparseLevel or None
        Theorem 2's pattern built for the bound, per (kappa, depth).
    sparse_autograd_check : float or None
        The largest relative difference between the sparse recursion and autograd.
    pattern_lams : list of float or None
        The diagonal of V for the patterns not built for the bound.
    pattern_rows : list of PatternSurvey or None
        Those patterns, per kind and kappa.
    pattern_horizon : int or None
        Their steps T.
    copy_run : CopyRun or None
        RelRNN on Copy at the short delay (section copy-denoise).
    transfer : dict of str to dict of str to float, or None
        Per model kind, its held-out recall at each tested T (keyed by T) after training at
        the short delay (section copy-denoise).
    transfer_training : dict of str to TransferTraining, or None
        Per model kind, how it learned Copy at the short delay.
    symbol_attention_mass : dict of str to dict of str to float, or None
        Per attentive kind, the attention the recall steps put on the symbol states, at each T.
    long_run : LongRun or None
        The Copy RelRNN at Table 5's long delay.
    task_accuracy : dict of str to float or None
        The grid's held-out recall per ``"task/T/kind"``, pooled over its runs.
    task_curves : dict of str to list of float, or None
        The grid's training losses per update, per ``"task/T/kind"`` (figure data).
    task_lengths : list of int or None
        The grid's delays T.
    train_steps : int or None
        The grid's updates per run.
    task_accuracy_replicates : dict of str to list of float, or None
        The grid's recall per run; absent from recordings made before it had several.
    denoise_long : DenoiseLong or None
        Table 5's Denoise run with the authors' recipe (section copy-denoise); absent from
        recordings made before it.
    denoise_fig4 : Fig4Sweep or None
        Fig. 4 at a longer delay (section fig4).
    rellstm_copy : RelLSTMSweep or None
        Table 5's RelLSTM column (section rellstm).
    gradient_profiles : dict of str to list of float or list of list of float, or None
        Fig. 3's ``||grad_{h_t} L||`` at every step, per ``"nu=V,rho=R"``: one profile per
        seed, or a bare one in recordings of one seed (section fig3).
    gradient_accuracy : dict of str to list of float, or None
        Each Fig. 3 model's held-out recall, per seed; absent from recordings made before it.
    gradient_spread : dict of str to float or list of float, or None
        The decades between the largest and smallest norm of each profile, which recordings
        made before the fitted decay kept (read by nothing now).
    fig3_settings : Fig3Settings or None
        The Fig. 3 sweep's settings; absent from recordings that kept them in ``settings``.
    minigrid : MiniGridSweep or None
        Table 4's Memory rows (section table4).
    rl_transfer : RLTransferSweep or None
        Table 4's DoorKey and RedBlueDoors rows (section table4-transfer).
    cost : dict of str to CostPoint, or None
        One pass per ``"kind/T"`` (supplement Sec. C).
    cost_exponents : dict of str to CostExponents, or None
        Per kind, the growth of its cost with T.
    horizon : int or None
        The largest T of the uniform-attention curves.
    fit_from : int or None
        The smallest T of the exponent fits.
    horizon_sparse : int or None
        The largest T of the sparse-attention curves.
    settings : Settings or None
        The sizes a whole run states; its presence marks a whole run.
    """

    decomposition_max_rel_error: dict[str, float] | None = None
    xi_enumeration_max_error: float | None = None
    w_identities_ok: bool | None = None
    w4_printed_rel_error: float | None = None
    lemma10_ok: bool | None = None
    lemma11_ok: bool | None = None
    harmonic_2n_eps: list[float] | None = None
    lemma12_ks: list[int] | None = None
    lemma12_scaled_remainder: dict[str, list[float]] | None = None
    lemma12_growth_per_log: dict[str, float] | None = None
    no_attention_rate: float | None = None
    no_attention_rate_predicted: float | None = None
    uniform_lambdas: list[float] | None = None
    uniform_fitted: list[float] | None = None
    uniform_exact: list[float] | None = None
    uniform_supplement: list[float] | None = None
    uniform_matrix: dict[str, UniformSpectrum] | None = None
    uniform_fit_vs_exact_max: float | None = None
    uniform_autograd_check: float | None = None
    theorem1_fails: list[str] | None = None
    growing_lambdas: list[str] | None = None
    sparse_rows: list[SparseLevel] | None = None
    sparse_autograd_check: float | None = None
    pattern_lams: list[float] | None = None
    pattern_rows: list[PatternSurvey] | None = None
    pattern_horizon: int | None = None
    copy_run: CopyRun | None = None
    transfer: dict[str, dict[str, float]] | None = None
    transfer_training: dict[str, TransferTraining] | None = None
    symbol_attention_mass: dict[str, dict[str, float]] | None = None
    long_run: LongRun | None = None
    task_accuracy: dict[str, float] | None = None
    task_curves: dict[str, list[float]] | None = None
    task_lengths: list[int] | None = None
    train_steps: int | None = None
    task_accuracy_replicates: dict[str, list[float]] | None = None
    denoise_long: DenoiseLong | None = None
    denoise_fig4: Fig4Sweep | None = None
    rellstm_copy: RelLSTMSweep | None = None
    gradient_profiles: dict[str, list[float] | list[list[float]]] | None = None
    gradient_accuracy: dict[str, list[float]] | None = None
    gradient_spread: dict[str, float | list[float]] | None = None
    fig3_settings: Fig3Settings | None = None
    minigrid: MiniGridSweep | None = None
    rl_transfer: RLTransferSweep | None = None
    cost: dict[str, CostPoint] | None = None
    cost_exponents: dict[str, CostExponents] | None = None
    horizon: int | None = None
    fit_from: int | None = None
    horizon_sparse: int | None = None
    settings: Settings | None = None
