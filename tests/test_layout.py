"""The tests' folders mirror the package: each subpackage of ``seqmi`` is tested in ``tests/<name>/``.

Tests of a top-level module sit at the top (``tests/test_<module>.py``); the chapters'
executed outputs in ``tests/chapters/``, and the set-up scripts in ``tests/tooling/``.
"""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "src" / "seqmi"
# folders of tests that no subpackage names: the chapters' outputs and the set-up scripts
OTHER_FOLDERS = {"chapters", "tooling"}


def _subpackages() -> set[str]:
    return {p.parent.name for p in PACKAGE.glob("*/__init__.py")}


def _test_folders() -> set[str]:
    return {p.name for p in TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}


def test_every_subpackage_has_its_test_folder():
    assert _subpackages() - _test_folders() == set()


def test_every_test_folder_names_a_subpackage_or_says_what_it_tests():
    assert _test_folders() - _subpackages() - OTHER_FOLDERS == set()


def test_top_level_tests_are_named_after_a_module_of_the_package():
    """``test_<module>.py``, or ``test_<module>_<topic>.py`` for one topic of a large module."""
    modules = {p.stem.lstrip("_") for p in PACKAGE.glob("*.py")} - {"init"}
    # the package's layering and this layout are tested at the top, of the package as a whole
    whole = {"import_graph", "layout"}
    names = {p.stem.removeprefix("test_") for p in TESTS.glob("test_*.py")} - whole
    assert {n for n in names if not any(n == m or n.startswith(m + "_") for m in modules)} == set()


def test_no_two_test_files_share_a_name():
    """The folders have no ``__init__.py``: pytest imports each test file by its name alone."""
    names = [p.name for p in TESTS.rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []
