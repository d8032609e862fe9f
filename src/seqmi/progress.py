"""Progress bars that stay readable wherever a loop runs.

In a terminal, :func:`progress_bar` is tqdm's bar. In a Jupyter kernel (a chapter executed
by papermill, or opened in JupyterLab), every refresh of a text bar would be kept as one
more line of the cell's output, and the rendered book would show a stack of them; there
the bar draws nothing while it runs and prints its final state, one line, when it
closes. tqdm's widget bar needs ``ipywidgets`` and a live browser, and an executed
notebook keeps neither.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from typing import Any

from tqdm import tqdm


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (IPython's ZMQ shell)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


class SummaryBar(tqdm):
    """A tqdm bar that writes nothing while it runs and prints one line at its end.

    The line is tqdm's own meter of the final state (count, elapsed time, rate), on
    standard output; a bar made with ``leave=False`` or ``disable=True`` prints nothing.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["file"] = io.StringIO()  # the live refreshes go nowhere
        super().__init__(*args, **kwargs)
        self._reported = False

    def close(self) -> None:
        if not self.disable and self.leave and not self._reported:
            self._reported = True
            line = self.format_meter(**self.format_dict)
            super().close()
            print(line, file=sys.stdout, flush=True)
            return
        super().close()


def progress_bar(iterable: Iterable[Any] | None = None, **kwargs: Any) -> tqdm:
    """A progress bar over ``iterable`` (or of ``total`` steps): tqdm's arguments.

    tqdm's bar in a terminal; a :class:`SummaryBar` in a Jupyter kernel.
    """
    cls = SummaryBar if in_kernel() else tqdm
    return cls(iterable, **kwargs)
