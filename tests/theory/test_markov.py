import numpy as np
import pytest

from seqmi.data.markov import binary_symmetric_chain, sequence_probabilities
from seqmi.info import mi_from_joint
from seqmi.theory.markov import binary_entropy, bsc_correlation_length, bsc_two_point_mi


def test_chain_is_stationary_and_flips_at_rate_q():
    x = binary_symmetric_chain(400, 500, 0.2, seed=1)
    assert x.dtype == np.int8 and set(np.unique(x)) <= {0, 1}
    flips = np.mean(x[:, 1:] != x[:, :-1])
    n = x.shape[0] * (x.shape[1] - 1)
    assert abs(flips - 0.2) < 5 * np.sqrt(0.2 * 0.8 / n)
    assert abs(x.mean() - 0.5) < 0.02


def test_same_seed_same_chain():
    np.testing.assert_array_equal(binary_symmetric_chain(3, 50, 0.3, 7), binary_symmetric_chain(3, 50, 0.3, 7))


def test_sequence_probabilities_normalised_and_match_two_point_mi():
    p = sequence_probabilities(6, 0.15)
    assert p.sum() == pytest.approx(1.0, abs=1e-14)
    # I(x_1; x_6) from the exact table, marginalising the middle bits
    joint = p.reshape(2, 2, 2, 2, 2, 2).sum(axis=(1, 2, 3, 4))
    assert mi_from_joint(joint) == pytest.approx(bsc_two_point_mi(0.15, [5])[0], abs=1e-14)


def test_closed_forms_limits():
    assert bsc_two_point_mi(0.0, [1, 10]) == pytest.approx([np.log(2)] * 2)
    assert bsc_two_point_mi(0.5, [1, 3]) == pytest.approx([0.0, 0.0], abs=1e-15)
    assert binary_entropy([0.0, 0.5, 1.0]) == pytest.approx([0.0, np.log(2), 0.0])
    assert bsc_correlation_length(0.0) == np.inf and bsc_correlation_length(0.5) == 0.0


@pytest.mark.parametrize("q", [0.05, 0.1, 0.3, 0.8])
def test_correlation_length_is_the_mi_decay_length_of_eq9(q):
    # I(tau) ~ (1 - 2q)^(2 tau) / 2 = exp(-tau / xi): xi is half the correlation's decay length
    xi = bsc_correlation_length(q)
    assert xi == pytest.approx(-0.5 / np.log(abs(1 - 2 * q)), rel=1e-15)
    # far enough for the asymptotic form (c^2 ~ 1e-6), near enough that ln 2 - H_b keeps its digits
    tau = int(np.ceil(np.log(1e-6) / (2 * np.log(abs(1 - 2 * q)))))
    ratio = bsc_two_point_mi(q, [tau + 1])[0] / bsc_two_point_mi(q, [tau])[0]
    assert ratio == pytest.approx(np.exp(-1 / xi), rel=1e-3)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_seq=0, length=10, q=0.1, seed=0), "n_seq"),
    (dict(n_seq=1, length=1, q=0.1, seed=0), "length"),
    (dict(n_seq=1, length=10, q=1.5, seed=0), "q must be in"),
])
def test_chain_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        binary_symmetric_chain(**kwargs)


def test_closed_form_rejects_lag_zero():
    with pytest.raises(ValueError, match="lags must be >= 1"):
        bsc_two_point_mi(0.1, [0, 1])


def test_plugin_floor_reduces_to_textbook_for_independent_pairs():
    from seqmi.theory.markov import bsc_plugin_floor

    assert bsc_plugin_floor(0.5, 1000) == pytest.approx(1 / 2000)
    assert bsc_plugin_floor(0.1, 1000) == pytest.approx(1.64 / 0.36 / 2000)
