"""Progress bars: tqdm's in a terminal, one final line in a notebook kernel."""

from tqdm import tqdm

from seqmi.progress import SummaryBar, in_kernel, progress_bar


def test_outside_a_kernel_the_bar_is_tqdms_own():
    assert not in_kernel()
    bar = progress_bar(range(3), disable=True)
    assert type(bar) is tqdm
    bar.close()


def test_a_summary_bar_prints_its_final_state_once(capsys):
    with SummaryBar(total=4, desc="points", unit="point") as bar:
        for _ in range(4):
            bar.update(1)
        assert capsys.readouterr().out == "", "nothing while it runs"
    bar.close()  # a second close prints nothing more
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("points: 100%") and "4/4" in out


def test_a_summary_bar_that_does_not_stay_prints_nothing(capsys):
    for _ in SummaryBar(range(5), desc="steps", leave=False):
        pass
    with SummaryBar(total=2, disable=True) as bar:
        bar.update(2)
    assert capsys.readouterr().out == ""
