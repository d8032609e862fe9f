"""Argument checks that fail early with a message naming the value and what is allowed."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray


def check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` if it is an integer in ``[low, high]``, else raise ``ValueError``.

    Parameters
    ----------
    name : str
        The parameter's name, quoted in the message.
    value : Any
        The value to check; booleans are rejected.
    low, high : int, optional
        Inclusive bounds; ``None`` means unbounded.

    Returns
    -------
    int
        ``value`` as a Python ``int``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    _check_bounds(name, value, low, high)
    return int(value)


def check_float(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a float if it is a real number in the given interval.

    Parameters
    ----------
    name : str
        The parameter's name, quoted in the message.
    value : Any
        The value to check; booleans and NaN are rejected.
    low, high : float, optional
        Bounds; ``None`` means unbounded.
    low_open, high_open : bool
        Whether the corresponding bound is excluded.

    Returns
    -------
    float
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        raise ValueError(f"{name} must be a real number, got {value!r}")
    _check_bounds(name, value, low, high, low_open=low_open, high_open=high_open)
    return float(value)


def check_int_list(
    name: str, value: Any, low: int | None = None, high: int | None = None, *, min_len: int = 1
) -> list[int]:
    """Return ``value`` if it is a list of at least ``min_len`` integers in ``[low, high]``.

    Parameters
    ----------
    name : str
        The parameter's name, quoted in the message.
    value : Any
        The list to check.
    low, high : int, optional
        Inclusive bounds of every entry; ``None`` means unbounded.
    min_len : int
        Smallest allowed length.

    Returns
    -------
    list of int
    """
    _check_list(name, value, min_len, "integers")
    return [check_int(f"{name}[{i}]", v, low, high) for i, v in enumerate(value)]


def check_float_list(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    min_len: int = 1,
) -> list[float]:
    """Return ``value`` as floats if it is a list of at least ``min_len`` reals in the interval.

    Bounds as in :func:`check_float`; lengths as in :func:`check_int_list`.
    """
    _check_list(name, value, min_len, "real numbers")
    return [check_float(f"{name}[{i}]", v, low, high, low_open=low_open, high_open=high_open)
            for i, v in enumerate(value)]


def _check_list(name: str, value: Any, min_len: int, what: str) -> None:
    if not isinstance(value, (list, tuple)) or len(value) < min_len:
        raise ValueError(f"{name} must be a list of at least {min_len} {what}, got {value!r}")


def check_lags(lags: ArrayLike) -> NDArray[np.integer]:
    """Return ``lags`` as an integer array if every distance is ``>= 1``."""
    tau = np.asarray(lags)
    if tau.size == 0 or not np.issubdtype(tau.dtype, np.integer):
        raise ValueError(f"lags must be a non-empty array of integers, got {lags!r}")
    if np.any(tau < 1):
        raise ValueError(f"lags must be >= 1, got minimum {tau.min()}")
    return tau


def check_type(name: str, value: Any, kind: type) -> Any:
    """Return ``value`` if it is an instance of ``kind``, else raise ``ValueError``."""
    if not isinstance(value, kind):
        raise ValueError(f"{name} must be a {kind.__name__}, got {type(value).__name__} {value!r}")
    return value


def check_multiples(name: str, value: Any, of: int, of_name: str) -> list[int]:
    """Return ``value`` if it is a list of positive integers, each a multiple of ``of`` (named ``of_name``)."""
    if any(v % of for v in check_int_list(name, value, 1)):
        raise ValueError(f"{name} must list multiples of {of_name}={of}, got {list(value)!r}")
    return list(value)


def check_increasing(name: str, value: Any, low: int, high: int, *, min_len: int = 1, even: bool = False) -> list[int]:
    """Return ``value`` if it lists at least ``min_len`` increasing distinct integers in ``[low, high]`` (even ones if ``even``)."""
    values = check_int_list(name, value, low, high, min_len=min_len)
    if values != sorted(set(values)) or (even and any(v % 2 for v in values)):
        kind = "increasing even" if even else "increasing distinct"
        raise ValueError(f"{name} must list {kind} integers, got {value!r}")
    return values


def check_kinds(name: str, value: Any, choices: Iterable[Any], required: Any) -> list[Any]:
    """Return ``value`` if it is a list of entries of ``choices`` that contains ``required``."""
    if not isinstance(value, list) or required not in value:
        raise ValueError(f"{name} must be a list containing {required!r}, got {value!r}")
    for entry in value:
        check_choice(f"{name} entry", entry, choices)
    return value


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError``."""
    allowed = list(choices)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _check_bounds(
    name: str,
    value: float,
    low: float | None,
    high: float | None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> None:
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else repr(low)
        hi = "inf" if high is None else repr(high)
        raise ValueError(f"{name} must be in {left}{lo}, {hi}{right}, got {value!r}")
