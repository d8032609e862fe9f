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
