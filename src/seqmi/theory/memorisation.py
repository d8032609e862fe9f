"""Proposition A.8 put to the test: SSMs of each hidden size trained to memorise an alternating set.

Proposition A.8 of Nandakumar et al. says that a single-layer SSM with ``m < N - 2``
hidden neurons cannot fit the targets ``y_j = (-1)^j`` on inputs along a line
(:func:`~seqmi.theory.ngram_ssm.alternating_task`): its output is piecewise linear with
at most ``m + 1`` pieces along the line, each piece changes sign at most once, and the
targets change sign ``N - 1`` times. So some output has the wrong sign, and its error
``|f(x_j) - y_j|`` is at least 1. Proposition 4.5's construction fits them with
``m = N``. :func:`train_memorising_ssms` trains the same model,
``h_t = A h_{t-1} + B x_t``, ``f = C ReLU(h_T + b)``
(:class:`~seqmi.theory.ngram_ssm.SSMWeights`), by gradient descent at given sizes ``m``
(Adam through :func:`seqmi.train.fit`), so that the bound can be seen to bite on models
that were made to fit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from seqmi._optional import require

require("torch")  # first, so that a missing torch fails naming the extra that installs it

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from seqmi.rng import child_seed
from seqmi.theory.ngram_ssm import SSMWeights, memorising_ssm, random_line_ssm
from seqmi.train import Batches, Member, Task, TrainConfig, fit
from seqmi.validate import check_float, check_int, check_int_list

Array = NDArray[np.float64]


def min_sign_errors(n_points: int, hidden_size: int) -> int:
    """Fewest wrong signs an SSM with ``hidden_size`` neurons makes on ``n_points`` alternating targets.

    The piece counting of Proposition A.8, made quantitative: the outputs along the line
    change sign at most ``m + 1`` times (once per linear piece), while the targets
    change sign ``N - 1`` times, and each wrong sign removes at most two of the
    target's sign changes from the points that are right. So at least
    ``ceil((N - 2 - m) / 2)`` signs are wrong, at least one whenever ``m < N - 2``.
    """
    N = check_int("n_points", n_points, 2)
    m = check_int("hidden_size", hidden_size, 1)
    return max(0, math.ceil((N - 2 - m) / 2))


@dataclass(frozen=True)
class MemorisationFit:
    """Restarts of one hidden size trained to memorise scalar targets.

    Attributes
    ----------
    hidden_size : int
    outputs : ndarray, shape (n_restarts, N)
        ``f(x_j)`` of each restart's model, evaluated by :meth:`seqmi.theory.ngram_ssm.SSMWeights.outputs` in float64.
    targets : ndarray, shape (N,)
    from_construction : bool
        Whether restart 0 started from Proposition 4.5's construction.
    models : list of SSMWeights
        The model of each restart.
    """

    hidden_size: int
    outputs: Array
    targets: Array
    from_construction: bool
    models: list[SSMWeights]

    @property
    def max_error(self) -> Array:
        """``max_j |f(x_j) - y_j|`` of each restart, shape ``(n_restarts,)``."""
        return np.abs(self.outputs - self.targets).max(axis=1)

    @property
    def wrong_signs(self) -> NDArray[np.bool_]:
        """Whether ``f(x_j)`` fails to have the sign of ``y_j`` (zero included), shape ``(n_restarts, N)``.

        A wrong sign forces ``|f(x_j) - y_j| >= |y_j|``, which is 1 for the alternating targets.
        """
        return self.outputs * self.targets <= 0

    @property
    def sign_errors(self) -> NDArray[np.int64]:
        """The number of wrong signs of each restart, shape ``(n_restarts,)``."""
        return self.wrong_signs.sum(axis=1)

    def wrong_points(self, restart: int) -> list[int]:
        """The points ``j`` (counted from 1, as in ``y_j = (-1)^j``) where ``restart`` has a wrong sign."""
        return [int(j) + 1 for j in np.flatnonzero(self.wrong_signs[restart])]


def train_memorising_ssms(x: Array, y: Array, hidden_sizes: Sequence[int], *, n_restarts: int, steps: int,
                          seed: int, lr: float = 0.01, from_construction: bool = False) -> list[MemorisationFit]:
    """Fit SSMs of each hidden size to targets ``y`` by full-batch Adam, from several starts.

    Every model trains ``A``, ``B``, ``b`` and ``C`` of ``f(x) = C ReLU(h_T + b)`` on the
    mean squared error over all ``N`` sequences. Restart ``r`` of size ``m`` starts from
    :func:`~seqmi.theory.ngram_ssm.random_line_ssm` drawn with
    ``child_seed(seed, "restart", m, r)`` (bends inside the data, where they can fit it).
    All models train together, as one batch: each is padded with zero neurons to the
    largest size, and zero neurons stay zero because every gradient that reaches them is
    zero; the losses are summed, and Adam's update of a weight depends on that weight's
    own gradient only. Each model keeps its iterate of lowest loss, so that a start that
    already fits is not lost to Adam's steps, whose size does not shrink with the gradient.

    Parameters
    ----------
    x : ndarray, shape (N, T, d)
        Input sequences, e.g. those of :func:`~seqmi.theory.ngram_ssm.alternating_task`.
    y : ndarray, shape (N, 1)
        One non-zero target per sequence (the output after its last vector).
    hidden_sizes : sequence of int
        The sizes ``m`` to train, each at least 1.
    n_restarts : int
        Independent starts per size, at least 1.
    steps : int
        Adam steps, at least 0 (0 returns the starts).
    seed : int
        Seed of the starts and of the construction's generic weights. The result is
        deterministic given the arguments.
    lr : float
        Adam's learning rate.
    from_construction : bool
        Start restart 0 of every size ``m >= N`` from
        :func:`~seqmi.theory.ngram_ssm.memorising_ssm`, which fits ``y`` up to rounding
        with ``N`` neurons; the other ``m - N`` neurons start with zero output weight.

    Returns
    -------
    list of MemorisationFit
        One per entry of ``hidden_sizes``, in that order.

    Raises
    ------
    ValueError
        If the shapes disagree, a target is zero or not finite, or an argument is out of range.
    """
    x, y = _check_task(x, y)
    sizes = check_int_list("hidden_sizes", list(hidden_sizes), 1)
    check_int("n_restarts", n_restarts, 1)
    check_int("steps", steps, 0)
    check_float("lr", lr, 0.0, low_open=True)
    N, T, _ = x.shape
    use_construction = from_construction and max(sizes) >= N
    construction = memorising_ssm(x, y, T, child_seed(seed, "construction")) if use_construction else None
    starts = []
    for m in sizes:
        for r in range(n_restarts):
            start = random_line_ssm(x, m, np.random.default_rng(child_seed(seed, "restart", m, r)))
            if construction is not None and r == 0 and m >= N:
                start = _embed(construction, start)
            starts.append(start)
    trained = _adam_lowest_loss(_pad(starts, max(sizes)), torch.tensor(x), torch.tensor(y[:, 0]), steps, lr)
    A, B, b, C = (p.numpy() for p in trained)
    models = [SSMWeights.from_matrices(A[k, :m, :m], B[k, :m], b[k, :m], C[k, None, :m])
              for k, m in enumerate(w.hidden_size for w in starts)]
    fits = []
    for k, m in enumerate(sizes):
        group = models[k * n_restarts:(k + 1) * n_restarts]
        outputs = np.stack([w.outputs(x)[:, -1, 0] for w in group])
        fits.append(MemorisationFit(m, outputs, y[:, 0], construction is not None and m >= N, group))
    return fits


def _check_task(x: Array, y: Array) -> tuple[Array, Array]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 3 or x.shape[0] < 1:
        raise ValueError(f"x must have shape (N, T, d) with N >= 1, got {x.shape}")
    if y.shape != (x.shape[0], 1):
        raise ValueError(f"y must have shape (N, 1) = ({x.shape[0]}, 1), got {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()) or (y == 0).any():
        raise ValueError("x and y must be finite and every target non-zero (its sign is what is fitted)")
    return x, y


def _embed(construction: SSMWeights, start: SSMWeights) -> SSMWeights:
    """``start`` with its first ``N`` neurons replaced by the construction's, its other outputs off.

    The construction's states do not read the other neurons (``A[:N, N:] = 0``) and the
    others do not reach the output (``C[:, N:] = 0``), so the output is the construction's.
    """
    n = construction.hidden_size
    A, B, b, C = start.A.copy(), start.B.copy(), start.b.copy(), np.zeros_like(start.C)
    A[:n] = 0.0
    A[:n, :n] = construction.A
    B[:n] = construction.B
    b[:n] = construction.b
    C[:, :n] = construction.C
    return SSMWeights.from_matrices(A, B, b, C)


def _pad(models: list[SSMWeights], size: int) -> list[torch.Tensor]:
    """``A, B, b, C`` of every model, zero-padded to ``size`` neurons and stacked."""
    d = models[0].B.shape[1]
    A, B, b, C = (np.zeros((len(models), *shape)) for shape in [(size, size), (size, d), (size,), (size,)])
    for k, w in enumerate(models):
        m = w.hidden_size
        A[k, :m, :m], B[k, :m], b[k, :m], C[k, :m] = w.A, w.B, w.b, w.C[0]
    return [torch.tensor(p) for p in (A, B, b, C)]


def _outputs(params: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """``f(x_j)`` of a batch of models, shape ``(n_models, N)``: the recurrence of :class:`SSMWeights`."""
    A, B, b, C = params
    h = torch.zeros(A.shape[0], x.shape[0], A.shape[1], dtype=x.dtype)
    for t in range(x.shape[1]):
        h = h @ A.transpose(1, 2) + x[:, t] @ B.transpose(1, 2)
    return (torch.relu(h + b[:, None]) @ C[:, :, None])[..., 0]


class _StackedSSMs(nn.Module):
    """Models of :class:`SSMWeights` padded to one size and stacked, as one module for :func:`seqmi.train.fit`.

    ``A (n_models, m, m)``, ``B (n_models, m, d)``, ``b (n_models, m)``, ``C (n_models, m)``.
    """

    def __init__(self, params: list[torch.Tensor]) -> None:
        super().__init__()
        self.A, self.B, self.b, self.C = (nn.Parameter(p) for p in params)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _outputs([self.A, self.B, self.b, self.C], x)  # (n_models, N)


def _adam_lowest_loss(params: list[torch.Tensor], x: torch.Tensor, y: torch.Tensor, steps: int,
                      lr: float) -> list[torch.Tensor]:
    """Train a batch of models by Adam on their summed MSEs; return each one's iterate of lowest MSE.

    The training is :func:`seqmi.train.fit`'s: one epoch of ``steps`` full-batch steps,
    no clipping, a constant rate. Its loss scores every iterate once, before the step
    that moves it, and keeps each model's best; the last iterate is scored after.
    """
    model = _StackedSSMs(params)
    best = [p.detach().clone() for p in params]
    best_loss = torch.full((params[0].shape[0],), torch.inf, dtype=x.dtype)

    def keep(losses: torch.Tensor) -> None:
        better = losses < best_loss
        best_loss[better] = losses[better]
        for kept, p in zip(best, model.parameters()):
            kept[better] = p.detach()[better]

    def loss(m: nn.Module, _: Any) -> tuple[torch.Tensor, int]:
        per_model = ((m(x) - y) ** 2).mean(dim=1)  # (n_models,)
        keep(per_model.detach())
        return per_model.sum(), len(x)

    if steps:
        task = Task(Batches(steps, lambda rng, step: itertools.repeat(None, steps)), loss)
        config = TrainConfig(optimizer="adam", lr=lr, clip=None, batch_size=len(x), max_epochs=1, patience=None,
                             restarts=1)
        fit([Member(model, config, np.random.default_rng(0), task)], task, progress=False)
    with torch.no_grad():
        keep(((model(x) - y) ** 2).mean(dim=1))
    return best
