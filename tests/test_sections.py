"""A section's parameters: those its cells read, directly or through the set-up cells."""

from pathlib import Path

import jupytext
import nbformat
import pytest

from seqmi.sections import parameters_read

ROOT = Path(__file__).resolve().parents[1]


def _cell(source, *tags):
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)})


def test_a_section_reads_what_its_cells_and_the_setup_they_use_read():
    cells = [_cell("a = 1\nb = 2\nc = 3\nd = 4", "parameters"),
             _cell("x = f(a)\ny = g(b)\ndef h():\n    return c", "setup"),
             _cell("z = x + h()\n%time print(z)", "section-s1"),
             _cell("w = y + d", "section-s2"),
             nbformat.v4.new_markdown_cell("text")]
    assert parameters_read(cells, "s1") == {"a", "c"}
    assert parameters_read(cells, "s2") == {"b", "d"}
    with pytest.raises(ValueError, match="no code cell is tagged 'section-s3'"):
        parameters_read(cells, "s3")


def test_chapter_06s_gradient_profiles_do_not_read_the_agents_sizes():
    cells = jupytext.read(ROOT / "notebooks" / "06_attention_gradients.md").cells
    fig3, table4 = parameters_read(cells, "fig3"), parameters_read(cells, "table4")
    assert {"profile_replicates", "profile_steps"} <= fig3 and not any(p.startswith("minigrid") for p in fig3)
    assert {"minigrid_replicates", "minigrid_updates"} <= table4 and "profile_replicates" not in table4
