"""scripts/thread_check.py: the trained chapters run with 1 and 2 threads, their claims compared."""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from seqmi import book

ROOT = Path(__file__).resolve().parents[2]


def load_script():
    spec = importlib.util.spec_from_file_location("thread_check", ROOT / "scripts" / "thread_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["thread_check"] = module
    spec.loader.exec_module(module)
    return module


def fake_execute(claims_by_threads, runs):
    """An executor that writes, for each thread count, the given claim list of every chapter."""

    def execute(root, profile, chapters, extra=None, out=None):
        assert os.environ["OMP_NUM_THREADS"] == os.environ["NUMBA_NUM_THREADS"] == str(extra["cpu_threads"])
        runs.append((profile, tuple(chapters), extra))
        for chapter in chapters:
            folder = out / "artifacts" / chapter
            folder.mkdir(parents=True, exist_ok=True)
            claims = claims_by_threads[extra["cpu_threads"]]
            (folder / "results.json").write_text(json.dumps({"chapter": chapter, "results": {}, "claims": claims}))
        return {chapter: {"status": "ok"} for chapter in chapters}

    return execute


def claim(value, ci, verdict):
    return {"id": "shen2019.x.y", "kind": "statistical", "value": value, "ci": ci, "verdict": verdict}


@pytest.mark.parametrize("two, code", [
    (claim(0.30, [0.02, 0.50], "reproduced"), 0),  # identical
    (claim(0.29, [-0.01, 0.50], "inconclusive"), 0),  # a verdict at the edge: the numbers agree
    (claim(-0.30, [-0.55, -0.05], "not reproduced"), 1),  # moved by more than both intervals allow
])
def test_the_check_runs_quick_at_one_and_two_threads_and_fails_beyond_the_statistics(tmp_path, monkeypatch,
                                                                                        capsys, two, code):
    thread_check = load_script()
    runs = []
    one = claim(0.30, [0.02, 0.50], "reproduced")
    monkeypatch.setattr(book, "execute", fake_execute({1: [one], 2: [two]}, runs))
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        monkeypatch.setenv(name, os.environ.get(name, "1"))  # put back after the test
    assert thread_check.main(["--only", "03", "--out", str(tmp_path)]) == code
    assert [(p, extra) for p, _, extra in runs] == [("quick", {"cpu_threads": 1}), ("quick", {"cpu_threads": 2})]
    printed = capsys.readouterr().out
    assert ("DIFFERS" in printed) == bool(code)


def test_the_default_chapters_are_those_that_train_and_declare_cpu_threads():
    thread_check = load_script()
    for chapter in book.select(ROOT, thread_check.TRAINED):
        assert "cpu_threads" in book.declared_parameters(book.read_chapter(ROOT, chapter)), chapter
