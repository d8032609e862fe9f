"""A Sphinx extension of the book: each chapter page offers its jupytext source for download.

sphinx-book-theme's download menu offers the page's source, which in the staged book is
the executed ``.ipynb``. Readers who adapt a chapter want the ``.md`` they can edit and
run with papermill, so this adds it to the same menu. ``seqmi.book.stage`` sets
``seqmi_chapter_sources`` to the book's ``notebooks/`` folder; when it is empty (a plain
Jupyter Book build of the repository) nothing is added.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

BUTTON_LABEL = "download-chapter-source-button"


def setup(app: Any) -> dict[str, Any]:
    """Register the config value and the page hook (after the theme builds its buttons)."""
    app.add_config_value("seqmi_chapter_sources", "", "html")
    # the theme fills its header buttons at priority 501; this must run after it
    app.connect("html-page-context", add_source_download, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def add_source_download(app: Any, pagename: str, templatename: str, context: dict[str, Any],
                        doctree: Any) -> None:
    """Copy ``notebooks/<page>.md`` into ``_sources/`` and add a ``.md`` entry to the download menu."""
    folder = app.config.seqmi_chapter_sources
    if not folder or not pagename.startswith("notebooks/"):
        return
    source = Path(folder) / f"{Path(pagename).name}.md"
    if not source.is_file():
        return
    target = Path(app.outdir) / "_sources" / "notebooks" / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].insert(0, {
                "type": "link",
                "url": f"{context['pathto']('_sources', 1)}/notebooks/{source.name}",
                "text": ".md",
                "tooltip": "Download the chapter source (jupytext MyST, runs with papermill)",
                "icon": "fas fa-file-code",
                "label": BUTTON_LABEL,
            })
