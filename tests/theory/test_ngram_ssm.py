"""The constructed SSM and RNN language models (Theorem 4.1, Props 4.5-4.6, Lemmas A.3-A.7)."""

import math

import numpy as np
import pytest

from seqmi.data.ngram import NgramLanguage, is_eps_equivalent, max_tv_distance, random_ngram_language
from seqmi.rng import child_seed
from seqmi.theory.ngram_ssm import (
    SSMWeights, alternating_task, construct_rnn, construct_ssm, context_window, independence_bias,
    layered_nilpotent, memorising_ssm, min_coordinate_gap, nilpotency_index, random_line_ssm, spectral_radius,
)


@pytest.fixture(scope="module")
def paper():
    return NgramLanguage.paper_example()


@pytest.mark.parametrize("eps,d", [(0.1, 16), (1e-3, 1), (1e-4, 64)])
def test_paper_ssm_is_eps_equivalent(paper, eps, d):
    ssm = construct_ssm(paper, eps, d, seed=0)
    assert ssm.hidden_size == len(paper.rules) == 145
    assert ssm.certificate.rank == 145
    assert ssm.certificate.min_coordinate_gap > 0
    # smoothing puts f_N's target within eps/2; the solve adds only rounding on top
    assert max_tv_distance(ssm, paper) < eps / 2 * (1 + 1e-6)
    assert is_eps_equivalent(ssm, paper, eps)


def test_paper_transition_is_nilpotent_of_order_n_minus_1(paper):
    A = construct_ssm(paper, 0.01, 8, seed=1).A
    assert context_window(A) == 3
    # A^2 is far from zero: the third word back is seen
    assert np.linalg.norm(A @ A) > 1e-3 * np.linalg.norm(A) ** 2
    assert np.linalg.norm(A @ A @ A) < 1e-12 * np.linalg.norm(A) ** 3


@pytest.mark.parametrize("build", [construct_ssm, construct_rnn])
def test_outputs_ignore_words_older_than_the_window_exactly(paper, build):
    model = build(paper, 0.01, 4, seed=2)
    rng = np.random.default_rng(0)
    sents = [s for s in paper.sentences if len(s) == 20]
    ids = np.stack([paper.encode(sents[i][:12]) for i in rng.choice(len(sents), 50)])
    other = ids.copy()
    # any words at all before the last n - 1 = 3, valid or not
    other[:, :9] = rng.integers(0, len(paper.vocab), size=(50, 9))
    assert (other[:, :9] != ids[:, :9]).any()
    np.testing.assert_array_equal(model.logits_ids(ids)[:, -1], model.logits_ids(other)[:, -1])
    # ...while the third-to-last word does matter
    third = ids.copy()
    third[:, 9] = (third[:, 9] + 1) % len(paper.vocab)
    assert not np.allclose(model.logits_ids(ids)[:, -1], model.logits_ids(third)[:, -1])


@pytest.mark.parametrize("n,length,pool,starts,seed,dims", [
    (2, 8, 60, 40, 12, (1, 5)), (3, 8, 12, 10, 13, (1, 5)), (4, 8, 10, 8, 14, (1, 5)),
    (4, 10, 20, 8, 0, (1, 5))])
def test_random_languages_are_eps_equivalent(n, length, pool, starts, seed, dims):
    lang = random_ngram_language(n, length, pool, 2, starts, seed=seed)
    assert 150 <= len(lang.rules) <= 600
    for d in dims:
        ssm = construct_ssm(lang, 0.01, d, seed=d)
        assert ssm.hidden_size == len(lang.rules)
        assert context_window(ssm.A) == n - 1
        assert max_tv_distance(ssm, lang) < 0.01


