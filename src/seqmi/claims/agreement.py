"""Whether two runs of a chapter say the same: claim records compared within what their
statistics resolve.

The same chapter, seed and profile run with one CPU thread and with two does not give
bit-identical numbers: a thread count changes the order of floating-point sums, and
training amplifies those last digits (a character LSTM's validation loss moves in its
fourth digit). Such a change is far below what a claim's interval resolves, and a record
may differ by it, and by nothing more:

- an ``exact`` claim: the same verdict, and a value equal to ``EXACT_RTOL`` (identities
  and deterministic computations do not depend on a thread count beyond rounding);
- a claim with an interval: value and bounds within ``√(h₁² + h₂²)``, the half-widths of
  the two runs' intervals combined, i.e. no further apart than two estimates of one
  quantity with those intervals may lie (where a thread count changes a training run's
  path, the second run is another draw of that training's noise, and its interval says
  how far such a draw can go);
- any other claim (a number without an interval): a value within ``VALUE_RTOL``.

A verdict may differ between the two runs only where their numbers agree by the rule
above: the interval then ends within that margin of the decision's threshold, and
which side it falls on is rounding, not evidence. Such claims are listed as decided *at
the edge*; any other difference is a failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

# an exact claim's value may differ by summation order alone
EXACT_RTOL = 1e-9
# a number without an interval (a trained-model illustration) may move by this much, relatively
VALUE_RTOL = 0.02


@dataclass(frozen=True)
class Agreement:
    """The outcome of :func:`compare`.

    Attributes
    ----------
    failures : list of str
        Differences beyond what the statistics allow, one sentence each.
    edges : list of str
        Claims whose verdict differs while their numbers agree (decided at the edge).
    compared : int
        Claims compared.
    """

    failures: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    compared: int = 0

    @property
    def agree(self) -> bool:
        """Whether no difference goes beyond what the statistics allow."""
        return not self.failures


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol


def _relative(va: float, vb: float, rtol: float) -> bool:
    """Whether two finite values agree to ``rtol`` of the larger; non-finite ones only if equal
    (two NaNs: both missing)."""
    if not (math.isfinite(va) and math.isfinite(vb)):
        return va == vb or (math.isnan(va) and math.isnan(vb))
    return abs(va - vb) <= rtol * max(abs(va), abs(vb))


def numbers_agree(a: dict[str, Any], b: dict[str, Any]) -> tuple[bool, str]:
    """Whether two records of one claim carry the same numbers, within the module's tolerances.

    Returns
    -------
    (bool, str)
        The answer, and the tolerance that was applied, in words.
    """
    va, vb = _number(a["value"]), _number(b["value"])
    if a["kind"] == "exact":
        return _relative(va, vb, EXACT_RTOL), f"relative {EXACT_RTOL:g}"
    if (a["ci"] is None) != (b["ci"] is None):
        return False, "an interval on one side only"
    if a["ci"] is not None:
        bounds = [(_number(x), _number(y)) for x, y in zip(a["ci"], b["ci"])]
        widths = [abs(_number(c[1]) - _number(c[0])) for c in (a["ci"], b["ci"])]
        if not any(math.isfinite(w) for w in widths):  # unbounded or missing: only the value is a number
            return _relative(va, vb, VALUE_RTOL), f"relative {VALUE_RTOL:g}"
        tol = math.hypot(*(w / 2 for w in widths if math.isfinite(w)))
        same = _close(va, vb, tol) and all(_close(x, y, tol) or x == y for x, y in bounds)
        return same, f"the two intervals' half-widths combined ({tol:.3g})"
    return _relative(va, vb, VALUE_RTOL), f"relative {VALUE_RTOL:g}"


def compare(first: Sequence[dict[str, Any]], second: Sequence[dict[str, Any]]) -> Agreement:
    """Compare two runs' claim records (stored dicts) of one chapter.

    Parameters
    ----------
    first, second : sequence of dict
        The ``claims`` lists of two ``results.json`` files.

    Returns
    -------
    Agreement
    """
    a, b = {c["id"]: c for c in first}, {c["id"]: c for c in second}
    failures = [f"{cid}: in one run only" for cid in sorted(set(a) ^ set(b))]
    edges = []
    for cid in sorted(set(a) & set(b)):
        x, y = a[cid], b[cid]
        if x["kind"] != y["kind"]:
            failures.append(f"{cid}: kind {x['kind']} against {y['kind']}")
            continue
        same, tolerance = numbers_agree(x, y)
        shown = f"value {x['value']} {x['ci']} against {y['value']} {y['ci']} (allowed: {tolerance})"
        if not same:
            failures.append(f"{cid}: {shown}")
        elif x["verdict"] != y["verdict"]:
            if x["kind"] == "exact":
                failures.append(f"{cid}: exact verdict {x['verdict']} against {y['verdict']}")
            else:
                edges.append(f"{cid}: {x['verdict']} against {y['verdict']}, {shown}")
    return Agreement(failures, edges, len(set(a) & set(b)))
