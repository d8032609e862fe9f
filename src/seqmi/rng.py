"""One convention for seeds: every random stream is a named child of the chapter's seed.

A chapter has one ``seed`` parameter. Each random stream it needs (restart ``r`` of a
model, the batches of a task, a held-out set, a sampler) takes its own seed from
:func:`child_seed` with keys naming that stream, instead of hand offsets such as
``seed * 1000 + r``: those collide (``seed=1, r=0`` and ``seed=0, r=1000``) and say
nothing about what they seed. :class:`numpy.random.SeedSequence` mixes the keys into
the entropy with a hash designed for this, so any two distinct key paths give
independent streams.
"""

from __future__ import annotations

import hashlib

import numpy as np

from seqmi.validate import check_int

Key = int | str


def _words(key: Key) -> tuple[int, int]:
    """A key as two 32-bit words: its type (0 int, 1 str) and its value.

    The tag keeps an integer from colliding with a string whose digest equals it.
    """
    if isinstance(key, bool) or not isinstance(key, (int, str, np.integer)):
        raise TypeError(f"child_seed keys must be int or str, got {key!r} ({type(key).__name__})")
    if isinstance(key, str):
        # a stable digest: Python's own str hash changes between processes
        return 1, int.from_bytes(hashlib.blake2b(key.encode(), digest_size=4).digest(), "little")
    if not 0 <= key < 2**32:
        raise ValueError(f"child_seed integer keys must be in [0, 2**32), got {key}")
    return 0, int(key)


def child_seed(seed: int, *keys: Key) -> int:
    """A 63-bit seed for the stream named ``keys`` under the parent ``seed``.

    Parameters
    ----------
    seed : int
        The parent seed (a chapter's ``seed`` parameter), in ``[0, 2**63)``.
    *keys : int or str
        The path of the stream, e.g. ``("restart", 3)`` or ``("copy", T, "eval")``.
        Strings are hashed (stably across processes, 32 bits); integers must be in
        ``[0, 2**32)``.

    Returns
    -------
    int
        In ``[0, 2**63)``: valid for :func:`torch.manual_seed` and
        :func:`numpy.random.default_rng`. The same arguments always give the same value;
        with no keys it is still a mixed child of ``seed``, not ``seed`` itself.

    Notes
    -----
    The parent is the sequence's entropy and the path its spawn key, prefixed with the
    number of keys, each key two words (type, value). numpy pads the entropy, never the
    spawn key, to four words, so distinct ``(seed, keys)`` give distinct inputs to the
    hash (``("a",)`` and ``("a", 0)`` differ, as do ``(1,)`` and ``("1",)``).

    Examples
    --------
    >>> child_seed(0, "restart", 1) == child_seed(0, "restart", 1)
    True
    >>> child_seed(0, "restart", 1) != child_seed(1, "restart", 0)
    True
    """
    check_int("seed", seed, 0, 2**63 - 1)
    path = [len(keys)] + [w for k in keys for w in _words(k)]
    state = np.random.SeedSequence(int(seed), spawn_key=path).generate_state(2, dtype=np.uint32)
    return int((int(state[0]) | (int(state[1]) << 32)) & (2**63 - 1))
