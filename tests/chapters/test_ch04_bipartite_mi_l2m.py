"""Chapter 04 (bipartite MI, L2M): its JSON against closed forms and the counted state sizes."""

import math

import numpy as np
import pytest

CHAPTER = "04_bipartite_mi_l2m"
pytestmark = pytest.mark.book


@pytest.fixture(scope="module")
def res(book_run):
    return book_run.results(CHAPTER)


def test_toy_example_is_ln_m_everywhere(res):
    # exact enumeration: only floating-point rounding
    assert res["toy_max_deviation"] < 1e-12
    np.testing.assert_allclose(res["toy_bipartite"], math.log(res["toy_vocab"]), atol=1e-12)
    np.testing.assert_allclose(res["toy_two_point"], math.log(res["toy_vocab"]), atol=1e-12)


def test_bipartite_mi_reference_values(res):
    # per-copy values of the default reading, computed independently with a dense
    # construction (three decimals, hence the tolerance)
    sub = np.array(res["bipartite_mi"]["subvolume/mix"])
    log = np.array(res["bipartite_mi"]["logarithmic/mix"])
    np.testing.assert_allclose(sub[:6], [0.294, 0.932, 2.863, 8.651, 26.013, 78.10], atol=6e-3)
    np.testing.assert_allclose(log[:6], [0.294, 0.355, 0.406, 0.456, 0.506, 0.556], atol=6e-3)
    np.testing.assert_allclose(res["bipartite_mi"]["subvolume/overwrite"][:5], [0.294, 0.875, 2.686, 8.192, 24.903],
                               atol=6e-3)


def test_exponents(res):
    # deterministic numbers: the fits only see the approach of the exact ratios to their
    # limits, so 1 % is the precision the chapter claims, not a statistical band
    assert res["beta_theory"] == pytest.approx(math.log(3) / math.log(4), rel=1e-12)
    assert res["alpha_theory"] == pytest.approx(2 * math.log(16 / 5) / math.log(4), rel=1e-12)
    assert res["beta_fit"] == pytest.approx(res["beta_theory"], rel=0.01)
    assert res["alpha_fit"] == pytest.approx(res["alpha_theory"], rel=0.01)
    assert res["bipartite_ratios"][-1] == pytest.approx(3.0, rel=0.01)
    assert res["two_point_far_rel_diff"] < 1e-12
    steps = np.array(res["log_family_steps"])
    assert np.ptp(steps) < 0.02 * steps.mean()


def test_exact_curves_beyond_the_dense_reach(res):
    # I_k = 3 I_(k-1) + b_k with b_k bounded: the ratio's distance from 3 shrinks about
    # threefold per layer (0.0023 at 4^6); exact numbers, so the bounds are not statistical
    layers = res["layers"]
    dev = np.abs(np.array(res["bipartite_ratios"]) - 3.0)
    assert np.all(np.diff(dev) < 0)
    assert dev[-1] < 0.0023 / 2.5 ** (layers[-1] - 6)
    steps = np.diff(res["bipartite_mi"]["logarithmic/mix"])
    assert np.ptp(steps[3:]) < 2e-3 * steps[-1]


def test_cross_ranks_grow_as_derived(res):
    # halves of layer k: c copies' halves plus the one straddling boundary pair
    sub, log = res["cross_rank"]["subvolume"], res["cross_rank"]["logarithmic"]
    assert len(sub) >= 4 and sub[2:4] == [16, 49]
    assert all(cur == 3 * prev + 1 for prev, cur in zip(sub[1:], sub[2:]))
    assert all(cur == prev + 2 for prev, cur in zip(log[1:], log[2:]))


