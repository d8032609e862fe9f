"""Claims: what a paper states, what we measured, and how the verdict was decided.

Every chapter saves its numbers with :func:`seqmi.report.save_results`; the chapter's
rule module here (one per chapter, named after it) turns that results dict into a list
of :class:`Claim`. The chapter, its test and the book's scoreboard all call the same rule
on the same saved JSON, so no verdict is computed twice.

Three kinds of claim, kept apart because a reader must be able to tell them apart:

``"exact"``
    An identity or a deterministic computation, checked to a stated tolerance.
``"statistical"``
    A decision under noise. It is taken from a confidence interval: when the interval is
    compatible with both outcomes the verdict is ``"inconclusive"`` and the claim says
    what scale would decide it.
``"illustration"``
    The code doing what the text says on a case built for it. It is never evidence for
    the paper: its verdict is ``"reproduced"`` only when the paper's claim is itself an
    identity (then the illustration is a check of that identity).
"""

from __future__ import annotations

import importlib
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

KINDS = ("exact", "statistical", "illustration")
VERDICTS = ("reproduced", "not reproduced", "inconclusive", "erratum")
FIELDS = ("id", "source", "statement", "kind", "value", "ci", "rule", "verdict", "substitution", "scale")
# z of a two-sided 95% interval: the level of every interval the rules build
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, checked.

    Attributes
    ----------
    id : str
        Stable identifier, ``<paper>.<where>.<what>``, e.g. ``"shen2019.fig1c.rnn-xi-saturates"``.
    source : str
        Paper and equation, figure, table or section.
    statement : str
        What the paper states, in a few words.
    kind : str
        ``"exact"``, ``"statistical"`` or ``"illustration"`` (see the module docstring).
    value : float or None
        Our headline number (``None`` when the claim has no single number).
    ci : list of two floats, or None
        The 95% interval of ``value`` (statistical claims), else ``None``.
    rule : str
        The decision, in words, with its numbers.
    verdict : str
        ``"reproduced"``, ``"not reproduced"``, ``"inconclusive"`` or ``"erratum"``.
    substitution : str
        What differs from the paper (data, model, optimiser, protocol), or ``""``.
    scale : str
        The profile and the sizes that matter; for an inconclusive claim also the scale
        that would decide it.
    detail : str
        Our numbers as the table shows them.
    """

    id: str
    source: str
    statement: str
    kind: str
    value: float | None
    ci: list[float] | None
    rule: str
    verdict: str
    substitution: str
    scale: str
    detail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id!r}: verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.ci is not None and len(self.ci) != 2:
            raise ValueError(f"claim {self.id!r}: ci must be [low, high], got {self.ci!r}")
        if self.verdict == "inconclusive" and self.kind != "statistical":
            raise ValueError(f"claim {self.id!r}: only a statistical claim can be inconclusive")
        if not self.id or not self.rule or not self.scale:
            raise ValueError(f"claim {self.id!r}: id, rule and scale must not be empty")

    def as_dict(self) -> dict[str, Any]:
        """The claim as a JSON-ready dict (``value`` and ``ci`` as plain floats of ``CLAIM_DIGITS`` digits)."""
        out = asdict(self)
        out["value"] = _plain(self.value)
        out["ci"] = None if self.ci is None else [_plain(v) for v in self.ci]
        return out


# significant digits a recorded claim keeps: the last digits of a bootstrap bound move with
# the BLAS thread count (summation order), and a recording must read the same on any machine
CLAIM_DIGITS = 12
# a claim about an architecture is decided over at least this many independently trained models
MIN_SEEDS = 3


def _plain(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return float(f"{value:.{CLAIM_DIGITS}g}") if math.isfinite(value) else None


def check_record(record: dict[str, Any]) -> None:
    """Raise ``ValueError`` unless a stored claim dict has every field with an allowed value."""
    missing = [f for f in FIELDS if f not in record]
    if missing:
        raise ValueError(f"claim {record.get('id', '?')!r} lacks the field(s) {missing}")
    Claim(**{k: record[k] for k in (*FIELDS, "detail") if k in record})


def exact(passed: bool, erratum: bool = False) -> str:
    """Verdict of an exact check: ``"erratum"`` when the printed form is shown wrong."""
    if erratum:
        return "erratum"
    return "reproduced" if bool(passed) else "not reproduced"


def illustration(paper_claim_is_identity: bool, passed: bool) -> str:
    """Verdict of an illustration: it reproduces only a claim that is itself an identity.

    An illustration that shows the code does what the text says, on a case built for it,
    is reported as ``"not reproduced"`` (it is no evidence) unless the paper's claim is
    an identity that the illustration checks.
    """
    return "reproduced" if (paper_claim_is_identity and passed) else "not reproduced"


@dataclass(frozen=True)
class Decision:
    """A statistical decision and the scale that would settle an undecided one."""

    verdict: str
    needed: str = ""
    notes: list[str] = field(default_factory=list)


def decide(ci: Sequence[float], threshold: float, claim_above: bool = True) -> str:
    """Decide a claim ``value > threshold`` (or ``<`` with ``claim_above=False``) from a CI.

    Returns ``"reproduced"`` when the whole interval lies on the claimed side,
    ``"not reproduced"`` when it lies on the other side, else ``"inconclusive"``.
    A missing bound (NaN) leaves the claim inconclusive.
    """
    lo, hi = float(ci[0]), float(ci[1])
    if not (math.isfinite(lo) or math.isfinite(hi)) or math.isnan(lo) or math.isnan(hi):
        return "inconclusive"
    if claim_above:
        return "reproduced" if lo > threshold else "not reproduced" if hi < threshold else "inconclusive"
    return "reproduced" if hi < threshold else "not reproduced" if lo > threshold else "inconclusive"


def decide_within(ci: Sequence[float], low: float, high: float) -> str:
    """Decide a claim ``value ∈ [low, high]`` (an equivalence band) from a CI.

    ``"reproduced"`` when the interval lies inside the band, ``"not reproduced"`` when it
    lies wholly outside it, else ``"inconclusive"``.
    """
    lo, hi = float(ci[0]), float(ci[1])
    if math.isnan(lo) or math.isnan(hi):
        return "inconclusive"
    if low <= lo and hi <= high:
        return "reproduced"
    if hi < low or lo > high:
        return "not reproduced"
    return "inconclusive"


def combine(verdicts: Sequence[str]) -> str:
    """One verdict from the verdicts of a claim's parts.

    Every part reproduced: ``"reproduced"``; any part not reproduced: ``"not reproduced"``;
    otherwise (or with no parts) ``"inconclusive"``.
    """
    if not verdicts:
        return "inconclusive"
    if "not reproduced" in verdicts:
        return "not reproduced"
    return "reproduced" if all(v == "reproduced" for v in verdicts) else "inconclusive"


def needed_for_interval(n0: int, half_width: float, effect: float) -> int:
    """Sample size at which an interval of ``half_width`` measured at ``n0`` shrinks below ``|effect|``.

    The half-width falls as ``1/√n``: ``n ≈ n0·(half_width/|effect|)²``, never fewer than
    ``n0 + 1``; with no effect at all, ``100·n0`` (no affordable scale decides it).
    """
    if not (math.isfinite(half_width) and half_width > 0):
        return n0 + 1
    if not (math.isfinite(effect) and abs(effect) > 0):
        return 100 * n0
    return max(n0 + 1, math.ceil(n0 * (half_width / abs(effect)) ** 2))


def needed_samples(n0: int, sd: float, effect: float, z: float = Z95) -> int:
    """Samples that resolve ``effect`` at level ``z``: ``n ≈ n0·(z·σ/δ)²`` with σ measured at ``n0``.

    ``sd`` is the standard error measured with ``n0`` samples; the standard error falls
    as ``1/√n``, so ``n`` samples give ``σ·√(n0/n)``, and the effect is resolved when
    that is ``δ/z``. Never fewer than ``n0 + 1`` (the measured scale did not decide).
    """
    if not (math.isfinite(sd) and sd > 0 and math.isfinite(effect) and effect > 0):
        return n0 + 1
    return max(n0 + 1, math.ceil(n0 * (z * sd / effect) ** 2))


def normal_ci(mean: float, se: float, z: float = Z95) -> list[float]:
    """``mean ± z·se`` as ``[low, high]``."""
    return [float(mean - z * se), float(mean + z * se)]


def bootstrap_ci(samples: Sequence[float] | np.ndarray, statistic: Callable[..., Any] = np.mean,
                 n_resamples: int = 2000, seed: int = 0, level: float = 0.95) -> list[float]:
    """Percentile bootstrap interval of ``statistic`` over ``samples`` (scipy's bootstrap).

    The samples are the independent units (restarts, sequences, documents). With fewer
    than two samples, or all equal, the interval degenerates to the point value.
    """
    from scipy import stats

    data = np.asarray(samples, dtype=float)
    point = float(statistic(data))
    if data.size < 2 or np.ptp(data) == 0:
        return [point, point]
    res = stats.bootstrap((data,), statistic, n_resamples=n_resamples, confidence_level=level,
                          method="percentile", random_state=np.random.default_rng(seed))
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def binomial_ci(successes: float, trials: int, z: float = Z95) -> list[float]:
    """Wilson score interval of a proportion (accuracy over ``trials`` held-out symbols)."""
    if trials <= 0:
        return [0.0, 1.0]
    p = successes / trials
    denom = 1 + z**2 / trials
    centre = (p + z**2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2)) / denom
    # clamped to include p: at p = 0 or 1 the formula misses it by rounding (1e-16)
    return [max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))]


def standard_error(*groups: Sequence[float] | np.ndarray) -> float:
    """Standard error over independent samples (seeds) of a mean (one group) or of a
    difference of means (two groups, Welch's); infinite with fewer than two samples in a group.

    The spread behind :func:`mean_ci` and :func:`mean_diff_ci`, without their t quantile:
    what :func:`needed_samples` scales.
    """
    arrays = [np.asarray(g, dtype=float) for g in groups]
    if not arrays or min(a.size for a in arrays) < 2:
        return math.inf
    return math.sqrt(sum(a.var(ddof=1) / a.size for a in arrays))


def mean_ci(samples: Sequence[float] | np.ndarray, level: float = 0.95) -> list[float]:
    """Student-t interval of the mean of independent ``samples`` (seeds, restarts).

    With fewer than two samples there is no spread to measure: ``[-inf, inf]``.
    """
    from scipy import stats

    x = np.asarray(samples, dtype=float)
    if x.size < 2:
        return [-math.inf, math.inf]
    half = stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    return [float(x.mean() - half), float(x.mean() + half)]


def mean_diff_ci(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray,
                 level: float = 0.95) -> list[float]:
    """Welch interval of ``mean(a) - mean(b)`` for two independent groups of samples.

    The degrees of freedom are Welch-Satterthwaite's; with fewer than two samples in a
    group, ``[-inf, inf]``.
    """
    from scipy import stats

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 2 or y.size < 2:
        return [-math.inf, math.inf]
    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    se = math.sqrt(vx + vy)
    diff = float(x.mean() - y.mean())
    if se == 0:
        return [diff, diff]
    dof = (vx + vy) ** 2 / (vx**2 / (x.size - 1) + vy**2 / (y.size - 1))
    half = stats.t.ppf(0.5 + level / 2, dof) * se
    return [diff - half, diff + half]


def module_name(chapter: str) -> str:
    """The rule module of ``chapter``: ``seqmi.claims.ch<NN>_<slug>``."""
    return f"{__name__}.ch{chapter}"


def for_chapter(chapter: str, results: dict[str, Any]) -> list[Claim]:
    """The claims of ``chapter`` (e.g. ``"00_mutual_information"``) from its results dict.

    Raises
    ------
    ValueError
        If no rule module exists for the chapter, or two claims share an id.
    """
    try:
        module = importlib.import_module(module_name(chapter))
    except ModuleNotFoundError as err:
        raise ValueError(f"no claim rules for chapter {chapter!r} (expected {module_name(chapter)})") from err
    claims = module.rules(results)
    ids = [c.id for c in claims]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"{chapter}: duplicate claim ids {dupes}")
    return claims


def by_id(claims: Sequence[Claim] | Sequence[dict[str, Any]], claim_id: str) -> Any:
    """The claim with ``claim_id`` (a :class:`Claim` or a stored dict); ``KeyError`` if absent."""
    for c in claims:
        if (c.id if isinstance(c, Claim) else c["id"]) == claim_id:
            return c
    raise KeyError(f"no claim {claim_id!r}")


def profile_of(results: dict[str, Any]) -> str:
    """The profile that produced ``results`` (stored by :func:`seqmi.report.save_results`)."""
    return str(results.get("profile", "interactive"))