def test_d1_readout_is_insensitive_to_rounding_in_the_state():
    # Chapter 05's random 3-gram language at d = 1. Pivoting on the widest gap alone gave a
    # post-ReLU matrix of condition number ~1e15 and |C| ~ 1e14: the solve missed its targets
    # by up to 1e-2, and the rounding of the hidden state, which changes with the order of
    # BLAS sums (its thread count), put the model at TV 0.028 > eps with one thread.
    eps = 0.01
    lang = random_ngram_language(3, 8, 12, 2, 10, seed=child_seed(0, "language", 3))
    ssm = construct_ssm(lang, eps, 1, seed=0)
    cert = ssm.certificate
    assert cert.rank == ssm.hidden_size == len(lang.rules) == 235
    assert cert.condition_number < 1e10
    assert cert.max_logit_error < 1e-8
    # a relative error of 1e-15 in every state entry, a few units of rounding, moves no logit by 1e-6
    h = ssm.states_after(ssm.contexts)
    noisy = h * (1 + 1e-15 * np.random.default_rng(0).choice([-1.0, 1.0], size=h.shape))
    logits = [np.maximum(s + ssm.b, 0.0) @ ssm.C.T for s in (h, noisy)]
    assert np.abs(logits[1] - logits[0]).max() < 1e-6
    assert max_tv_distance(ssm, lang) < eps / 2 * (1 + 1e-6)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rnn_is_block_nilpotent_and_eps_equivalent(n):
    lang = random_ngram_language(n, 7, 10, 2, 6, seed=n)
    rnn = construct_rnn(lang, 0.01, 3, seed=0)
    assert rnn.hidden_size == len(lang.rules)
    power = np.linalg.matrix_power(rnn.W, n - 1)
    assert (power == 0).all()  # exact zeros: block nilpotent in the standard basis
    if n > 2:
        assert np.abs(np.linalg.matrix_power(rnn.W, n - 2)).max() > 0
    assert rnn.certificate.rank == len(lang.rules)
    assert max_tv_distance(rnn, lang) < 0.01


def test_paper_rnn_is_eps_equivalent(paper):
    rnn = construct_rnn(paper, 1e-3, 1, seed=0)
    assert rnn.hidden_size == 145
    assert context_window(rnn.W) == 3
    assert max_tv_distance(rnn, paper) < 1e-3


def test_inconsistent_language_is_rejected():
    lang = NgramLanguage.from_sentences(["a b c d".split(), "x b c e".split(), "y z c d".split()], 3)
    for build in (construct_ssm, construct_rnn):
        with pytest.raises(ValueError, match="not generated by its 3-gram rules"):
            build(lang, 0.1, 2, seed=0)


def test_memorising_ssm_fits_arbitrary_targets():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((30, 4, 2))
    y = rng.standard_normal((30, 3))
    w = memorising_ssm(x, y, order=2, seed=1)
    np.testing.assert_allclose(w.outputs(x)[:, -1], y, atol=1e-8)
    assert nilpotency_index(w.A) == 2


def test_plain_matrices_run_the_same_recurrence():
    rng = np.random.default_rng(2)
    A, B, b, C = rng.standard_normal((4, 4)), rng.standard_normal((4, 2)), rng.standard_normal(4), rng.standard_normal((3, 4))
    x = rng.standard_normal((5, 3, 2))
    h = np.zeros((5, 4))
    for t in range(3):
        h = h @ A.T + x[:, t] @ B.T
    w = SSMWeights.from_matrices(A, B, b, C)
    np.testing.assert_allclose(w.A, A)
    np.testing.assert_allclose(w.outputs(x)[:, -1], np.maximum(h + b, 0) @ C.T, rtol=1e-12)


def test_random_line_ssm_bends_inside_the_data():
    x, _ = alternating_task(8, 3, 2, seed=0)
    w = random_line_ssm(x, 5, np.random.default_rng(0))
    assert w.C.shape == (1, 5)
    bends = -w.b / w.hidden(x[-1:])[0, -1]
    assert ((bends >= 1 / 8) & (bends <= 1)).all()


def test_independence_bias_gives_triangular_full_rank():
    rng = np.random.default_rng(0)
    V = rng.standard_normal((20, 20))
    scale, bias = independence_bias(V)
    H = np.maximum(scale[:, None] * V + bias[:, None], 0)
    assert np.linalg.matrix_rank(H) == 20
    # Lemma A.4's triangle: peel off, again and again, a row with a single positive
    # entry among the columns left
    rows, cols = set(range(20)), set(range(20))
    while rows:
        single = [r for r in rows if sum(H[r, c] > 0 for c in cols) == 1]
        assert single
        r = single[0]
        cols.remove(next(c for c in cols if H[r, c] > 0))
        rows.remove(r)
    V[3, 5] = V[3, 7]
    assert min_coordinate_gap(V) == 0
    with pytest.raises(ValueError, match="Lemma A.3"):
        independence_bias(V)


def test_context_window():
    rng = np.random.default_rng(0)
    assert context_window(layered_nilpotent(12, 4, rng)) == 4
    assert context_window(np.diag([0.5, 0.1]), tol=1e-3) == math.ceil(math.log(1e-3) / math.log(0.5))
    assert context_window(np.diag([1.0, 0.1]), tol=1e-3) == math.inf
    assert context_window(np.diag([0.5, 0.1])) == math.inf
    assert spectral_radius(np.array([[0, 2.0], [-2.0, 0]])) == pytest.approx(2.0)
