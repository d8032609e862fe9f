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


def from_parameters(record: type[Record], parameters: Mapping[str, Any]) -> Record:
    """Build the settings record ``record`` from a chapter's parameters, each field from the
    parameter of the same name (a chapter calls it with ``globals()``).

    The record checks every value it receives, as when built by keyword; a field that no
    parameter names keeps its default.

    Parameters
    ----------
    record : type
        A settings record (a dataclass of :mod:`seqmi.experiments`).
    parameters : mapping
        Names to values, e.g. the chapter's ``globals()``.

    Returns
    -------
    The record.

    Raises
    ------
    ValueError
        If a field without a default has no parameter of its name.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Settings:
    ...     n: int
    ...     lr: float = 0.1
    >>> from_parameters(Settings, {"n": 3, "seed": 0})
    Settings(n=3, lr=0.1)
    """
    fields = [f for f in dataclasses.fields(record) if f.init]
    required = {f.name for f in fields if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING}
    missing = sorted(required - set(parameters))
    if missing:
        raise ValueError(f"{record.__name__} needs the parameter(s) {missing}, which the chapter does not define")
    return record(**{f.name: parameters[f.name] for f in fields if f.name in parameters})
