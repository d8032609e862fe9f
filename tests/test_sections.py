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


def test_a_record_built_by_name_reads_its_fields_under_its_prefix_or_shared():
    # DesignSettings' fields include n_seq, amplitude and seed
    cells = [_cell("pilot_n_seq = 50\nn_seq = 40\namplitude = 0.5\nseed = 0\nunrelated = 1", "parameters"),
             _cell("from seqmi.experiments.ch02_binary_sequences import DesignSettings\n"
                   "s = from_parameters(DesignSettings, globals(), 'pilot_', amplitude=2 * unrelated)", "setup"),
             _cell("print(s)", "section-s1")]
    assert parameters_read(cells, "s1") == {"pilot_n_seq", "seed", "unrelated"}


def test_a_field_of_a_record_built_by_name_reads_only_what_that_field_took():
    cells = [_cell("n_seq = 40\namplitude = 0.5\nseed = 0\nother_seed = 3", "parameters"),
             _cell("from seqmi.experiments.ch02_binary_sequences import DesignSettings\n"
                   "a = from_parameters(DesignSettings, globals())\n"
                   "b = from_parameters(DesignSettings, globals(), 'other_', n_seq=a.n_seq)", "setup"),
             _cell("print(a.amplitude)", "section-s1"),
             _cell("print(b.n_seq)", "section-s2"),
             _cell("print(b)", "section-s3")]
    assert parameters_read(cells, "s1") == {"amplitude"}
    assert parameters_read(cells, "s2") == {"n_seq"}
    assert parameters_read(cells, "s3") == {"n_seq", "amplitude", "other_seed"}


def test_a_record_whose_class_cannot_be_found_reads_every_parameter():
    cells = [_cell("a = 1\nb = 2", "parameters"),
             _cell("s = from_parameters(Unknown, globals())", "setup"),
             _cell("print(s)", "section-s1")]
    assert parameters_read(cells, "s1") == {"a", "b"}


def test_chapter_06s_gradient_profiles_do_not_read_the_agents_sizes():
    cells = jupytext.read(ROOT / "notebooks" / "06_attention_gradients.md").cells
    fig3, table4 = parameters_read(cells, "fig3"), parameters_read(cells, "table4")
    assert {"profile_replicates", "profile_steps"} <= fig3 and not any(p.startswith("minigrid") for p in fig3)
    assert {"minigrid_replicates", "minigrid_updates"} <= table4 and "profile_replicates" not in table4
