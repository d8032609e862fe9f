"""Settings of chapter 00: the estimators checked on a binary Markov chain, whose MI is known exactly."""

from __future__ import annotations

from dataclasses import dataclass

from seqmi.device import DeviceLike, check_device
from seqmi.validate import check_float, check_int


@dataclass(frozen=True)
class ChainSettings:
    """What chapter 00 reads: the sampled chain, the estimates and their comparison.

    Attributes
    ----------
    n_seq, length : int
        Independent sequences of ``length`` symbols (at least ``n_batches`` sequences).
    q : float
        Flip probability of the chain, ``0 < q < 1/2``.
    max_lag : int
        Largest distance ``tau`` estimated, below ``length``.
    n_batches : int
        Groups of sequences for batch-means standard errors (at least 2).
    bipartite_length : int
        ``L`` of the exact bipartite check (``2**L`` sequences enumerated, ``L <= 20``).
    mi_floor, fit_ceiling : float
        Estimates are compared above ``mi_floor``; the correlation-length fit uses the
        points between it and ``fit_ceiling`` (where the decay is asymptotic).
    seed : int
        The chapter's seed.
    device : str or torch.device
        Where it computes (``"auto"``: a GPU if there is one).
    """

    n_seq: int
    length: int
    q: float
    max_lag: int
    n_batches: int
    bipartite_length: int
    mi_floor: float
    fit_ceiling: float
    seed: int = 0
    device: DeviceLike = "auto"

    def __post_init__(self) -> None:
        check_int("seed", self.seed, 0)
        check_device(self.device)
        check_int("n_batches", self.n_batches, 2)
        check_int("n_seq", self.n_seq, self.n_batches)
        check_int("length", self.length, 2)
        check_float("q", self.q, 0.0, 0.5, low_open=True, high_open=True)
        check_int("max_lag", self.max_lag, 1, self.length - 1)
        check_int("bipartite_length", self.bipartite_length, 2, 20)
        check_float("mi_floor", self.mi_floor, 0.0, low_open=True)
        check_float("fit_ceiling", self.fit_ceiling, self.mi_floor, low_open=True)
