"""How a model's ``I(tau)`` compares with the text's, and how a held-out split's compares with its training split's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from seqmi.info import two_point_mi
from seqmi.validate import check_int


def curve_gap(mi: ArrayLike, ref: ArrayLike, keep: ArrayLike) -> float:
    """How far a model's ``I(tau)`` is from the text's: mean ``|ln I - ln I_ref|`` over ``keep``.

    Only lags where both curves are positive count (the bias-corrected estimator can dip
    below 0 at the floor); NaN when none does.
    """
    mi, ref, keep = np.asarray(mi, dtype=float), np.asarray(ref, dtype=float), np.asarray(keep, dtype=bool)
    if mi.ndim != 1 or mi.shape != ref.shape or mi.shape != keep.shape:
        raise ValueError(f"mi, ref and keep must be curves over the same lags, got shapes {mi.shape}, {ref.shape} "
                         f"and {keep.shape}")
    use = keep & (mi > 0) & (ref > 0)
    return float(np.abs(np.log(mi[use]) - np.log(ref[use])).mean()) if use.any() else float("nan")


def reference_curves(rows: ArrayLike, n_rows: int, max_lag: int, seed: int) -> list[np.ndarray]:
    """The text's ``I(tau)``, ``tau = 1..max_lag``, on disjoint random samples of ``n_rows`` of its ``rows``.

    As many samples as the rows hold (one of all rows when there are fewer than
    ``n_rows``): the references of :func:`set_gaps`, each of the size of one sample set.
    """
    rows = np.asarray(rows)
    check_int("n_rows", n_rows, 1)
    n = min(n_rows, len(rows))
    order = np.random.default_rng(seed).permutation(len(rows))
    return [two_point_mi(rows[np.sort(order[i * n:(i + 1) * n])], max_lag) for i in range(len(rows) // n)]


def set_gaps(mi_sets: Sequence[ArrayLike], refs: Sequence[ArrayLike], keep: ArrayLike) -> list[float]:
    """:func:`curve_gap` of every sample set of a model, set ``k`` against ``refs[k % len(refs)]``.

    ``refs`` are the text's curves on disjoint samples of the size of one set: the
    reference shares each set's estimator floor, and comparisons of two models pair their
    sets by index, so that both meet the same text sample and its noise cancels from the
    difference. The values over sets are the replicates of a Student-t interval.
    """
    if not refs:
        raise ValueError("set_gaps needs at least one reference curve")
    return [curve_gap(m, refs[k % len(refs)], keep) for k, m in enumerate(mi_sets)]


def subsample_control(train_rows: np.ndarray, valid_mi: np.ndarray, train_mi: np.ndarray, n_rows: int,
                      start: int, rng: np.random.Generator, draws: int = 10) -> dict[str, float]:
    """Is a held-out split's long-range MI the estimator's floor at its size? (App. D.2's control)

    The mean ``I(tau >= start)`` of the validation split and of the whole training split,
    each as a z-score against ``draws`` random subsamples of the training split with the
    validation split's ``n_rows`` rows: a validation curve within the subsamples' spread,
    and a whole training split far below it, is a sample-size effect, not the split's.

    Parameters
    ----------
    train_rows : ndarray, shape (rows, row_length)
        The training split's symbol rows.
    valid_mi, train_mi : ndarray, shape (max_lag,)
        ``I(tau)`` of the validation split and of the whole training split, ``tau = 1..max_lag``.
    n_rows : int
        Rows per subsample (the validation split's).
    start : int
        First lag of the long range.
    rng : numpy.random.Generator
        Draws the subsamples (``draws`` calls, in order).
    draws : int
        Subsamples.

    Returns
    -------
    dict
        ``valid``, ``train`` (the two means), ``null_mean`` and ``null_sd`` (over the
        subsamples), ``z_valid`` and ``z_train``.
    """
    max_lag = len(valid_mi)
    check_int("n_rows", n_rows, 2, len(train_rows))
    check_int("start", start, 1, max_lag)
    check_int("draws", draws, 2)
    far = slice(start - 1, max_lag)
    picks = [np.sort(rng.choice(len(train_rows), n_rows, replace=False)) for _ in range(draws)]
    null = np.array([two_point_mi(train_rows[d], max_lag)[far].mean() for d in picks])
    v, t = valid_mi[far].mean(), train_mi[far].mean()
    mean, sd = null.mean(), null.std(ddof=1)
    return {"valid": float(v), "train": float(t), "null_mean": float(mean), "null_sd": float(sd),
            "z_valid": float((v - mean) / sd), "z_train": float((t - mean) / sd)}


def long_range_shape(split: tuple[np.ndarray, np.ndarray], train: tuple[np.ndarray, np.ndarray],
                     start: int) -> dict[str, float]:
    """Shen's App. D.2 reading of a held-out split against its training split, at ``tau >= start``.

    Shen reports WikiText-2's validation MI "much larger" than the training set's at long
    range and without the algebraic decay. Both are linear statistics of the curves, so
    their standard errors come from batch means (:func:`seqmi.info.two_point_mi_batches`).

    Parameters
    ----------
    split, train : (estimate, batches)
        :func:`seqmi.info.two_point_mi_batches` of the held-out split and of the training
        split, over the same lags ``tau = 1..max_lag``.
    start : int
        First lag of the long range; its first and last thirds measure the decay.

    Returns
    -------
    dict
        ``excess`` (mean ``I`` of the split minus the training split's over the long range)
        and ``excess_se``; ``decay`` (the split's mean ``I`` over the first third of the
        range minus over the last third, positive where it decays) and ``decay_se``; the
        same ``train_decay`` and ``train_decay_se`` of the training split.
    """
    (est, batches), (train_est, train_batches) = split, train
    if est.shape != train_est.shape or batches.shape[1:] != est.shape or train_batches.shape[1:] != est.shape:
        raise ValueError(f"the split's and the training split's curves must share their lags, got shapes "
                         f"{est.shape}, {batches.shape}, {train_est.shape} and {train_batches.shape}")
    check_int("start", start, 1, len(est) - 2)
    far = np.arange(start - 1, len(est))
    third = len(far) // 3
    early, late = far[:third], far[-third:]

    def stat(curve: np.ndarray, other: np.ndarray | None = None) -> np.ndarray:
        # along the last axis: a curve gives a number, a stack of batch curves one per batch
        return curve[..., far].mean(-1) - (other[..., far].mean(-1) if other is not None else 0.0)

    def se(values: np.ndarray) -> float:
        return float(values.std(ddof=1) / np.sqrt(len(values)))

    def decay(curve: np.ndarray) -> np.ndarray:
        return curve[..., early].mean(-1) - curve[..., late].mean(-1)

    return {"excess": float(stat(est, train_est)), "excess_se": float(np.hypot(se(stat(batches)),
                                                                               se(stat(train_batches)))),
            "decay": float(decay(est)), "decay_se": se(decay(batches)),
            "train_decay": float(decay(train_est)), "train_decay_se": se(decay(train_batches))}
