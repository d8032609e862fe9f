"""Canonical correlations of past and future (seqmi.data.subvolume_cca) and the exact
linear-state quantities of seqmi.l2m built on them."""

import numpy as np
import pytest

from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.data.subvolume_cca import (base_half_pair, dense_canonical_correlations, next_half_pair,
                                      recursive_canonical_correlations)
from seqmi.l2m import linear_state_excess, state_dimension_needed

FAMILIES = ("subvolume", "logarithmic")


def _mi(rho):
    return float(-0.5 * np.log1p(-np.asarray(rho) ** 2).sum())


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("layers", [1, 2, 3, 4, 5])
def test_structured_equals_dense_value_by_value(family, layers):
    g = SubvolumeGaussian(layers, family)
    dense = g.canonical_correlations(method="dense")
    structured = g.canonical_correlations(method="structured")
    assert dense.shape == structured.shape
    np.testing.assert_allclose(structured, dense, atol=1e-12)


@pytest.mark.parametrize("family", FAMILIES)
def test_terms_sum_to_the_bipartite_mi_at_every_length(family):
    for layers in range(1, 10):
        g = SubvolumeGaussian(layers, family, copies=3)
        rho = g.canonical_correlations()
        assert _mi(rho) == pytest.approx(g.bipartite_mi(), rel=1e-8)


@pytest.mark.parametrize("family,op", [(f, op) for f in FAMILIES for op in ("mix", "overwrite")])
def test_count_of_nonzero_correlations_is_the_cross_rank(family, op):
    for layers in (2, 3, 4):
        g = SubvolumeGaussian(layers, family, pair_op=op)
        assert len(g.canonical_correlations()) == g.cross_rank()


def test_unequal_splits_and_reading_a_use_the_dense_path():
    g = SubvolumeGaussian(4, pair_op="overwrite", copies=2)
    for ell in (64, 128, 200):
        rho = g.canonical_correlations(ell)
        assert _mi(rho) == pytest.approx(g.bipartite_mi(ell), rel=1e-10)
    g = SubvolumeGaussian(4)
    assert _mi(g.canonical_correlations(64)) == pytest.approx(g.bipartite_mi(64), rel=1e-10)


def test_structured_rejects_what_it_cannot_do_and_dense_rejects_large_L():
    with pytest.raises(ValueError, match="pair_op='overwrite', ell=128"):
        SubvolumeGaussian(4, pair_op="overwrite").canonical_correlations(method="structured")
    with pytest.raises(ValueError, match="ell=64"):
        SubvolumeGaussian(4).canonical_correlations(64, method="structured")
    with pytest.raises(ValueError, match="at most 6, got 7"):
        SubvolumeGaussian(7).canonical_correlations(method="dense")
    with pytest.raises(ValueError, match="method"):
        SubvolumeGaussian(3).canonical_correlations(method="svd")
    with pytest.raises(ValueError, match="needs pair_op='mix'"):
        recursive_canonical_correlations(SubvolumeGaussian(3, pair_op="overwrite"))


def test_each_recursion_step_gives_the_next_layers_active_spectrum():
    # one step from the dense layer-k structure gives the values of the two copies that
    # meet the cut; the third copy (w) adds layer k's spectrum unchanged
    for k in (2, 3, 4):
        low, high = SubvolumeGaussian(k), SubvolumeGaussian(k + 1)
        a, b = high._maps[k - 1]
        cut = 4 ** k // 2 - 1
        step = next_half_pair(base_half_pair(low.covariance()), 3, float(a[cut]), float(b[cut]))
        dense_high = np.sort(base_half_pair(high.covariance()).rho)
        dense_low = np.sort(dense_canonical_correlations(low.covariance(), low.length // 2))
        dense_low = dense_low[dense_low > 1e-13]
        assert len(step.rho) == len(dense_high) - len(dense_low)
        remaining = list(np.round(dense_high, 10))
        for value in np.round(step.rho, 10):
            remaining.remove(value)  # raises if a new value is not in the dense spectrum


def test_independent_process_has_no_correlation_and_ar1_has_one():
    assert dense_canonical_correlations(np.eye(10), 4).max() < 1e-15
    phi, n = 0.7, 12
    lags = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    rho = dense_canonical_correlations(phi ** lags, 5)
    # Markov: only x_ell carries the past, so one canonical correlation, |phi|
    np.testing.assert_allclose(rho, [phi] + [0.0] * (len(rho) - 1), atol=1e-12)
    assert _mi(rho) == pytest.approx(-0.5 * np.log(1 - phi ** 2), rel=1e-12)


def test_copies_repeat_every_correlation():
    one = SubvolumeGaussian(4).canonical_correlations()
    three = SubvolumeGaussian(4, copies=3).canonical_correlations()
    np.testing.assert_allclose(three, np.repeat(one, 3))


def test_linear_state_excess_and_dimension_needed_by_hand():
    rho = [0.1, 0.8, 0.6]
    terms = -0.5 * np.log1p(-np.array([0.8, 0.6, 0.1]) ** 2)
    assert linear_state_excess(rho, 0) == pytest.approx(terms.sum())
    assert linear_state_excess(rho, 1) == pytest.approx(terms[1:].sum())
    assert linear_state_excess(rho, 3) == 0.0
    assert linear_state_excess(rho, 10) == 0.0
    assert state_dimension_needed(rho, 0.0) == 3
    assert state_dimension_needed(rho, terms[2] / terms.sum() * 1.01) == 2
    assert state_dimension_needed(rho, terms[2] / terms.sum() * 0.99) == 3
    assert state_dimension_needed([0.0, 0.0], 0.1) == 0


def test_linear_state_quantities_reject_bad_input():
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        linear_state_excess([0.5, 1.0], 1)
    with pytest.raises(ValueError, match="d"):
        linear_state_excess([0.5], -1)
    with pytest.raises(ValueError, match="eps"):
        state_dimension_needed([0.5], 1.0)
    with pytest.raises(ValueError, match="one-dimensional"):
        state_dimension_needed(np.zeros((2, 2)), 0.1)


@pytest.mark.parametrize("family", FAMILIES)
def test_one_pass_gives_every_layers_spectrum(family):
    from seqmi.data.subvolume_cca import layer_spectra

    spectra = layer_spectra(SubvolumeGaussian(6, family))
    assert len(spectra) == 6
    for k, rho in enumerate(spectra, start=1):
        np.testing.assert_allclose(rho, SubvolumeGaussian(k, family).canonical_correlations(), atol=1e-12)
