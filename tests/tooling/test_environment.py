"""The installed environment is the locked one: every pin of requirements/lock.txt holds."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"


def _pins() -> dict[str, str]:
    """``{normalised name: version}`` of every line of the lock."""
    pins = {}
    for line in LOCK.read_text().split():
        name, _, version = line.partition("==")
        pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def _system_torch() -> bool:
    """Whether torch is deliberately reused from outside the venv (VENV_ARGS=--system-site-packages)."""
    import torch

    cfg = Path(sys.prefix) / "pyvenv.cfg"
    shared = cfg.is_file() and re.search(r"include-system-site-packages\s*=\s*true", cfg.read_text(), re.I)
    inside = Path(torch.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())
    return bool(shared) and not inside


def test_lock_pins_every_package_exactly_and_torch_too():
    lines = LOCK.read_text().split()
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][^=+\s]*", line) for line in lines), \
        "every lock line must be `name==version`, without a local label such as +cpu"
    assert "torch" in _pins(), "torch must be locked with everything else"


def test_environment_yml_installs_the_same_lock():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    requirement_files = [entry.split(None, 1)[1] for entry in pip_section if entry.startswith("-r ")]
    assert requirement_files == ["requirements/lock.txt"], pip_section


def test_torch_is_the_locked_version():
    import torch

    locked = Version(_pins()["torch"])
    installed = Version(torch.__version__)
    if installed.public != locked.public and _system_torch():
        pytest.skip(f"the venv reuses a system torch {installed} (VENV_ARGS=--system-site-packages)")
    # a local label (+cpu, +cu126) is the build pip's sources offered, not another version
    assert installed.public == locked.public, f"torch {installed} is installed, the lock says {locked}"


def test_every_locked_package_is_installed_at_its_version():
    wrong = []
    for name, version in _pins().items():
        if name == "torch":
            continue  # checked above, with the system-torch exception
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{name}: not installed (lock: {version})")
            continue
        if Version(installed).public != Version(version).public:
            wrong.append(f"{name}: {installed} installed, lock: {version}")
    assert not wrong, "the venv differs from requirements/lock.txt:\n" + "\n".join(wrong)
