"""The settings records of chapter 06: what its exact sections read, and what the points of each sweep share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from seqmi.device import DeviceLike, check_device
from seqmi.experiments.ch06_records import FRESH_BATCH
from seqmi.recipes.ppo import PPOConfig, make_env
from seqmi.sweep import unkeyed
from seqmi.validate import check_choice, check_float, check_int, check_int_list, check_type


@dataclass(frozen=True)
class ExactSettings:
    """What the chapter's exact sections read: the decomposition check, the decay curves, the patterns.

    Attributes
    ----------
    hidden_check, length_check, n_check : int
        Width (at most 32) and sequence length (4 to 64) of the random networks of the
        decomposition check, and networks per attention kind and nonlinearity.
    horizon, fit_from : int
        Largest ``T`` of the exact uniform-attention decay curves, and the smallest
        ``T`` of the exponent fits (at most ``horizon / 2``).
    horizon_autograd : int
        ``T`` of the autograd cross-check of the decay curves.
    horizon_sparse : int
        Largest ``T`` of the sparse-attention curves.
    pattern_kappas : list of int
        ``kappa`` of the random and sliding-window patterns (2 to 64).
    n_patterns, pattern_horizon : int
        Random ``kappa``-sparse patterns per ``kappa``, and their steps.
    chi_k_max : int
        Largest ``k`` of the Lemma 10-12 checks.
    seed : int
        The chapter's seed.
    """

    hidden_check: int
    length_check: int
    n_check: int
    horizon: int
    fit_from: int
    horizon_autograd: int
    horizon_sparse: int
    pattern_kappas: Sequence[int]
    n_patterns: int
    pattern_horizon: int
    chi_k_max: int
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("hidden_check", self.hidden_check, 1, 32)
        check_int("length_check", self.length_check, 4, 64)
        check_int("n_check", self.n_check, 1, 100)
        check_int("horizon", self.horizon, 100, 10**7)
        check_int("fit_from", self.fit_from, 10, self.horizon // 2)
        check_int("horizon_autograd", self.horizon_autograd, 20, 2000)
        check_int("horizon_sparse", self.horizon_sparse, 200, 10**6)
        check_int_list("pattern_kappas", self.pattern_kappas, 2, 64)
        check_int("n_patterns", self.n_patterns, 1, 10**4)
        check_int("pattern_horizon", self.pattern_horizon, 200, 10**6)
        check_int("chi_k_max", self.chi_k_max, 100, 10**6)
        check_int("seed", self.seed, 0)


@dataclass(frozen=True)
class GridSettings:
    """What every point of the Table 5 grid shares.

    Attributes
    ----------
    hidden : int
        Width of the models.
    steps, batch : int
        Training updates and sequences per update.
    lr : float
        Adam learning rate.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    steps: int
    batch: int
    lr: float
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("steps", self.steps, 1)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_device(self.device)