def test_state_sizes_counted_from_modules(res):
    sizes = res["state_sizes"]
    for L_str, size in sizes["GPT-2 small (12 x 768)"].items():
        assert size == 2 * 12 * 768 * (int(L_str) // 2)
    assert set(sizes["Mamba-130M (24 x 768)"].values()) == {24 * 1536 * (16 + 3)}
    assert set(sizes["LSTM (2 x 1024)"].values()) == {2 * 2 * 1024}
    assert res["mi_per_dim_slope_transformer"] == pytest.approx(res["beta_fit"] - 1, abs=0.01)
    assert res["mi_per_dim_slope_ssm"] == pytest.approx(res["beta_fit"], abs=0.01)


def test_l2m_runs_are_complete_and_finite(res):
    runs = res["l2m_runs"]
    assert len(runs) == 2 * 2 * 2  # two backbones, two widths, two lengths in the quick profile
    for name, run in runs.items():
        kl = np.array(run["position_kl"])
        L = int(name.split("L=")[1])
        assert kl.shape == (L,)
        # a KL divergence is non-negative; a few thousand parameters after tens of steps
        # stay well below the KL of predicting N(0, 1) (about 0.5 nats on average here)
        assert np.all(kl > -1e-6) and 0 < run["average_kl"] < 1.0
        assert run["bipartite_mi"] > 0



def test_bound_runs_are_per_seed_and_hold_their_bound(res):
    runs, s = res["bound_runs"], res["bound_settings"]
    models = len(s["linear_states"]) + 2
    assert len(runs) == models * len(s["lengths"]) * len(s["seeds"])  # every seed kept, nothing pooled
    for rec in runs:
        kl = np.array(rec["position_kl"])
        assert kl.shape == (rec["L"],) and np.all(kl > -1e-6)
        # the stored curves keep four significant digits: their sum agrees to 5e-5
        assert rec["sum_kl"] == pytest.approx(s["copies"] * kl[rec["L"] // 2:].sum(), rel=1e-4)
        assert 0 <= rec["bound"] <= rec["bipartite_mi"] < rec["context_free_sum"]
        if rec["backbone"] == "linear":
            assert rec["state_size"] == rec["size"]
            # short training leaves every linear model above its exact bound by a margin far
            # beyond the evaluation noise (hundredths of a nat)
            assert rec["sum_kl"] > rec["bound"]


def test_text_two_point_mi_and_offset_fit(res):
    tp = res["text_two_point"]
    mi = np.array(tp["mi"])
    assert len(mi) == len(tp["lags"])
    # adjacent KJV characters share most of a nat (0.749 measured on 400,000 characters);
    # the Grassberger estimate at d = 1 has a standard error far below 0.05
    assert 0.6 < mi[0] < 0.9
    assert mi[0] > mi[-1] > 0
    # the fit's own constraint 0 <= C < min I over the fitted distances
    assert 0 <= tp["offset"] < mi[tp["min_lag"] - 1:].min()
    assert tp["alpha_ci"][0] <= tp["alpha"] <= tp["alpha_ci"][1]


def test_text_bipartite_estimates_are_consistent(res):
    bp = res["text_bipartite"]
    models = ["char Transformer"] + (["SmolLM2-135M"] if res["smollm2"] is not None else [])
    for m in models:
        raw, fixed, vclub = (bp[f"{m}/{e}"]["estimates"] for e in ("direct_raw", "direct", "vclub"))
        assert len(raw) == len(fixed) == len(vclub) == len(bp[f"{m}/direct"]["lengths"])
        for r, f, v in zip(raw, fixed, vclub):
            for e in (r, f, v):
                assert e["mi"] == pytest.approx(e["h_first"] - e["h_second"], abs=1e-9)
                assert math.isfinite(e["stderr"]) and e["n"] >= 2
            # all three share -E ln q(Y|X) on the same samples: only summation order differs
            assert r["h_second"] == pytest.approx(f["h_second"], rel=1e-9)
            assert r["h_second"] == pytest.approx(v["h_second"], rel=1e-9)
        # H(Y) grows with the length of Y; the conditional cross-entropy too
        h_y = [e["h_first"] for e in raw]
        assert all(b > a for a, b in zip(h_y, h_y[1:]))
    comp = bp["lzma/compression"]
    assert comp["fit"] is not None and comp["fit"]["ci"][0] <= comp["fit"]["beta"] <= comp["fit"]["ci"][1]
    # longer halves share more strings: the lzma estimate grows with L on these chapters
    mi = [e["mi"] for e in comp["estimates"]]
    assert all(b > a > 0 for a, b in zip(mi, mi[1:]))


def test_text_models(res):
    cm = res["text_char_model"]
    # 63 symbols: the trained model beats the uniform code, the 2-gram entropy lies between
    # one character's entropy bound and two uniform characters
    assert cm["valid_loss"] < math.log(63)
    assert 0 < cm["two_gram_entropy"] < 2 * math.log(63)
    if res["smollm2"] is not None:
        # BPE on English: 3 to 5 characters per token
        assert 3.0 < res["smollm2"]["chars_per_token"] < 5.0
        assert res["smollm2"]["bos_id"] == 0


def test_figure5_models_are_matched_and_scored(res):
    f5 = res["figure5"]
    # the SSM width is chosen for the closest parameter count: within 10 %
    assert f5["ssm_params"] == pytest.approx(f5["tf_params"], rel=0.1)
    for key in ("tf_position_nll", "ssm_position_nll"):
        nll = np.array(f5[key])
        assert nll.shape == (max(res["text_bipartite"]["char Transformer/direct"]["lengths"]),)
        assert np.all(nll > 0) and nll.mean() < math.log(63)
    assert f5["gap_change_se"] > 0 and math.isfinite(f5["gap_change"])
    # chapters are the units; each gives between one and windows_per_doc windows
    assert f5["n_docs"] <= f5["n_windows"] <= f5["windows_per_doc"] * f5["n_docs"]


def test_unequal_splits_of_the_gaussian_families(res):
    from seqmi.data.subvolume import SubvolumeGaussian
    from seqmi.info import gaussian_mi

    ratios = res["split_ratios"]
    assert ratios[0] == 2 and len(ratios) >= 2
    splits = res["gaussian_splits"]
    lengths = np.array(res["split_lengths"])
    # the layer recursion against one dense factor at every ratio: rounding only
    assert res["split_dense_check"] < 1e-10
    n = min(len(lengths), len(res["bipartite_mi"]["subvolume/mix"]))
    np.testing.assert_allclose(splits["2"]["subvolume"][:n], res["bipartite_mi"]["subvolume/mix"][:n], rtol=1e-10)
    for r in ratios:
        g = splits[str(r)]
        assert g["ell"] == [int(np.floor(L / r + 0.5)) for L in lengths]
        # independent dense reference up to L = 256 (gaussian_mi on the whole covariance):
        # two exact computations, so only rounding separates them
        for k in range(1, min(4, len(lengths)) + 1):
            for fam in ("subvolume", "logarithmic"):
                sg = SubvolumeGaussian(k, fam)
                ell = g["ell"][k - 1]
                dense = gaussian_mi(sg.covariance(), np.arange(ell), np.arange(ell, 4 ** k))
                assert g[fam][k - 1] == pytest.approx(dense, rel=1e-9)
        # deterministic numbers: the derived I_k = 3 I_(k-1) + O(1) within the 1 % the
        # chapter claims, the transient shrinking layer by layer
        dev = np.abs(np.array(g["subvolume_ratios"]) - 3.0)
        assert dev[-1] < 0.03 and dev[-1] < dev[-2]
        assert g["subvolume_beta_ci"][0] <= g["subvolume_beta"] <= g["subvolume_beta_ci"][1]
        steps = np.array(g["log_steps"])
        assert np.ptp(steps) < 0.02 * steps.mean()
    if 4 in ratios:
        # both cuts on row boundaries: the same slope per unit ln L
        assert splits["4"]["log_slope_per_ln_L"] == pytest.approx(splits["2"]["log_slope_per_ln_L"], rel=0.02)
    for fam in ("subvolume", "logarithmic"):
        assert 0 < res["split_argmax_fraction"][fam] < 1


def test_unequal_splits_of_text_share_their_passes(res):
    bp = res["text_bipartite_splits"]
    ratios = res["split_ratios"]
    models = ["char Transformer"] + (["SmolLM2-135M"] if res["smollm2"] is not None else [])
    for m in models:
        for est in ("direct_raw", "direct", "vclub"):
            # the equal split is the chapter's main estimate, computed in the same call
            assert bp[f"{m}/2/{est}"]["estimates"] == res["text_bipartite"][f"{m}/{est}"]["estimates"]
        lengths = bp[f"{m}/2/direct"]["lengths"]
        for r in ratios:
            entry = bp[f"{m}/{r}/direct"]
            assert entry["ell"] == [int(np.floor(L / r + 0.5)) for L in lengths]
            raw, fixed, vclub = (bp[f"{m}/{r}/{e}"]["estimates"] for e in ("direct_raw", "direct", "vclub"))
            assert len(raw) == len(fixed) == len(vclub) == len(lengths)
            for a, b, c in zip(raw, fixed, vclub):
                for e in (a, b, c):
                    assert e["mi"] == pytest.approx(e["h_first"] - e["h_second"], abs=1e-9)
                    assert math.isfinite(e["stderr"]) and e["n"] >= 2
                # -E ln q(Y|X) comes from the one joint pass for all three estimators
                assert a["h_second"] == b["h_second"] == c["h_second"]
        for r_short, r_long in zip(ratios, ratios[1:]):
            # a shorter X leaves a longer Y: its conditional cross-entropy sums the same
            # positive per-token NLLs of the joint pass plus more of them
            for short, long in zip(bp[f"{m}/{r_short}/direct"]["estimates"], bp[f"{m}/{r_long}/direct"]["estimates"]):
                assert long["h_second"] >= short["h_second"]


def test_generated_text_two_point_mi(res):
    gen = res["generated_two_point"]
    assert "char Transformer, T = 1" in gen
    if res["smollm2"] is not None:
        assert any(name.startswith("SmolLM2-135M") for name in gen)
    for name, entry in gen.items():
        mi = np.array(entry["mi"])
        assert mi.shape == (len(res["text_two_point"]["lags"]),) and np.all(np.isfinite(mi))
        # the offset stays below every fitted point, as L2M's fit requires
        assert 0 <= entry["offset"] < mi[entry["min_lag"] - 1:].min()


def test_claims(book_run):
    from seqmi.claims import by_id
    from seqmi.stats import log_slope

    stored = book_run.claims(CHAPTER)
    assert len(stored) == 30
    # a theorem cannot fail: the bound check is an illustration of the code and the accounting
    bound = by_id(stored, "chen2025.thm5-4.trained-linear-above-bound")
    assert bound["kind"] == "illustration" and bound["design"] is None
    assert by_id(stored, "chen2025.thm5-4.trained-over-bound-ratio")["kind"] == "illustration"
    for cid in ("chen2025.sec4-4.identical-tokens", "chen2025.fig3a.same-two-point-far",
                "chen2025.fig3a.two-point-alpha", "chen2025.fig3b.subvolume-beta", "chen2025.fig3b.log-family",
                "chen2025.thm5-4.exact-state-grows", "chen2025.thm5-4.exact-fixed-state-fails",
                "chen2025.thm5-4.exact-log-family-state", "chen2025.fig4b.exact-collapse"):
        c = by_id(stored, cid)
        assert c["kind"] == "exact" and c["verdict"] == "reproduced", cid
    # by construction, not evidence: shown as illustrations, whose numbers still must come out right
    res = book_run.results(CHAPTER)
    kv = by_id(stored, "chen2025.thm5-2.kv-cache-slope")
    assert kv["kind"] == "illustration" and kv["value"] == pytest.approx(res["beta_fit"] - 1, abs=0.01)
    two_gram = by_id(stored, "chen2025.appA3.two-gram-correction.char")
    assert two_gram["kind"] == "illustration"
    assert two_gram["value"] == pytest.approx(res["two_gram_relative_change"]["char Transformer"][0])
    # the vCLUB comparison is decided on the difference's interval, never on two point estimates
    vclub = by_id(stored, "chen2025.appA6.vclub-below-direct.smollm2")
    slopes = {}
    for e in ("direct", "vclub"):
        est = res["text_bipartite"][f"SmolLM2-135M/{e}"]["estimates"]
        values = [x["mi"] for x in est]
        if sum(v > 0 for v in values) >= 3 and all(x["stderr"] > 0 for x in est):
            slopes[e] = log_slope(res["text_bipartite"][f"SmolLM2-135M/{e}"]["lengths"], values,
                                  [x["stderr"] for x in est])[0]
    if len(slopes) == 2:
        assert vclub["value"] == pytest.approx(slopes["direct"] - slopes["vclub"])
    assert "SmolLM2-135M-Instruct" in vclub["substitution"]
    # every statistical row states its design
    assert all(c["design"] for c in stored if c["kind"] == "statistical")
    assert "O(τ/N)" in by_id(stored, "chen2025.fig2ef.text-two-point-power-law")["substitution"]


def _state_results(d_exponent: float, dims_excess: dict[str, list[float]]):
    """The record of an l2m-exact section alone (as a recording begun from it holds)."""
    from seqmi.results.ch04_bipartite_mi_l2m import Results

    beta = math.log(3) / math.log(4)
    mi = [2.863, 8.651, 26.013]
    sub = {"lengths": [64, 256, 1024], "bipartite_mi": mi, "rank": [16, 49, 148],
           "d_needed": {"0.01": [10, 31, 92]}, "excess": dims_excess}
    log = {"lengths": [64, 256, 1024, 4096, 16384, 65536], "bipartite_mi": [0.4] * 6, "rank": [5] * 6,
           "d_needed": {"0.01": [3, 4, 5, 6, 7, 9]}, "excess": {}}
    return Results.from_json({"profile": "quick", "l2m_exact": {
        "states": {"subvolume": sub, "logarithmic": log}, "beta": beta, "eps": [0.01], "dims": [4],
        "d_exponent": {"0.01": d_exponent}, "excess_exponent": {"4": 0.80},
        "collapse": {"spearman": 1.0, "n_points": 3, "max_spread": 0.0}, "excess_per_position": [0.05, 0.06, 0.05]}})


def test_exact_state_claims_fail_when_the_numbers_do_not_follow_l_beta():
    from seqmi.claims.ch04_bipartite_mi_l2m._gaussian import _state_claims

    good = {c.id: c.verdict for c in _state_claims(_state_results(0.792, {"4": [1.5, 7.1, 24.2]}))}
    assert set(good.values()) == {"reproduced"}
    bad = {c.id: c.verdict for c in _state_claims(_state_results(0.70, {"4": [1.5, 7.1, 24.2]}))}
    assert bad["chen2025.thm5-4.exact-state-grows"] == "not reproduced"
    # a fixed state whose lost share falls with L contradicts the condition
    falling = {c.id: c.verdict for c in _state_claims(_state_results(0.792, {"4": [1.5, 3.0, 5.0]}))}
    assert falling["chen2025.thm5-4.exact-fixed-state-fails"] == "not reproduced"
