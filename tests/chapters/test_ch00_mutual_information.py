"""Chapter 00 (primer): its JSON against the binary symmetric chain's exact answers."""

import numpy as np
import pytest

from seqmi.theory.markov import bsc_correlation_length, bsc_plugin_floor, bsc_two_point_mi

CHAPTER = "00_mutual_information"
pytestmark = pytest.mark.book


@pytest.fixture(scope="module")
def res(book_run):
    return book_run.results(CHAPTER)


def test_estimates_match_exact_within_sampling_error(res):
    lags = np.array(res["lags"])
    est, se = np.array(res["estimate"]), np.array(res["stderr"])
    exact = bsc_two_point_mi(res["q"], lags)
    np.testing.assert_allclose(res["exact"], exact, rtol=1e-12)
    visible = exact > 1e-3
    assert visible.sum() >= 5
    # beyond the plug-in floor (Bartlett-corrected for overlapping pairs) only sampling
    # noise remains, whose standard error comes from independent batches of sequences;
    # 5 standard errors over ~13 correlated lags with a 19-dof error estimate
    bias = bsc_plugin_floor(res["q"], res["n_seq"] * (res["length"] - lags))
    z = (est - exact - bias) / se
    assert np.abs(z[visible]).max() < 5.0


def test_correlation_length_recovered(res):
    # xi of Shen's eq. (9): I(tau) ~ exp(-tau / xi), half the correlation's decay length
    xi = bsc_correlation_length(res["q"])
    assert xi == pytest.approx(-0.5 / np.log(1 - 2 * res["q"]), rel=1e-12)
    assert res["xi_predicted"] == pytest.approx(xi, rel=1e-12)
    # the fit scatters by about 1.5 % over seeds in the quick profile
    assert res["xi_fitted"] == pytest.approx(xi, rel=0.05)


def test_bipartite_mi_is_flat_at_i1(res):
    i1 = bsc_two_point_mi(res["q"], [1])[0]
    np.testing.assert_allclose(res["bipartite_mi"], i1, atol=1e-12)
    assert res["bipartite_max_deviation"] < 1e-12


def test_floor_matches_estimates_where_mi_has_vanished(res):
    # the floor is the mean of the estimates once the true MI is far below it
    lags = np.array(res["lags"])
    exact = bsc_two_point_mi(res["q"], lags)
    floor = bsc_plugin_floor(res["q"], res["n_seq"] * (res["length"] - lags))
    gone = exact < 0.01 * floor
    assert gone.sum() >= 5, "max_lag must reach the floor in every profile"
    est, se = np.array(res["estimate"])[gone], np.array(res["stderr"])[gone]
    assert abs(est.mean() - floor[gone].mean()) < 5 * se.mean()


def test_claims(book_run, res):
    from seqmi.claims import by_id

    stored = book_run.claims(CHAPTER)
    bp = by_id(stored, "primer.markov.bipartite-equals-i1")
    assert bp["kind"] == "exact" and bp["verdict"] == "reproduced" and bp["value"] < 1e-12
    xi = by_id(stored, "primer.sec3.xi-exponential")
    # the value is xi_fit / xi - 1, inside its 90% interval (the TOST's); its verdict is the rule's,
    # tested on fixed inputs in test_claims
    assert xi["value"] == pytest.approx(res["xi_fitted"] / res["xi_predicted"] - 1, rel=1e-9)
    assert xi["ci"][0] < xi["value"] < xi["ci"][1]
    plugin = by_id(stored, "primer.closed-form.plugin-matches-exact")
    assert plugin["design"]["margin"] and plugin["ci"][0] <= plugin["value"] <= plugin["ci"][1]
