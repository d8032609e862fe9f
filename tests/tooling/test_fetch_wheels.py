"""scripts/fetch_wheels.sh without network: its help and its dry run say what it would fetch."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fetch_wheels.sh"


def run(*args):
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def lock_pin(name):
    return next(line for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines()
                if line.lower().startswith(name + "=="))


def test_help_states_the_default_set_and_the_size_limit():
    done = run("--help")
    assert done.returncode == 0
    for text in ("default 3.12", "papermill, jupytext", "ipykernel and mambapy", "60 MB", "scripts/node_setup.sh",
                 "SmolLM2"):
        assert text in done.stdout


def test_dry_run_fetches_the_missing_packages_at_their_lock_versions():
    done = run("--dry-run", "3.12.3", "some/where")
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert "--python-version 3.12.3" in first and "--platform manylinux2014_x86_64" in first
    assert "-d some/where" in first and "--no-deps" not in first
    for name in ("papermill", "jupytext", "ipykernel"):
        assert lock_pin(name) in first
    assert "--no-deps" in second and lock_pin("mambapy") in second
    assert "torch" not in first.split("-c")[1]  # the node's own torch is kept
    assert "torch triton numpy" in done.stdout  # removed after the download: the node has them
    assert not (ROOT / "some").exists()


def test_dry_run_defaults_and_errors():
    assert "--python-version 3.12 " in run("--dry-run").stdout
    assert lock_pin("numba") in run("--dry-run", "--extra", "numba").stdout
    bad = run("--dry-run", "--extra", "no-such-package")
    assert bad.returncode == 2 and "'no-such-package' is not in requirements/lock.txt" in bad.stderr
    assert "must look like 3.12 or 3.12.3, got '3.x'" in run("3.x").stderr
    assert "unknown option '--fast'" in run("--fast").stderr
