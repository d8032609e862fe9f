"""Each chapter's settings records and sweep points, one module per chapter.

A settings record is a frozen dataclass of what a chapter's computation reads, checked
when it is built (``__post_init__``, with :mod:`seqmi.validate`'s messages), so that a
bad parameter fails before any work, whoever builds it: a chapter from its parameters
cell, a test, or a user's script.

:func:`seqmi.sweep.run_sweep` sends a point to a worker process (Dask) together with its
compute function, so that function must be importable by name: it lives here, rather
than in the chapter's cells. Each takes the point (what varies along the sweep) and a
frozen settings record (what every point shares, also part of the cache key), rebuilds
its data from seeds, trains, measures, and returns a JSON-ready record.

The modules of the trained chapters (03 to 06) need torch (the ``models`` extra); those
of the exact chapters (00 to 02) hold settings alone and need only the core.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

Record = TypeVar("Record")


def from_parameters(record: type[Record], parameters: Mapping[str, Any], prefix: str = "",
                    **derived: Any) -> Record:
    """Build the settings record ``record`` from a chapter's parameters, each field from the
    parameter of its name (a chapter calls it with ``globals()``).

    A chapter that builds several records of one kind, or records whose fields share
    names (``steps``, ``lr``), names each record's parameters with a prefix: field ``f`` is
    then read from ``<prefix>f``, or from ``f`` where no parameter has the prefixed name
    (what the records share: ``seed``, ``device``, ``batch``). A field computed from the
    parameters (``max(lengths)``) is given in ``derived``. The record checks every value it
    receives, as when built by keyword; a field that nothing names keeps its default.

    Parameters
    ----------
    record : type
        A settings record (a dataclass of :mod:`seqmi.experiments`).
    parameters : mapping
        Names to values, e.g. the chapter's ``globals()``.
    prefix : str, optional
        The prefix of this record's own parameters (e.g. ``"word_"``).
    **derived
        Fields computed from the parameters, by field name.

    Returns
    -------
    The record.

    Raises
    ------
    ValueError
        If a field without a default has no parameter of its name, or ``derived`` names
        no field of the record.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Settings:
    ...     n: int
    ...     lr: float = 0.1
    ...     top: int = 0
    >>> from_parameters(Settings, {"n": 3, "seed": 0})
    Settings(n=3, lr=0.1, top=0)
    >>> from_parameters(Settings, {"n": 3, "word_lr": 0.5, "lr": 0.1}, "word_", top=7)
    Settings(n=3, lr=0.5, top=7)
    """
    fields = [f for f in dataclasses.fields(record) if f.init]
    unknown = sorted(set(derived) - {f.name for f in fields})
    if unknown:
        raise ValueError(f"{record.__name__} has no field(s) {unknown}; it has {[f.name for f in fields]}")

    def source(name: str) -> str:
        return prefix + name if prefix + name in parameters else name

    values = {f.name: parameters[source(f.name)] for f in fields
              if f.name not in derived and source(f.name) in parameters}
    required = {f.name for f in fields if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING}
    missing = sorted(required - set(values) - set(derived))
    if missing:
        names = [prefix + m if prefix else m for m in missing]
        raise ValueError(f"{record.__name__} needs the parameter(s) {names}, which the chapter does not define")
    return record(**values, **derived)