@dataclass(frozen=True)
class TransferSettings:
    """What every point of the length-transfer sweep shares.

    Attributes
    ----------
    hidden : int
        Width of the models.
    copy_length : int
        Delay ``T`` of the Copy task the models are trained on.
    copy_steps, eval_every, batch : int
        Most updates (a run stops once held-out recall reaches :data:`TARGET`), updates
        between held-out evaluations, sequences per update.
    lr : float
        Adam learning rate.
    transfer_lengths : tuple of int
        Delays at which the trained models are tested.
    transfer_batch : int
        Held-out sequences per tested delay.
    long_length, long_steps : int
        RelRNN is fine-tuned for ``long_steps`` updates at delay ``long_length`` after
        the test (0: not at all).
    long_lr : float
        Adam learning rate of that fine-tuning.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    fresh_batch : int
        Sequences of the fresh held-out batch each model is scored on at ``copy_length``
        after its run stops (:func:`~seqmi.recipes.copy_tasks.fresh_recall`): the batch
        the run stopped on chose the reported update, this one did not.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    copy_length: int
    copy_steps: int
    eval_every: int
    batch: int
    lr: float
    transfer_lengths: tuple[int, ...]
    transfer_batch: int
    long_length: int
    long_steps: int
    long_lr: float
    seed: int
    fresh_batch: int = FRESH_BATCH
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("copy_length", self.copy_length, 1)
        check_int("copy_steps", self.copy_steps, 1)
        check_int("eval_every", self.eval_every, 1, self.copy_steps)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_type("transfer_lengths", self.transfer_lengths, tuple)
        check_int_list("transfer_lengths", list(self.transfer_lengths), 1)
        check_int("transfer_batch", self.transfer_batch, 1)
        check_choice("long_length", self.long_length, self.transfer_lengths)
        check_int("long_steps", self.long_steps, 0)
        check_float("long_lr", self.long_lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_int("fresh_batch", self.fresh_batch, 1)
        check_device(self.device)


@dataclass(frozen=True)
class DenoiseSettings:
    """What a long RelRNN run on Denoise shares with its replicates.

    Attributes
    ----------
    hidden : int
        Width of the model (the authors': 128).
    length : int
        Delay ``T`` of the Denoise task.
    steps, eval_every, batch : int
        Most updates (the authors' budget: 200,000; a run stops once held-out recall
        reaches :data:`TARGET`), updates between held-out evaluations, sequences per update.
    lr : float
        Adam learning rate.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    fresh_batch : int
        Sequences of the fresh held-out batch the trained model is scored on
        (:func:`~seqmi.recipes.copy_tasks.fresh_recall`), which the stopping rule never saw.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    length: int
    steps: int
    eval_every: int
    batch: int
    lr: float
    seed: int
    fresh_batch: int = FRESH_BATCH
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("length", self.length, 10)  # Denoise spreads its 10 symbols over T steps
        check_int("steps", self.steps, 1)
        check_int("eval_every", self.eval_every, 1, self.steps)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_int("fresh_batch", self.fresh_batch, 1)
        check_device(self.device)


@dataclass(frozen=True)
class ProfileSettings:
    """What every point of the gradient-profile sweep (Fig. 3) shares.

    Attributes
    ----------
    hidden : int
        Width of the models.
    length : int
        Delay ``T`` of the Denoise task.
    steps, batch : int
        Training updates and sequences per update.
    lr : float
        Adam learning rate.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    n_held_out : int
        Sequences per held-out batch (a batch's norms are their mean).
    held_out_batches : int
        Held-out batches a model's profile is averaged over: the symbols sit at other
        steps in every batch, so one batch's profile is noisy.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    length: int
    steps: int
    batch: int
    lr: float
    seed: int
    n_held_out: int = 32
    held_out_batches: int = 32
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("length", self.length, 10)  # Denoise spreads its 10 symbols over T steps
        check_int("steps", self.steps, 1)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("seed", self.seed, 0)
        check_int("n_held_out", self.n_held_out, 1)
        check_int("held_out_batches", self.held_out_batches, 1)
        check_device(self.device)


@dataclass(frozen=True)
class MiniGridSettings:
    """What every agent of the MiniGrid sweep (Table 4) shares.

    Attributes
    ----------
    train_env : str
        The MiniGrid environment the agents are trained on.
    test_envs : tuple of str
        Larger environments the trained agents are tested on, unchanged.
    hidden : int
        Width of the view embedding and of the core.
    nu, rho : int
        RelLSTM's buffer and relevant-set sizes (the authors': 5, 5).
    ppo : PPOConfig
        The training run.
    eval_episodes : int
        Fresh episodes per tested environment.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    train_env: str
    test_envs: tuple[str, ...]
    hidden: int
    nu: int
    rho: int
    ppo: PPOConfig
    eval_episodes: int
    seed: int
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        for env_id in (self.train_env, *check_type("test_envs", self.test_envs, tuple)):
            # the agents' views and the claims are those of the Memory tasks
            if not str(env_id).startswith("MiniGrid-MemoryS"):
                raise ValueError(f"the MiniGrid environments must be Memory tasks 'MiniGrid-MemoryS<size>-v0', "
                                 f"got {env_id!r}")
            make_env(env_id).close()
        check_int("hidden", self.hidden, 1)
        check_int("nu", self.nu, 1)
        check_int("rho", self.rho, 1)
        check_type("ppo", self.ppo, PPOConfig)
        check_int("eval_episodes", self.eval_episodes, 1)
        check_int("seed", self.seed, 0)
        check_device(self.device)


