"""When a training run counts as converged: the criterion every trained claim reads.

It needs no torch: the claim rules (:mod:`seqmi.claims`) apply it to recorded validation
histories, and :mod:`seqmi.train` flags each run with it as it trains.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from seqmi.validate import check_float, check_int

CONVERGE_EPOCHS = 2  # the window of :func:`converged`, in evaluations (epochs)
CONVERGE_TOL = 0.01  # ... and the relative improvement of the best metric below which it stalled


def converged(eval_metric: Sequence[float], stop_reason: str | None, window: int = CONVERGE_EPOCHS,
              tol: float = CONVERGE_TOL) -> bool:
    """Whether a run had converged when it stopped (lower metric is better).

    It converged when early stopping ended it (``stop_reason == "patience"``), or when
    its best metric improved by less than ``tol`` (relative) over its last ``window``
    evaluations: a run stopped by its epoch limit while still improving faster than that
    did not converge, whatever its schedule had done to the learning rate.

    Parameters
    ----------
    eval_metric : sequence of float
        The run's evaluations in order (one per epoch for the language-model task).
    stop_reason : str or None
        ``Member.stopped`` (``TrainResult.stop_reasons``).
    window : int
    tol : float

    Returns
    -------
    bool
    """
    check_int("window", window, 1)
    check_float("tol", tol, 0.0)
    if stop_reason == "patience":
        return True
    values = np.asarray(eval_metric, dtype=float)
    if values.size <= window or not np.isfinite(values).all():
        return False
    before, best = float(values[:-window].min()), float(values.min())
    return (before - best) <= tol * abs(before)
