"""Execute the book's chapters with papermill and render them with Jupyter Book.

Usage (from the book root, the folder holding ``_toc.yml``)::

    python -m seqmi.book list
    python -m seqmi.book execute --profile quick|reference|full [--only ID ...] [-p NAME VALUE ...] [-y YAML]
    python -m seqmi.book build   --profile quick|reference|full
    python -m seqmi.book record  --profile reference|full [--only ID ...]
    python -m seqmi.book record  --profile reference|full --only ID --section NAME
    python -m seqmi.book reclaim --profile reference|full [--only ID ...]
    python -m seqmi.book mathjax [--tarball PATH]

Chapters are the ``notebooks/*`` entries of ``_toc.yml``, jupytext MyST markdown files.
``execute`` runs each one with papermill into ``_build/<profile>/``, passing it the
profile's parameters, its ``out_dir`` and the ``profile`` itself::

    executed/<id>.ipynb        the executed notebook
    artifacts/<id>/            the chapter's out_dir: results.json, figures, provenance.json
    manifest.json              status and wall time of every executed chapter
    passes/<id>.json           the passes of a run resumed over several executions
                               (seqmi.passes): its provenance gives each and the total

``build`` stages a copy of the book in which every chapter is its executed notebook,
writes the claims scoreboard's table (:mod:`seqmi.claims.scoreboard`), turns Jupyter
Book's own execution off, and renders it with ``--all -W -n
--keep-going``: a warning, a broken reference, or a chapter that failed to execute
fails the build. Jupyter Book's execution cache is never used, because it keys on
code cells only and would miss a change in ``src/``.

Its jobs live in private modules, and every public name is imported from here: the
chapters and their parameters (``_chapters``), the papermill runs (``_running``), the
staged book, its run boxes and MathJax (``_staging``), the recorded runs under
``results/<profile>/`` (``_recordings``), and the command line (``_cli``).
"""

from __future__ import annotations

from seqmi.book._chapters import (REQUIRED_PARAMETERS, BookError, Parameter, build_dir, chapter_path,
                                  chapters, check_overrides, cli_overrides, declared_parameters,
                                  describe_parameters, find_root, profile_overrides, read_chapter,
                                  section_notebook, select)
from seqmi.book._cli import main
from seqmi.book._recordings import merge_section, moved_claims, reclaim, record, record_section
from seqmi.book._running import PROGRESS_POLL_S, SWEEP_LOG, execute, execute_section, run_notebook
from seqmi.book._staging import (MATHJAX_DIR, MATHJAX_SHA1, MATHJAX_URL, MATHJAX_VERSION, PARAMETER_LABELS,
                                 STAGED_FOLDERS, _filter_toc, _stage_chapter, build, install_mathjax,
                                 run_box, stage)
from seqmi.profiles import CPU_PROFILES, PROFILES

# what the API reference documents here, in this order (autodoc follows __all__)
__all__ = [
    "PROFILES", "CPU_PROFILES", "REQUIRED_PARAMETERS", "BookError", "Parameter",
    "find_root", "chapters", "select", "chapter_path", "read_chapter", "declared_parameters",
    "profile_overrides", "check_overrides", "cli_overrides", "describe_parameters", "build_dir",
    "section_notebook",
    "SWEEP_LOG", "PROGRESS_POLL_S", "run_notebook", "execute", "execute_section",
    "STAGED_FOLDERS", "PARAMETER_LABELS", "stage", "run_box", "build",
    "MATHJAX_VERSION", "MATHJAX_URL", "MATHJAX_SHA1", "MATHJAX_DIR", "install_mathjax",
    "record", "record_section", "merge_section", "reclaim", "moved_claims",
    "main",
]