@dataclass(frozen=True)
class RLTransferSettings:
    """What every agent of Table 4's transfer sweep (DoorKey, RedBlueDoors) shares.

    Attributes
    ----------
    hidden : int
        Width of the view embedding and of the core.
    nu, rho : int
        RelLSTM's buffer and relevant-set sizes (the authors': 5, 5).
    ppo : PPOConfig
        The training run on the small room.
    eval_episodes : int
        Fresh episodes per tested environment (the small room and the large one).
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    full_eval_batch : int
        Episodes MemLSTM plays together in a test (the other kinds: 100). MemLSTM stacks
        its whole memory at every step, and the allocator keeps what the stacks took: 10
        episodes of DoorKey-16x16 (up to 2,560 steps) held 12 GB, 4 held 3 GB (measured).
    device : str or torch.device
        Resolved where a point is computed (``"auto"``: the worker's GPU if it has one);
        not part of the cache keys.
    """

    hidden: int
    nu: int
    rho: int
    ppo: PPOConfig
    eval_episodes: int
    seed: int
    full_eval_batch: int = 4
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 1)
        check_int("nu", self.nu, 1)
        check_int("rho", self.rho, 1)
        check_type("ppo", self.ppo, PPOConfig)
        check_int("eval_episodes", self.eval_episodes, 1)
        check_int("seed", self.seed, 0)
        check_int("full_eval_batch", self.full_eval_batch, 1)
        check_device(self.device)


@dataclass(frozen=True)
class RelLSTMSettings:
    """What every RelLSTM of the Table 5 sweep shares: the length-transfer recipe of RelRNN's row.

    Attributes
    ----------
    hidden : int
        Width of the core.
    copy_length : int
        Delay ``T`` of the Copy task it is trained on.
    copy_steps, eval_every, batch : int
        Most updates (a run stops once held-out recall reaches :data:`TARGET`), updates
        between held-out evaluations, sequences per update.
    lr : float
        Adam learning rate.
    test_length : int
        The Table 5 delay it is tested at, frozen.
    test_batch : int
        Held-out sequences at ``test_length``, under the test's own seed.
    seed : int
        The chapter's seed; every stream is a :func:`~seqmi.rng.child_seed` of it.
    fresh_batch : int
        Sequences of the fresh batch it is scored on at ``copy_length`` after its run
        stops (:func:`~seqmi.recipes.copy_tasks.fresh_recall`).
    device : str or torch.device
        Resolved where a point is computed; not part of the cache keys.
    """

    hidden: int
    copy_length: int
    copy_steps: int
    eval_every: int
    batch: int
    lr: float
    test_length: int
    test_batch: int
    seed: int
    fresh_batch: int = FRESH_BATCH
    device: DeviceLike = unkeyed("cpu")

    def __post_init__(self) -> None:
        check_int("hidden", self.hidden, 2)
        check_int("copy_length", self.copy_length, 1)
        check_int("copy_steps", self.copy_steps, 1)
        check_int("eval_every", self.eval_every, 1, self.copy_steps)
        check_int("batch", self.batch, 1)
        check_float("lr", self.lr, 0.0, 1.0, low_open=True, high_open=True)
        check_int("test_length", self.test_length, 1)
        check_int("test_batch", self.test_batch, 1)
        check_int("seed", self.seed, 0)
        check_int("fresh_batch", self.fresh_batch, 1)
        check_device(self.device)
