"""Typed records of what each chapter writes and its rules read, one module per chapter.

A chapter's results are one frozen dataclass (a :class:`ChapterResults`), its sections'
numbers nested records (:class:`JsonRecord`). JSON is their serialisation:
:meth:`JsonRecord.from_json` builds a record from the JSON a chapter saved, checking every
key and every value against the record's type hints, and :meth:`JsonRecord.to_json`
writes it back. :func:`seqmi.report.save_results` builds the chapter's record before it
writes anything, so a misspelt key or a value of the wrong kind fails there, naming it;
:func:`seqmi.claims.for_chapter` hands the rules the record, never the raw dict, so a
rule can only read what the record declares.

The records live here, beside the settings of :mod:`seqmi.experiments` rather than in
them, because the rules read them with the core alone: the trained chapters' settings
modules need torch.

Conventions
-----------
- A field whose default is ``None`` is one a run may not write: a section the run skipped,
  or a number older recordings lack. It is omitted from the JSON when ``None``; any other
  field is always written, ``null`` included (e.g. an update count a run never reached).
- ``float`` accepts JSON integers (``1`` is a float to JSON) and keeps them as they came,
  so that a record written back is the JSON it was read from.
- ``Any`` marks numbers no rule reads (what a chapter keeps for its figures); they pass
  unchecked.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

import numpy as np

from seqmi.profiles import DEFAULT_PROFILE

Record = TypeVar("Record", bound="JsonRecord")

__all__ = ["ChapterResults", "JsonRecord", "as_json", "module_name", "results_type"]


class JsonRecord:
    """A frozen dataclass read from JSON and written back to it (mix in, then decorate).

    Subclasses are ``@dataclass(frozen=True, kw_only=True)``; their fields' type hints
    may be ``int``, ``float``, ``bool``, ``str``, ``Any``, a ``Literal``, another
    :class:`JsonRecord`, ``list[...]``, ``dict[str, ...]``, and any of these ``| None``.
    """

    @classmethod
    def from_json(cls: type[Record], data: Mapping[str, Any], where: str | None = None) -> Record:
        """The record of ``data``, a JSON object, its keys and values checked.

        Parameters
        ----------
        data : mapping
            Keys to values, as read from JSON.
        where : str, optional
            The path of ``data`` in the enclosing JSON, for error messages (default: the
            record's name).

        Returns
        -------
        The record.

        Raises
        ------
        ValueError
            If ``data`` is no JSON object, holds a key the record does not declare, lacks a
            field without a default, or holds a value of another kind than its field's.
        """
        where = where or cls.__name__
        if not isinstance(data, Mapping):
            raise ValueError(f"{where} must be a JSON object for {cls.__name__}, got {type(data).__name__}")
        fields = _fields(cls)
        keys = {_key(f): f for f in fields}
        unknown = sorted(set(data) - set(keys))
        if unknown:
            raise ValueError(f"{where}: {cls.__name__} has no field(s) {unknown}; it holds {sorted(keys)}")
        missing = sorted(k for k, f in keys.items() if k not in data and _required(f))
        if missing:
            raise ValueError(f"{where}: {cls.__name__} needs {missing}, which are absent")
        hints = _hints(cls)
        values = {f.name: _convert(hints[f.name], data[k], f"{where}.{k}") for k, f in keys.items() if k in data}
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON: every field, less those whose default is ``None`` and which are ``None``."""
        out = {}
        for f in _fields(type(self)):
            value = getattr(self, f.name)
            if value is None and f.default is None:
                continue
            out[_key(f)] = _dump(value)
        return out


@dataclasses.dataclass(frozen=True, kw_only=True)
class ChapterResults(JsonRecord):
    """What every chapter's results hold: the profile they ran at.

    Attributes
    ----------
    profile : str
        The profile (:mod:`seqmi.profiles`); recordings made before it was stored ran at
        the default one.
    """

    profile: str = DEFAULT_PROFILE


def module_name(chapter: str) -> str:
    """The module holding ``chapter``'s results record, e.g. ``seqmi.results.ch01_linear_rnn``."""
    return f"seqmi.results.ch{chapter}"


def results_type(chapter: str) -> type[ChapterResults]:
    """The results record of ``chapter`` (e.g. ``"01_linear_rnn"``): its module's ``Results``.

    Raises
    ------
    ValueError
        If no module declares one.
    """
    try:
        module = importlib.import_module(module_name(chapter))
    except ModuleNotFoundError as err:
        raise ValueError(f"no results record for chapter {chapter!r} (expected {module_name(chapter)})") from err
    return module.Results


def as_json(value: Any) -> Any:
    """``value`` as JSON reads it back: what a chapter computed, ready for :meth:`JsonRecord.from_json`.

    numpy arrays and scalars become lists and numbers, tuples lists, paths strings, and
    dataclasses their fields (a fit's ``record()`` where it has one: it leaves out what
    did not run).

    Raises
    ------
    TypeError
        If ``value`` holds something JSON cannot store.

    Examples
    --------
    >>> as_json({"lags": np.arange(3), "xi": np.float64(2.5), "pair": (1, 2)})
    {'lags': [0, 1, 2], 'xi': 2.5, 'pair': [1, 2]}
    """
    return json.loads(json.dumps(value, default=_plain))


def _plain(value: Any) -> Any:
    if isinstance(value, JsonRecord):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.record() if hasattr(value, "record") else dataclasses.asdict(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in results JSON")


def _key(f: dataclasses.Field) -> str:
    return f.metadata.get("json", f.name)


def _required(f: dataclasses.Field) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


@functools.cache
def _fields(cls: type) -> tuple[dataclasses.Field, ...]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} must be a dataclass to be a JSON record")
    return tuple(f for f in dataclasses.fields(cls) if f.init)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _convert(hint: Any, value: Any, where: str) -> Any:
    """``value`` checked against ``hint`` (records built from their objects)."""
    if hint is Any:
        return value
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in (o for o in options if o is not type(None)):
            try:
                return _convert(option, value, where)
            except ValueError as err:
                errors.append(str(err))
        raise ValueError("; ".join(errors))
    if origin is Literal:
        if value not in typing.get_args(hint):
            raise ValueError(f"{where} must be one of {list(typing.get_args(hint))}, got {value!r}")
        return value
    if isinstance(hint, type) and issubclass(hint, JsonRecord):
        return hint.from_json(value, where)
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where} must be a list, got {_kind(value)}")
        (item,) = typing.get_args(hint) or (Any,)
        return [_convert(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where} must be a JSON object, got {_kind(value)}")
        _, item = typing.get_args(hint) or (str, Any)
        return {k: _convert(item, v, f"{where}.{k}") for k, v in value.items()}
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where} must be a number, got {_kind(value)} {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where} must be an integer, got {_kind(value)} {value!r}")
        return value
    if hint in (bool, str):
        if not isinstance(value, hint):
            raise ValueError(f"{where} must be a {hint.__name__}, got {_kind(value)} {value!r}")
        return value
    raise TypeError(f"{where}: a JSON record cannot hold a field of type {hint!r}")


def _dump(value: Any) -> Any:
    if isinstance(value, JsonRecord):
        return value.to_json()
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value
