"""Chapter results: the JSON a chapter writes, its claims table, and reference runs.

Every chapter ends by calling :func:`save_results` with its checkable numbers and a
list of :class:`Claim` whose verdicts are computed, then :func:`claims_table` renders
the table *from the saved JSON*, so the prose can never drift from the computation.

File layout of one chapter's ``out_dir`` (and of ``results/full/<chapter>/``)::

    results.json      {"chapter": ..., "results": {...}, "claims": [...]}
    provenance.json   written by the executor: commit, profile, device, torch, wall time
    *.png             figures saved with :func:`save_figure`
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

VERDICTS = ("reproduced", "not reproduced", "erratum")
RESULTS_FILE = "results.json"
PROVENANCE_FILE = "provenance.json"
ROOT_ENV = "SEQMI_BOOK_ROOT"


@dataclass(frozen=True)
class Claim:
    """One row of a chapter's claims table.

    Attributes
    ----------
    claim : str
        What the paper states, in a few words.
    source : str
        Where: paper, equation, figure or section.
    measured : str
        Our number(s), formatted for the table.
    verdict : str
        One of ``"reproduced"``, ``"not reproduced"``, ``"erratum"``.
    """

    claim: str
    source: str
    measured: str
    verdict: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


def verdict(passed: bool) -> str:
    """``"reproduced"`` if ``passed`` else ``"not reproduced"``."""
    return "reproduced" if bool(passed) else "not reproduced"


def save_results(out_dir: str | os.PathLike, chapter: str, results: dict[str, Any], claims: list[Claim]) -> Path:
    """Write ``results.json`` (numbers and claims) into ``out_dir``.

    Parameters
    ----------
    out_dir : path
        The chapter's output folder (created if needed).
    chapter : str
        The chapter id, e.g. ``"00_mutual_information"``.
    results : dict
        JSON-serialisable numbers (numpy scalars and arrays are converted).
    claims : list of Claim
        The claims table rows.

    Returns
    -------
    pathlib.Path
        The written file.
    """
    path = Path(out_dir) / RESULTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"chapter": chapter, "results": results, "claims": [asdict(c) for c in claims]}
    path.write_text(json.dumps(payload, indent=2, default=_to_json) + "\n")
    return path


def load_results(out_dir: str | os.PathLike) -> dict[str, Any]:
    """Read the ``results.json`` that :func:`save_results` wrote in ``out_dir``."""
    return json.loads((Path(out_dir) / RESULTS_FILE).read_text())


def claims_markdown(payload: dict[str, Any]) -> str:
    """The claims of a results payload as a Markdown table."""
    rows = ["| claim | source | ours | verdict |", "| --- | --- | --- | --- |"]
    for c in payload["claims"]:
        cells = (c["claim"], c["source"], c["measured"], f"**{c['verdict']}**")
        rows.append("| " + " | ".join(s.replace("|", "\\|") for s in cells) + " |")
    return "\n".join(rows)


def claims_table(out_dir: str | os.PathLike) -> Any:
    """Display-ready claims table read back from ``out_dir/results.json``."""
    from IPython.display import Markdown

    return Markdown(claims_markdown(load_results(out_dir)))


def save_figure(fig: Any, out_dir: str | os.PathLike, name: str) -> Path:
    """Save a matplotlib figure as ``out_dir/name.png`` (150 dpi) and return the path."""
    path = Path(out_dir) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150, bbox_inches="tight")
    return path


def book_root(start: str | os.PathLike | None = None) -> Path | None:
    """The book's root folder: ``$SEQMI_BOOK_ROOT``, else the first parent holding ``_toc.yml``."""
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env)
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder
    return None


def reference_dir(chapter: str, root: str | os.PathLike | None = None) -> Path | None:
    """``results/full/<chapter>`` if a full-profile reference run was recorded, else ``None``."""
    base = Path(root) if root is not None else book_root()
    if base is None:
        return None
    folder = base / "results" / "full" / chapter
    return folder if (folder / RESULTS_FILE).is_file() else None


def show_reference(chapter: str, root: str | os.PathLike | None = None) -> None:
    """Display the recorded full-profile run of ``chapter``: provenance, claims, figures.

    Prints a one-line notice when no reference run has been recorded yet.
    """
    from IPython.display import Image, Markdown, display

    folder = reference_dir(chapter, root)
    if folder is None:
        display(Markdown(f"*No full-profile reference run of `{chapter}` has been recorded yet "
                         "(see the README: `make results PROFILE=full`).*"))
        return
    prov_path = folder / PROVENANCE_FILE
    if prov_path.is_file():
        prov = json.loads(prov_path.read_text())
        display(Markdown(
            f"Full-profile run: commit `{prov.get('commit', '?')[:10]}`, device {prov.get('device', '?')}, "
            f"torch {prov.get('torch', '?')}, {prov.get('wall_s', float('nan')):.0f} s."))
    display(Markdown(claims_markdown(load_results(folder))))
    for png in sorted(folder.glob("*.png")):
        display(Image(filename=str(png)))


def _to_json(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in results JSON")
