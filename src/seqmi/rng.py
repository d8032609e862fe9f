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


def _word(key: Key) -> int:
    if isinstance(key, bool) or not isinstance(key, (int, str, np.integer)):
        raise TypeError(f"child_seed keys must be int or str, got {key!r} ({type(key).__name__})")
    if isinstance(key, str):
        # a stable digest: Python's own str hash changes between processes
        return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=4).digest(), "little")
    if key < 0:
        raise ValueError(f"child_seed integer keys must be >= 0, got {key}")
    return int(key)


def child_seed(seed: int, *keys: Key) -> int:
    """A 63-bit seed for the stream named ``keys`` under the parent ``seed``.

    Parameters
    ----------
    seed : int
        The parent seed (a chapter's ``seed`` parameter), ``>= 0``.
    *keys : int or str
        The path of the stream, e.g. ``("restart", 3)`` or ``("copy", T, "eval")``.
        Strings are hashed (stably across processes); integers must be ``>= 0``.

    Returns
    -------
    int
        In ``[0, 2**63)``: valid for :func:`torch.manual_seed` and
        :func:`numpy.random.default_rng`. The same arguments always give the same value;
        with no keys it is still a mixed child of ``seed``, not ``seed`` itself.

    Examples
    --------
    >>> child_seed(0, "restart", 1) == child_seed(0, "restart", 1)
    True
    >>> child_seed(0, "restart", 1) != child_seed(1, "restart", 0)
    True
    """
    check_int("seed", seed, 0)
    # keys go after the parent in the entropy; spawn_key would do too, but entropy
    # words keep the whole path in one documented place
    words = [int(seed)] + [_word(k) for k in keys]
    state = np.random.SeedSequence(words).generate_state(2, dtype=np.uint32)
    return int((int(state[0]) | (int(state[1]) << 32)) & (2**63 - 1))
