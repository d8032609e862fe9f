"""Settings of chapter 02: binary sequences with designed power-law MI (Shen 2019 Sec. 4.1, App. C)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqmi.device import DeviceLike, check_device
from seqmi.validate import check_float, check_int


@dataclass(frozen=True)
class DesignSettings:
    """What chapter 02 reads: the designed sequences, the fits, the bias checks and App. C's sequences.

    Attributes
    ----------
    n_seq, length : int
        Sequences per designed exponent (at least ``n_batches``) and their symbols.
    max_lag : int
        Largest distance ``tau`` estimated, below ``length``.
    amplitude : float
        ``A`` of the design ``I(tau) ~ A tau^-gamma``, below ``ln 2`` (a binary symbol's
        entropy).
    gamma_min, gamma_max : float
        Smallest and largest designed exponent.
    n_gamma : int
        Exponents, evenly spaced, 1 to 50.
    mi_floor : float
        Only ``I(tau)`` above this enters fits and comparisons (below ``amplitude``).
    gamma_check_max : float
        The largest designed exponent whose recovery is claimed.
    n_batches : int
        Groups of sequences for batch-means standard errors.
    bias_group : int
        Sequences per small sample in the estimator-bias comparison (at most ``n_seq / 10``).
    bias_gamma : float
        Designed exponent of the data of that comparison.
    bias_pairs, bias_replicates : int
        Independent pairs per sample and samples per alphabet size in the alphabet-size
        comparison.
    rep_n_seq, rep_length, rep_max_lag, rep_n_p : int
        App. C's repetitive sequences: how many per ``p``, their length, the largest
        distance, and the values of ``p``.
    seed : int
        The chapter's seed.
    device : str or torch.device
        Where the FFT pair counting runs.
    """

    n_seq: int
    length: int
    max_lag: int
    amplitude: float
    gamma_min: float
    gamma_max: float
    n_gamma: int
    mi_floor: float
    gamma_check_max: float
    n_batches: int
    bias_group: int
    bias_gamma: float
    bias_pairs: int
    bias_replicates: int
    rep_n_seq: int
    rep_length: int
    rep_max_lag: int
    rep_n_p: int
    seed: int = 0
    device: DeviceLike = "auto"

    def __post_init__(self) -> None:
        check_int("n_batches", self.n_batches, 2)
        check_int("n_seq", self.n_seq, self.n_batches)
        check_int("length", self.length, 3)
        check_int("max_lag", self.max_lag, 2, self.length - 1)
        check_float("amplitude", self.amplitude, 0.0, float(np.log(2)), low_open=True, high_open=True)
        check_float("gamma_min", self.gamma_min, 0.0, low_open=True)
        check_float("gamma_max", self.gamma_max, self.gamma_min)
        check_int("n_gamma", self.n_gamma, 1, 50)
        check_float("mi_floor", self.mi_floor, 0.0, self.amplitude, low_open=True, high_open=True)
        check_float("gamma_check_max", self.gamma_check_max, self.gamma_min)
        check_int("bias_group", self.bias_group, 1, self.n_seq // 10)
        check_float("bias_gamma", self.bias_gamma, 0.0, low_open=True)
        check_int("bias_pairs", self.bias_pairs, 256)
        check_int("bias_replicates", self.bias_replicates, 10)
        check_int("rep_n_seq", self.rep_n_seq, self.n_batches)
        check_int("rep_length", self.rep_length, 4)
        check_int("rep_max_lag", self.rep_max_lag, 2, self.rep_length - 1)
        check_int("rep_n_p", self.rep_n_p, 1, 50)
        check_int("seed", self.seed, 0)
        check_device(self.device)
