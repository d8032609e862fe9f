"""Claims: what a paper states, what we measured, and how the verdict was decided.

Every chapter saves its numbers with :func:`seqmi.report.save_results`; the chapter's
rule module here (one per chapter, named after it) turns them into a list of
:class:`Claim`, reading them as the chapter's typed record (:mod:`seqmi.results`), never
as the raw JSON. The chapter, its test and the book's scoreboard all call the same rule
on the same saved JSON, so no verdict is computed twice.

Three kinds of claim, kept apart because a reader must be able to tell them apart:

``"exact"``
    An identity or a deterministic computation, checked to a stated tolerance.
``"statistical"``
    A decision under noise. It is taken from a confidence interval: when the interval is
    compatible with both outcomes the verdict is ``"inconclusive"`` and the claim says
    what scale would decide it.
``"illustration"``
    The code doing what the text says on a case built for it, or a check that cannot
    fail. It is never evidence for the paper: its verdict is ``"passed"`` or ``"failed"``
    (:func:`illustration`), and the scoreboard counts it apart from the reproductions.

A statistical claim carries its :class:`Design`: the paper's hypothesis and the named
alternative it is tested against, the test, the unit of replication, the margin of an
equivalence claim and the power at the decisive size. Its rule is calibrated on data made
under each (:mod:`seqmi.claims.calibration`).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Sequence

from seqmi.results import ChapterResults, results_type

KINDS = ("exact", "statistical", "illustration")
VERDICTS = ("reproduced", "not reproduced", "inconclusive", "erratum")
# an illustration's outcome: whether our code did what the text says (never a reproduction)
CHECKS = ("passed", "failed")
FIELDS = ("id", "source", "statement", "kind", "value", "ci", "rule", "verdict", "substitution", "scale")


@dataclass(frozen=True)
class Design:
    """How a statistical claim is decided, declared before the decisive data are seen.

    Attributes
    ----------
    h1 : str
        The paper's hypothesis, as the rule tests it.
    h0 : str
        The named alternative the paper argues against (logarithmic growth, exponential
        decay, no difference, a gain of at least the margin, ...).
    test : str
        The statistic and the test that decide between them.
    unit : str
        The unit of replication: independently trained seeds for a claim about an
        architecture, chapters or documents for text, sequences for a data process.
    power : str
        The decisive sample size and the power it gives against a stated effect, or why
        no size decides the claim on our machines.
    margin : str
        The margin of an equivalence or non-inferiority claim (TOST), else ``""``.
    """

    h1: str
    h0: str
    test: str
    unit: str
    power: str
    margin: str = ""

    def __post_init__(self) -> None:
        empty = [name for name in ("h1", "h0", "test", "unit", "power") if not getattr(self, name).strip()]
        if empty:
            raise ValueError(f"a claim's design must state {empty}; got {self!r}")


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
    design : Design or None
        How a statistical claim is decided (required for ``"statistical"``; a stored dict
        is read back as a :class:`Design`).
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
    design: Design | None = None

    def __post_init__(self) -> None:
        if isinstance(self.design, dict):
            object.__setattr__(self, "design", Design(**self.design))
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id!r}: kind must be one of {KINDS}, got {self.kind!r}")
        allowed = CHECKS if self.kind == "illustration" else VERDICTS
        if self.verdict not in allowed:
            raise ValueError(f"claim {self.id!r}: verdict must be one of {allowed} for kind {self.kind!r}, "
                             f"got {self.verdict!r}")
        if (self.kind == "statistical") != (self.design is not None):
            raise ValueError(f"claim {self.id!r}: a statistical claim, and only one, carries a Design "
                             f"(kind {self.kind!r}, design {self.design!r})")
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
# "does not improve", "matches": the book's one equivalence margin, a relative difference
# of 10% either way (a common choice for ratios), stated before any decisive run
EQUIVALENCE_MARGIN = 0.10
# two one-sided tests at 5% each: the claim is decided by the difference's 90% interval
EQUIVALENCE_LEVEL = 0.90
# how an inconclusive claim's scale introduces what would decide it (a test reads it)
DECIDES = "what would decide it: "


def would_decide(what: str) -> str:
    """The part of an inconclusive claim's scale that says what would decide it.

    Examples
    --------
    >>> would_decide("≈ 12 seeds per model (about 3 core-hours)")
    'what would decide it: ≈ 12 seeds per model (about 3 core-hours)'
    """
    if not what.strip():
        raise ValueError("an inconclusive claim must say what would decide it; got an empty text")
    return DECIDES + what


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
    Claim(**{k: record[k] for k in (*FIELDS, "detail", "design") if k in record})


def exact(passed: bool, erratum: bool = False) -> str:
    """Verdict of an exact check: ``"erratum"`` when the printed form is shown wrong."""
    if erratum:
        return "erratum"
    return "reproduced" if bool(passed) else "not reproduced"


def illustration(passed: bool) -> str:
    """Outcome of an illustration: ``"passed"`` when our code did what the text says.

    An illustration is never evidence for the paper, whatever its outcome; the scoreboard
    counts it apart from reproductions.
    """
    return "passed" if bool(passed) else "failed"


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


def decide_equivalence(ci: Sequence[float], margin: float = EQUIVALENCE_MARGIN) -> str:
    """Decide "no difference beyond ``margin``" by two one-sided tests (TOST).

    ``ci`` is the ``EQUIVALENCE_LEVEL`` (90%) interval of a relative difference (for
    example ``(b - a) / a``). ``"reproduced"`` when it lies inside ``(-margin, +margin)``:
    both one-sided tests reject a difference of at least the margin at 5%. ``"not
    reproduced"`` when it lies wholly outside; otherwise ``"inconclusive"``.

    Examples
    --------
    >>> decide_equivalence([-0.05, 0.08]), decide_equivalence([0.12, 0.3]), decide_equivalence([-0.02, 0.2])
    ('reproduced', 'not reproduced', 'inconclusive')
    """
    lo, hi = float(ci[0]), float(ci[1])
    if math.isnan(lo) or math.isnan(hi):
        return "inconclusive"
    if -margin < lo and hi < margin:
        return "reproduced"
    if hi <= -margin or lo >= margin:
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


def module_name(chapter: str) -> str:
    """The rule module of ``chapter``: ``seqmi.claims.ch<NN>_<slug>``."""
    return f"{__name__}.ch{chapter}"


def design_text(design: dict[str, Any]) -> str:
    """A stored design in one line: h1, h0, test, unit, the margin where one applies, power.

    Examples
    --------
    >>> design_text({"h1": "a power law", "h0": "logarithmic growth", "test": "likelihood ratio",
    ...              "unit": "chapters", "power": "0.8 at beta = 0.3", "margin": ""})
    '*h1:* a power law. *h0:* logarithmic growth. *test:* likelihood ratio. *unit:* chapters. *power:* 0.8 at beta = 0.3.'
    """
    parts = [("h1", design["h1"]), ("h0", design["h0"]), ("test", design["test"]), ("unit", design["unit"])]
    parts += [("margin", design["margin"])] if design.get("margin") else []
    parts += [("power", design["power"])]
    return " ".join(f"*{name}:* {text}." for name, text in parts)


# the rule hash of a recording made before rules were hashed
UNHASHED = "unrecorded"


def rule_hash(chapter: str) -> str:
    """A short hash of ``chapter``'s rules: it changes whenever a rule's code is edited.

    The rules are the chapter's rule module, or every module of its rule package (a
    module's code moved within the package changes the hash too). A recording stores the hash its numbers were first decided with (``data_rule_hash``)
    and the one its stored verdicts come from (``rule_hash``): where they differ, a rule
    changed after the data were seen, and the scoreboard says so.
    """
    module = importlib.import_module(module_name(chapter))
    path = Path(str(module.__file__))
    if not hasattr(module, "__path__"):
        return source_rule_hash(path.read_text())
    # a rule package: every module of it, each named by its place in the package
    parts = [f"{source.relative_to(path.parent).as_posix()}:{source_rule_hash(source.read_text())}"
             for source in sorted(path.parent.rglob("*.py"))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def source_rule_hash(source: str) -> str:
    """The :func:`rule_hash` of a rule module's source: its syntax tree without docstrings.

    Comments, docstrings and layout do not decide a verdict, so editing them leaves the
    hash as it was; any change to the code does not.
    """
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:12]


def typed(chapter: str, results: Mapping[str, Any] | ChapterResults) -> ChapterResults:
    """``results`` as ``chapter``'s results record (:mod:`seqmi.results`), built from its JSON where needed.

    Raises
    ------
    ValueError
        If the JSON holds a key the record does not declare, or a value of another kind.
    """
    return results if isinstance(results, ChapterResults) else results_type(chapter).from_json(results)


def for_chapter(chapter: str, results: Mapping[str, Any] | ChapterResults) -> list[Claim]:
    """The claims of ``chapter`` (e.g. ``"00_mutual_information"``) from its results (JSON or record).

    Raises
    ------
    ValueError
        If no rule module exists for the chapter, the results do not make its record
        (:func:`typed`), or two claims share an id.
    """
    try:
        module = importlib.import_module(module_name(chapter))
    except ModuleNotFoundError as err:
        raise ValueError(f"no claim rules for chapter {chapter!r} (expected {module_name(chapter)})") from err
    claims = module.rules(typed(chapter, results))
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

