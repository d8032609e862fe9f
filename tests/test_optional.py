"""The core installs light: what needs torch, Dask, MiniGrid or the KJV corpus is an extra.

``pip install seqmi`` brings the core's dependencies only (pyproject.toml); importing the
core must load no optional package and need nothing outside those dependencies and the
standard library, and a module that needs an extra fails naming it.
"""

import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from seqmi._optional import EXTRAS, require

ROOT = Path(__file__).parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# the modules that need an extra (a module under one of these prefixes is not core)
OUTSIDE_CORE = ("seqmi.models", "seqmi.recipes", "seqmi.experiments", "seqmi.train", "seqmi.family", "seqmi.l2m",
                "seqmi.bipartite", "seqmi.theory.memorisation")

# Run in a fresh interpreter: the top-level modules named on stdin made unimportable, every
# core module imported, one estimate computed; prints the core and the top-level modules loaded.
CORE_RUN = """
import importlib, json, pkgutil, sys
import numpy as np

task = json.load(sys.stdin)
BLOCKED, OUTSIDE = set(task["blocked"]), tuple(task["outside"])

class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name.partition(".")[0])

sys.meta_path.insert(0, Block())
import seqmi

def walk(folder, prefix):
    # pkgutil.walk_packages would import the packages outside the core to look inside
    for m in pkgutil.iter_modules([folder], prefix):
        if not m.name.startswith(OUTSIDE):
            yield m.name
            if m.ispkg:
                yield from walk(f"{folder}/{m.name.rpartition('.')[2]}", m.name + ".")

core = list(walk(seqmi.__path__[0], "seqmi."))
for name in core:
    importlib.import_module(name)
from seqmi.info import two_point_mi
x = np.random.default_rng(0).integers(0, 2, size=(50, 200))
assert two_point_mi(x, 5).shape[0] >= 5
print(json.dumps({"core": core, "loaded": sorted({m.partition(".")[0] for m in sys.modules})}))
"""


def _core_run(blocked: set[str]) -> dict:
    task = json.dumps({"blocked": sorted(blocked), "outside": OUTSIDE_CORE})
    out = subprocess.run([sys.executable, "-c", CORE_RUN], input=task, capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    return json.loads(out.splitlines()[-1])


def _requirements(names: list[str]) -> list[Requirement]:
    return [Requirement(r) for r in names]


def _closure(distributions: set[str]) -> set[str]:
    """The distributions and everything they require (markers read without extras), installed."""
    seen, todo = set(), [d.lower() for d in distributions]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name.lower().replace("_", "-"))
    return seen


def test_every_optional_package_has_the_extra_that_installs_it():
    extras = PYPROJECT["optional-dependencies"]
    for module, extra in EXTRAS.items():
        reqs = _requirements(extras[extra])
        assert any(r.name == module or module in r.extras for r in reqs), (module, extra)
    for extra in set(EXTRAS.values()):
        for req in _requirements(extras[extra]):
            assert req.name == "seqmi" or req.name in EXTRAS, f"[{extra}] brings {req.name}, absent from EXTRAS"
    core = {r.name for r in _requirements(PYPROJECT["dependencies"])}
    assert not core & set(EXTRAS), "an optional package is also a core dependency"
    assert set(_requirements(extras["all"])[0].extras) == set(EXTRAS.values())


def test_the_core_imports_and_computes_with_its_dependencies_alone():
    # as after `pip install seqmi`: every installed package that the core's dependencies do
    # not bring is unimportable (an optional import inside a dependency fails as it would)
    allowed = _closure({r.name for r in _requirements(PYPROJECT["dependencies"])}) | {"seqmi"}
    blocked = {module for module, owners in metadata.packages_distributions().items()
               if module not in sys.stdlib_module_names
               and not {d.lower().replace("_", "-") for d in owners} & allowed}
    assert set(EXTRAS) <= blocked and "numpy" not in blocked
    run = _core_run(blocked)
    assert {"seqmi.info", "seqmi.pair_counts", "seqmi.fit", "seqmi.data.text", "seqmi.theory.ngram_ssm",
            "seqmi.claims.scoreboard", "seqmi.sweep"} <= set(run["core"])


def test_importing_the_core_loads_no_optional_package():
    # with every extra installed, the core still leaves them unloaded (they are slow to import)
    assert not set(_core_run(set())["loaded"]) & set(EXTRAS)


@pytest.mark.parametrize("module, extra", [("seqmi.models.lm", "models"), ("seqmi.train", "models"),
                                           ("seqmi.recipes.ppo", "models")])
def test_a_module_that_needs_an_extra_fails_naming_it(module, extra):
    blocked = "import sys\nclass B:\n    def find_spec(self, name, path=None, target=None):\n" \
              "        if name.partition('.')[0] in %r:\n" \
              "            raise ModuleNotFoundError(name, name=name.partition('.')[0])\n" \
              "sys.meta_path.insert(0, B())\nimport %s\n" % (sorted(EXTRAS), module)
    run = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode != 0 and f"pip install 'seqmi[{extra}]'" in run.stderr


def test_require_returns_the_module_and_refuses_what_is_not_an_extra():
    assert require("torch.nn").Module is not None
    with pytest.raises(ValueError, match="'numpy' is not an optional dependency of seqmi; those are: torch"):
        require("numpy")
