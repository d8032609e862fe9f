"""A GPU node's set-up (scripts/node_setup.sh) on a CPU: the node's torch lives in a venv.

This test suite's own venv plays the node's: its Python imports torch. A venv made from it
does not (a venv made from a venv's Python gets the base interpreter's site-packages), which
is why the set-up script makes none: it finds the Python that imports torch, installs the
carried wheels into a folder of their own, and puts that folder and ``src`` on its path.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "node_setup.sh"


def _wheel(folder: Path, name: str = "carried_pkg") -> Path:
    """A minimal pure-Python wheel of a module ``name`` (what fetch_wheels.sh would carry)."""
    files = {f"{name}/__init__.py": b"CARRIED = True\n",
             f"{name}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
             f"{name}-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                            b"Tag: py3-none-any\n"}

    def digest(data: bytes) -> str:
        return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

    record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in files.items())
    files[f"{name}-1.0.dist-info/RECORD"] = (record + f"{name}-1.0.dist-info/RECORD,,\n").encode()
    path = folder / f"{name}-1.0-py3-none-any.whl"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return path


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def inner_venv(tmp_path_factory) -> Path:
    """A venv made, as the old recipe did, from this suite's venv Python (the node's)."""
    inner = tmp_path_factory.mktemp("node") / "inner"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(inner)],
                   check=True, timeout=120)
    return inner


def test_a_venv_made_from_the_nodes_venv_loses_its_torch(inner_venv):
    probe = subprocess.run([str(inner_venv / "bin" / "python"), "-c", "import torch"], capture_output=True)
    assert probe.returncode != 0 and b"No module named 'torch'" in probe.stderr


def test_the_set_up_finds_the_python_with_torch_and_carries_the_wheels(inner_venv, tmp_path):
    wheels = tmp_path / "wheels"
    _wheel(wheels)
    env_file = tmp_path / "node.env"
    # the first python3 on the path has no torch; the node's venv is the active one
    env = {**os.environ, "PATH": f"{inner_venv / 'bin'}:{os.environ['PATH']}",
           "VIRTUAL_ENV": str(Path(sys.executable).parents[1])}
    env.pop("PYTHON", None)
    env.pop("PYTHONPATH", None)
    done = _run(["--cpu", "--wheels", str(wheels), "--site", str(tmp_path / "site"), "--env", str(env_file)], env)
    assert done.returncode == 0, done.stderr
    assert f"Python with torch: {Path(sys.executable).parent}" in done.stdout
    check = subprocess.run(["bash", "-c", f'. "{env_file}" && "$SEQMI_PYTHON" -c "import torch, seqmi, papermill, '
                            'carried_pkg; print(carried_pkg.CARRIED, seqmi.__file__)"'],
                           env={**env, "PATH": os.environ["PATH"]}, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    assert check.stdout.split()[0] == "True" and check.stdout.split()[1].startswith(str(ROOT / "src"))


def test_the_set_up_names_what_it_cannot_find(inner_venv, tmp_path):
    env = {**os.environ}
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    no_torch = _run(["--python", str(inner_venv / "bin" / "python"), "--cpu", "--wheels", str(wheels),
                     "--env", str(tmp_path / "e")], env)
    assert no_torch.returncode == 1 and "no Python imports torch" in no_torch.stderr
    # a Python without CUDA is refused unless --cpu says it is a check (on a CPU machine)
    import torch

    if not torch.cuda.is_available():
        no_cuda = _run(["--python", sys.executable, "--wheels", str(wheels), "--env", str(tmp_path / "e")], env)
        assert no_cuda.returncode == 1 and "no Python imports torch with CUDA" in no_cuda.stderr
    missing = _run(["--wheels", str(tmp_path / "none")], env)
    assert missing.returncode == 2 and "no wheels folder" in missing.stderr
