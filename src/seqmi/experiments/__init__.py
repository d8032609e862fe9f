"""The sweep points of the chapters: one module-level ``compute(point, checkpoint_dir)`` per sweep.

:func:`seqmi.sweep.run_sweep` sends a point to a worker process (Dask) together with its
compute function, so that function must be importable by name: it lives here, one
module per chapter, rather than in the chapter's cells. Each takes the point (what
varies along the sweep) and a frozen settings record (what every point shares, also
part of the cache key), rebuilds its data from seeds, trains, measures, and returns a
JSON-ready record.
"""

from seqmi._optional import require

require("torch")  # every module here needs it: a missing torch fails naming its extra
