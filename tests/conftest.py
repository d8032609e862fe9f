"""Shared fixtures: one quick-profile execution of the book per test session, and the
suite's CPU threads, set here and nowhere else."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from seqmi.device import thread_env

# The suite's thread count: OMP_NUM_THREADS as the caller sets it, else one. Exported before
# any library that sizes a pool at load time is imported (numba reads NUMBA_NUM_THREADS
# then), so papermill's kernels and every subprocess start with the same pools; a test
# needing another count takes the `cpu_threads` fixture, which puts this one back.
SUITE_THREADS = int(os.environ.get("OMP_NUM_THREADS") or 1)
os.environ.update(thread_env(SUITE_THREADS))

from seqmi import book, report  # noqa: E402  (after the thread environment)

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    from seqmi.device import set_cpu_threads

    set_cpu_threads(SUITE_THREADS)


def pytest_report_header(config: pytest.Config) -> str:
    return f"CPU threads (torch, numba, BLAS, OpenMP): {SUITE_THREADS} (OMP_NUM_THREADS sets it)"


@pytest.fixture
def cpu_threads() -> Callable[[int], Any]:
    """``cpu_threads(n)``: a context in which every CPU pool runs ``n`` threads.

    On leaving it, the pools are back at the suite's count (:data:`SUITE_THREADS`).
    """
    from seqmi.device import set_cpu_threads

    @contextmanager
    def threads(n: int) -> Iterator[int]:
        set_cpu_threads(n)
        try:
            yield n
        finally:
            set_cpu_threads(SUITE_THREADS)

    return threads


class BookRun:
    """Executes chapters (quick profile) on first request, once per session, into ``out``."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.manifest: dict[str, dict[str, Any]] = {}
        self._index: Path | None = None

    def chapter(self, chapter: str) -> Path:
        """Execute ``chapter`` if not done yet; return its artifacts folder."""
        if chapter not in self.manifest:
            self.manifest.update(book.execute(ROOT, "quick", [chapter], out=self.out))
        entry = self.manifest[chapter]
        if entry["status"] != "ok":
            pytest.fail(f"{chapter} failed under papermill: {entry['error']}")
        return self.out / "artifacts" / chapter

    def results(self, chapter: str) -> dict[str, Any]:
        """The ``results`` dict that ``chapter`` saved."""
        return report.load_results(self.chapter(chapter))["results"]

    def claims(self, chapter: str) -> list[dict[str, Any]]:
        """The claims that ``chapter`` stored, as computed by its rule from its saved numbers."""
        return report.load_results(self.chapter(chapter))["claims"]

    def html(self) -> Path:
        """Execute every chapter and build the book once; return ``index.html``."""
        if self._index is None:
            for chapter in book.chapters(ROOT):
                self.chapter(chapter)
            self._index = book.build(ROOT, "quick", out=self.out)
        return self._index


@pytest.fixture(scope="session")
def book_run(tmp_path_factory: pytest.TempPathFactory) -> BookRun:
    return BookRun(tmp_path_factory.mktemp("book"))


@pytest.fixture
def fake_cuda_generators(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[Any]], list[Any]]:
    """A CPU machine that says it has one GPU whose generator states are ``states``.

    Calling the fixture with ``states`` patches ``torch.cuda``; the list it returns
    collects every ``set_rng_state_all`` call (the states a restore hands back).
    """
    import torch

    def fake(states: list[Any]) -> list[Any]:
        restored: list[Any] = []
        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
        monkeypatch.setattr(torch.cuda, "get_rng_state_all", lambda: states)
        monkeypatch.setattr(torch.cuda, "set_rng_state_all", restored.append)
        return restored

    return fake
