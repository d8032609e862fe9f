"""Chapter 06's sweep design and the readings of its recorded sweeps, shared by the chapter and its rules.

Torch-free: the rules (:mod:`seqmi.claims.ch06_attention_gradients`) read recorded
results with the core alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Sequence, TypeVar

import numpy as np
from numpy.typing import NDArray

from seqmi.results import as_json
from seqmi.results.ch06_attention_gradients import Evaluation, MiniGridSweep, RLTransferSweep

_Sweep = TypeVar("_Sweep", MiniGridSweep, RLTransferSweep)

#: Table 4's agents by kind, as the paper names them.
NAMES = {"lstm": "LSTM", "full": "MemLSTM", "relevancy": "RelLSTM"}
#: Table 4's other pairs we train and test, each (small room trained on, large room tested on). The
#: agents see only their view, not the mission text, so the pairs kept are those whose mission
#: is the same in every episode (GoToObject, GoToDoor and Fetch name a random target).
RL_PAIRS = {"DoorKey": ("MiniGrid-DoorKey-5x5-v0", "MiniGrid-DoorKey-16x16-v0"),
            "RedBlueDoors": ("MiniGrid-RedBlueDoors-6x6-v0", "MiniGrid-RedBlueDoors-8x8-v0")}
#: Fig. 3 sweeps rho at nu = 15 and nu at rho = 15 over these values.
SWEPT = (3, 8, 18, 25)
#: Sequences of the fresh held-out batch a Copy or Denoise run is scored on after it stops
#: (5,000 recalled symbols, as many as the length-transfer test's at the reference profile).
FRESH_BATCH = 500


def gradient_decay(profile: Sequence[float] | NDArray[np.float64], length: int) -> float:
    """Decades by which ``||grad_{h_t} L||`` falls over the input, read off a fitted line.

    The least-squares line of ``log10 ||grad_{h_t} L||`` against the distance
    ``k = length - 1 - t`` of step ``t`` from the last input step, over the ``length``
    input steps, falls by this many decades from ``k = 0`` to ``k = length - 1``:
    positive when the gradient weakens with distance (what the supplement's Fig. 3 calls
    unstable propagation), 0 for a flat profile. A fit over every input step, rather than
    the largest and smallest norms, keeps a few noisy steps from deciding it.

    Parameters
    ----------
    profile : sequence of float
        The norm at every step (the input steps first, then the recall steps), e.g. the
        geometric mean over held-out batches of
        :func:`seqmi.models.attentive_rnn.hidden_gradient_profile`; positive and finite
        over the input.
    length : int
        Input steps (the Denoise delay ``T``): at least 2, at most ``len(profile)``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(gradient_decay([1e-3, 1e-2, 1e-1, 1.0, 5.0], 4), 12)
    3.0
    """
    values = np.asarray(profile, dtype=float)
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or not 2 <= length <= values.size:
        raise ValueError(f"length must be an int from 2 to the profile's {values.size} steps, got {length!r}")
    head = values[:length]
    if not (np.all(np.isfinite(head)) and np.all(head > 0)):
        raise ValueError(f"the profile must be positive and finite over its first {length} steps, got {head!r}")
    distance = np.arange(length)[::-1]
    slope = np.polyfit(distance, np.log10(head), 1)[0]
    return float(-slope * (length - 1))


def gradient_decays(profiles: dict[str, Any], length: int) -> dict[str, NDArray[np.float64]]:
    """:func:`gradient_decay` of every model of the Fig. 3 sweep.

    Parameters
    ----------
    profiles : dict
        ``{"nu=V,rho=R": profiles}``, one profile per seed (a bare profile: one seed).
    length : int
        Input steps of the Denoise task.

    Returns
    -------
    dict
        ``{"nu=V,rho=R": decays}``, one per seed, in the seeds' order.
    """
    stacked = {k: np.asarray(v, dtype=float) for k, v in profiles.items()}
    return {k: np.array([gradient_decay(p, length) for p in (v[None] if v.ndim == 1 else v)])
            for k, v in stacked.items()}


def fig3_contrasts(decay: dict[str, Any]) -> dict[str, NDArray[np.float64]]:
    """Fig. 3's two contrasts, one value per seed.

    Parameters
    ----------
    decay : dict
        ``{"nu=V,rho=R": values}``: each setting's :func:`gradient_decay`, one per seed
        (a bare number: one seed). Seed ``i`` of every setting is trained on the same
        batches, so the contrasts pair them.

    Returns
    -------
    dict
        ``rho3_margin``: rho = 3's decay minus the largest of the other rho's (above 0:
        rho = 3 weakens the gradient more than any larger rho); ``range_gap``: the range of
        the decays over rho minus their range over nu (above 0: rho has more leverage).

    Examples
    --------
    >>> d = {f"nu=15,rho={x}": [0.1] for x in SWEPT} | {f"nu={x},rho=15": [0.1] for x in SWEPT}
    >>> d["nu=15,rho=3"] = [0.6]
    >>> {k: round(float(v[0]), 12) for k, v in fig3_contrasts(d).items()}
    {'rho3_margin': 0.5, 'range_gap': 0.5}
    """
    runs = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in decay.items()}
    rho = np.stack([runs[f"nu=15,rho={x}"] for x in SWEPT])
    nu = np.stack([runs[f"nu={x},rho=15"] for x in SWEPT])
    return {"rho3_margin": rho[0] - rho[1:].max(axis=0), "range_gap": np.ptp(rho, axis=0) - np.ptp(nu, axis=0)}


def seed_range(first: int, n: int) -> str:
    """The seeds ``first`` to ``first + n - 1`` of a sweep in words, naming those set aside.

    Examples
    --------
    >>> seed_range(4, 3), seed_range(0, 1)
    ('seeds 4–6 (seeds 0–3 set aside for the pilot)', 'seed 0')
    """
    if n < 1 or first < 0:
        raise ValueError(f"a sweep has at least one seed from 0 on, got first={first!r}, n={n!r}")
    named = f"seed {first}" if n == 1 else f"seeds {first}–{first + n - 1}"
    return named + (f" (seeds 0–{first - 1} set aside for the pilot)" if first else "")


def _sweep(kind: type[_Sweep], sweep: _Sweep | Mapping[str, Any]) -> _Sweep:
    """``sweep`` as its record: the rules hold the record, the chapter the JSON it is about to save."""
    return sweep if isinstance(sweep, kind) else kind.from_json(as_json(sweep))


def minigrid_seeds(mg: MiniGridSweep | Mapping[str, Any]) -> range:
    """The seeds (replicate numbers) of the MiniGrid sweep ``mg`` (its record, or the JSON of one).

    They start at ``first_seed``, 0 in results recorded before the sweep had one.
    """
    mg = _sweep(MiniGridSweep, mg)
    first = 0 if mg.first_seed is None else mg.first_seed
    return range(first, first + mg.replicates)


def minigrid_rewards(mg: MiniGridSweep | Mapping[str, Any], kind: str, env: str,
                     field: Literal["mean_return", "success"] = "mean_return") -> NDArray[np.float64]:
    """One agent kind's ``field`` on ``env`` in the MiniGrid sweep ``mg``, one value per seed.

    ``mg`` is what the chapter saves as ``minigrid`` (its record, or the JSON of one);
    ``field`` is one of the test's numbers
    (:class:`~seqmi.results.ch06_attention_gradients.Evaluation`).
    """
    mg = _sweep(MiniGridSweep, mg)
    return np.array([_reading(mg.runs[f"{kind}/{rep}"].evaluation[env], field) for rep in minigrid_seeds(mg)])


def rl_rewards(rl: RLTransferSweep | Mapping[str, Any], pair: str, kind: str, env: str,
               field: Literal["mean_return", "success"] = "mean_return") -> NDArray[np.float64]:
    """One agent kind's ``field`` on ``env`` in the transfer sweep ``rl``, one value per seed.

    ``rl`` is what the chapter saves as ``rl_transfer`` (its record, or the JSON of one):
    ``first_seed``, ``replicates`` and ``runs`` (``{"pair/kind/seed": record}``, records of
    :func:`seqmi.experiments.ch06_attention_gradients.rl_transfer_point`).
    """
    rl = _sweep(RLTransferSweep, rl)
    seeds = range(rl.first_seed, rl.first_seed + rl.replicates)
    return np.array([_reading(rl.runs[f"{pair}/{kind}/{rep}"].evaluation[env], field) for rep in seeds])


def _reading(evaluation: Evaluation, field: Literal["mean_return", "success"]) -> float:
    """The mean reward or the success rate of an agent's test."""
    if field == "mean_return":
        return evaluation.mean_return
    if field == "success":
        return evaluation.success
    raise ValueError(f"field must be 'mean_return' or 'success', got {field!r}")
