"""The shared plotting helpers draw what they are given, edge cases included."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seqmi.bipartite import BipartiteEstimate  # noqa: E402
from seqmi.plots import estimate_bars, xi_panel  # noqa: E402


def test_xi_panel_draws_an_estimate_outside_its_bootstrap_interval():
    # a percentile bootstrap interval need not contain the whole sample's estimate
    fits = [{"xi": 10.0, "xi_ci": [8.0, 12.0]}, {"xi": 30.0, "xi_ci": [31.0, 40.0]}, None]
    fig, ax = plt.subplots()
    xi_panel(ax, [("rnn", [2, 8, 32], fits)], {"xi": 100.0, "xi_ci": [90.0, 110.0]}, xlabel="width", title="t")
    bars = ax.collections[0].get_segments()
    assert [tuple(seg[:, 1]) for seg in bars] == [(8.0, 12.0), (30.0, 40.0)]
    plt.close(fig)


def test_estimate_bars_leave_out_the_estimates_a_log_axis_cannot_show():
    estimates = [BipartiteEstimate(mi, se, 0.0, 0.0, 10)
                 for mi, se in ((0.5, 0.1), (-0.02, 0.05), (0.0, 0.01), (1.5, 0.25))]
    fig, ax = plt.subplots()
    estimate_bars(ax, [8, 16, 32, 64], estimates, fmt="o")
    assert list(ax.lines[0].get_xdata()) == [8, 64]
    assert list(ax.lines[0].get_ydata()) == [0.5, 1.5]
    bars = [tuple(seg[:, 1]) for seg in ax.collections[0].get_segments()]
    assert bars == [pytest.approx((0.4, 0.6)), pytest.approx((1.25, 1.75))]
    plt.close(fig)
