"""The shared plotting helpers draw what they are given, edge cases included."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from seqmi.plots import xi_panel  # noqa: E402


def test_xi_panel_draws_an_estimate_outside_its_bootstrap_interval():
    # a percentile bootstrap interval need not contain the whole sample's estimate
    fits = [{"xi": 10.0, "xi_ci": [8.0, 12.0]}, {"xi": 30.0, "xi_ci": [31.0, 40.0]}, None]
    fig, ax = plt.subplots()
    xi_panel(ax, [("rnn", [2, 8, 32], fits)], {"xi": 100.0, "xi_ci": [90.0, 110.0]}, xlabel="width", title="t")
    bars = ax.collections[0].get_segments()
    assert [tuple(seg[:, 1]) for seg in bars] == [(8.0, 12.0), (30.0, 40.0)]
    plt.close(fig)
