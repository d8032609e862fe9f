"""Unit tests of seqmi.l2m (history-state sizes, the Theorem 5.2 bound) and of the L2M models
(seqmi.models.gaussian_lm, seqmi.models.mamba): the KL loss, the models, their training."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.l2m import FLOAT32_NATS, crossover_length, history_state_size, l2m_bound
from seqmi.models.gaussian_lm import GaussianSequenceModel, GPTBackbone, gaussian_kl
from seqmi.family import StackedFamily
from seqmi.recipes import gaussian_tokens
from seqmi.recipes.gaussian_tokens import evaluate_kl, kl_loss, train_gaussian, train_gaussian_family
from seqmi.models.mamba import MambaBackbone


def test_kv_cache_of_a_transformer_grows_linearly():
    gpt = GPTBackbone(d_model=48, n_layers=3, n_heads=4, max_len=64)
    assert history_state_size(gpt, 0) == 0
    assert history_state_size(gpt, 10) == 2 * 3 * 48 * 10
    layer = nn.TransformerEncoderLayer(32, 4, batch_first=True)
    assert history_state_size(nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), 7) == 2 * 2 * 32 * 7


def test_counts_agree_with_the_language_models_own_accounting():
    from seqmi.models.lm import RNNLM, TransformerLM

    for model in (RNNLM(30, 24, depth=2, cell="lstm"), RNNLM(30, 16, depth=3, cell="rnn"),
                  TransformerLM(30, 32, depth=3, heads=4, max_len=64)):
        for ell in (1, 17, 64):
            assert history_state_size(model, ell) == model.history_state_size(ell)


def test_recurrent_states_are_constant_in_ell():
    lstm = nn.LSTM(8, 20, num_layers=2)
    assert history_state_size(lstm, 5) == history_state_size(lstm, 500) == 2 * 2 * 20
    assert history_state_size(nn.GRU(8, 16, num_layers=3), 9) == 48
    assert history_state_size(nn.LSTMCell(4, 6), 1) == 12


def test_mamba_state_counted_from_the_blocks():
    with torch.device("meta"):
        mamba = MambaBackbone(d_model=768, n_layers=24, d_state=16)
    # Mamba-130M: 24 layers, d_inner = 1536, SSM state 16 plus a conv buffer of 3
    assert history_state_size(mamba, 1) == history_state_size(mamba, 4096) == 24 * 1536 * (16 + 3)


def test_bound_and_crossover():
    assert l2m_bound(100, 2.0, math.log(50)) == pytest.approx(200 + math.log(50))
    # amplitude * L^beta = C * dim  at the crossover
    cross = crossover_length(1000, FLOAT32_NATS, 0.3, 0.79)
    assert 0.3 * cross ** 0.79 == pytest.approx(1000 * FLOAT32_NATS, rel=1e-12)
    with pytest.raises(ValueError):
        crossover_length(10, 1.0, 0.3, 0.0)


def test_kl_is_zero_for_the_exact_conditionals_and_positive_otherwise():
    dist = SubvolumeGaussian(3, copies=4)
    z = torch.as_tensor(dist.sample(3, seed=0))
    mu, sigma = dist.conditionals(z)
    assert gaussian_kl(mu, sigma, mu, sigma).abs().max() < 1e-12
    assert gaussian_kl(mu, sigma, mu + 0.1, sigma).min() > 0
    assert gaussian_kl(mu, sigma, mu, 1.1 * sigma).min() > 0


def test_kl_matches_closed_form_and_monte_carlo():
    mu_p, s_p, mu_q, s_q = (torch.tensor(v, dtype=torch.float64) for v in (0.3, 0.7, -0.2, 1.3))
    kl = gaussian_kl(mu_p, s_p, mu_q, s_q)
    x = torch.distributions.Normal(mu_p, s_p).sample((400_000,))
    mc = (torch.distributions.Normal(mu_p, s_p).log_prob(x) - torch.distributions.Normal(mu_q, s_q).log_prob(x))
    # Monte Carlo standard error of the mean log-ratio
    assert abs(float(mc.mean() - kl)) < 5 * float(mc.std()) / math.sqrt(len(x))


class _Oracle(GaussianSequenceModel):
    """Outputs the exact conditionals: the KL loss must vanish."""

    def __init__(self, dist):
        super().__init__("transformer", dist.copies, 8, 1, n_heads=2, max_len=dist.length)
        self.dist = dist

    def forward(self, z):
        return tuple(t.float() for t in self.dist.conditionals(z.double()))


def test_evaluate_kl_zero_for_the_oracle():
    dist = SubvolumeGaussian(2, copies=3)
    kl = evaluate_kl(_Oracle(dist), dist, n_eval=5, batch=2)
    assert kl.shape == (16,)
    # float32 rounding of mean and std only
    assert np.abs(kl).max() < 1e-6


@pytest.mark.parametrize("backbone", ["transformer", "mamba"])
def test_models_are_causal_and_shaped(backbone):
    torch.manual_seed(0)
    model = GaussianSequenceModel(backbone, 5, 16, 1, n_heads=2, max_len=32, d_state=4)
    z = torch.randn(2, 12, 5)
    mu, sigma = model(z)
    assert mu.shape == sigma.shape == z.shape and (sigma > 0).all()
    changed = z.clone()
    changed[:, 6:] += 1.0
    mu2, _ = model(changed)
    # output i sees z_<i only: positions 0..6 unchanged
    torch.testing.assert_close(mu2[:, :7], mu[:, :7])
    assert not torch.allclose(mu2[:, 7:], mu[:, 7:])


def test_training_lowers_the_kl_and_is_reproducible():
    dist = SubvolumeGaussian(2, copies=4)

    def run():
        torch.manual_seed(0)
        model = GaussianSequenceModel("transformer", 4, 16, 1, n_heads=2, max_len=16)
        losses = train_gaussian(model, dist, steps=60, lr=3e-3, warmup=5, seed=0, progress=False)
        return losses, evaluate_kl(model, dist, 8)

    (l1, k1), (l2, k2) = run(), run()
    np.testing.assert_array_equal(l1, l2)
    np.testing.assert_array_equal(k1, k2)
    assert l1[-10:].mean() < 0.7 * l1[:5].mean()


def test_invalid_arguments():
    with pytest.raises(ValueError, match="backbone"):
        GaussianSequenceModel("lstm", 4, 8, 1)
    with pytest.raises(ValueError, match="n_heads"):
        GPTBackbone(10, 1, 3, 8)
    model = GaussianSequenceModel("transformer", 4, 8, 1, n_heads=2, max_len=8)
    with pytest.raises(ValueError, match="copies"):
        train_gaussian(model, SubvolumeGaussian(1, copies=3), steps=1, progress=False)
    with pytest.raises(ValueError, match="max_len"):
        model(torch.zeros(1, 16, 4))


def test_mamba_lm_is_causal_trainable_and_has_a_fixed_state():
    from seqmi.models.mamba import MambaLM
    from seqmi.train import sequence_loss
    from seqmi.train import Sequences, TrainConfig, train

    torch.manual_seed(0)
    model = MambaLM(5, 8, 1, d_state=4).eval()
    tokens = torch.randint(0, 5, (2, 10))
    changed = tokens.clone()
    changed[:, 6] = (changed[:, 6] + 1) % 5
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    assert a.shape == (2, 10, 5)
    torch.testing.assert_close(a[:, :6], b[:, :6])  # output t sees inputs <= t only
    assert history_state_size(model, 4) == history_state_size(model, 400) > 0
    # a deterministic alternating sequence is learnt far below the uniform ln 5
    rows = np.tile([0, 1], (64, 8))
    res = train(lambda: MambaLM(5, 8, 1, d_state=4), Sequences(rows, rows[:8]),
                TrainConfig(optimizer="adam", lr=0.02, batch_size=16, max_epochs=15, restarts=1), progress=False)
    with torch.no_grad():
        assert float(sequence_loss(res.model, torch.as_tensor(rows[:8]))) < 0.5 * math.log(5)


def reference_train_gaussian(model, dist, steps, batch=4, lr=1e-3, warmup=50, weight_decay=0.01, seed=0):
    """`train_gaussian` as it was before it became a configuration of `seqmi.train.fit`."""
    from seqmi.recipes.gaussian_tokens import _conditional_targets

    device = torch.device("cpu")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)

    def schedule(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, schedule)
    rng = np.random.default_rng(seed)
    losses = np.empty(steps)
    for step in range(steps):
        z, mu_p, sigma_p = _conditional_targets(dist, batch, rng, device)
        mu_q, sigma_q = model(z)
        loss = gaussian_kl(mu_p, sigma_p, mu_q, sigma_q).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses[step] = loss.item()
    return losses


@pytest.mark.parametrize("backbone", ["transformer", "mamba"])
def test_train_gaussian_follows_the_reference_loop_bit_for_bit(backbone):
    dist = SubvolumeGaussian(2, copies=3)
    models = []
    for _ in range(2):
        torch.manual_seed(0)
        models.append(GaussianSequenceModel(backbone, 3, 8, 1, n_heads=2, max_len=16, d_state=4))
    ref = reference_train_gaussian(models[0], dist, 12, lr=3e-3, warmup=4, seed=2)
    new = train_gaussian(models[1], dist, 12, lr=3e-3, warmup=4, seed=2, progress=False)
    np.testing.assert_array_equal(new, ref)
    for (name, x), y in zip(models[0].state_dict().items(), models[1].state_dict().values()):
        assert torch.equal(x, y), name


def gaussian_models(backbone, init_seeds, width=8):
    """Tiny models of Gaussian tokens, each initialised under its own torch seed."""
    models = []
    for seed in init_seeds:
        torch.manual_seed(seed)
        models.append(GaussianSequenceModel(backbone, 3, width, 1, n_heads=2, max_len=16, d_state=4))
    return models


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("backbone", ["transformer", "mamba"])
def test_models_trained_together_on_the_cpu_end_bit_for_bit_as_alone(backbone, n_threads, cpu_threads):
    dist, seeds = SubvolumeGaussian(2, copies=3), [5, 6, 7]
    with cpu_threads(n_threads):
        together = gaussian_models(backbone, range(3))
        losses = train_gaussian_family(together, seeds, dist, 8, lr=3e-3, warmup=2, progress=False)
        assert len({tuple(x) for x in losses}) == 3  # each its own weights and samples
        for k, seed in enumerate(seeds):
            alone = gaussian_models(backbone, [k])[0]
            np.testing.assert_array_equal(losses[k], train_gaussian(alone, dist, 8, lr=3e-3, warmup=2, seed=seed,
                                                                    progress=False))
            for (name, x), y in zip(together[k].state_dict().items(), alone.state_dict().values()):
                assert torch.equal(x, y), name


def test_transformers_stacked_as_on_cuda_end_near_those_trained_alone(monkeypatch):
    # the CUDA path forced on the CPU: one stacked loss computation for the three members
    calls = []

    class Recorded(StackedFamily):
        def losses(self, models, batches):
            calls.append(len(models))
            return super().losses(models, batches)

    monkeypatch.setattr(gaussian_tokens, "_stacked", lambda models, device: len(models) > 1)
    monkeypatch.setattr(gaussian_tokens, "StackedFamily", Recorded)
    dist, seeds = SubvolumeGaussian(2, copies=3), [5, 6, 7]
    together = gaussian_models("transformer", range(3))
    losses = train_gaussian_family(together, seeds, dist, 12, lr=3e-3, warmup=2, progress=False)
    assert calls == [3] * 12
    for k, seed in enumerate(seeds):
        alone = gaussian_models("transformer", [k])[0]
        np.testing.assert_allclose(losses[k], train_gaussian(alone, dist, 12, lr=3e-3, warmup=2, seed=seed,
                                                             progress=False), rtol=1e-5)
        for (name, x), y in zip(together[k].state_dict().items(), alone.state_dict().values()):
            if name.endswith("qkv.bias"):
                # the keys' bias adds a constant to each row of scores, which the softmax
                # removes: its gradient is rounding noise, which AdamW scales up to the learning rate
                w = len(x) // 3
                x, y = torch.cat([x[:w], x[2 * w:]]), torch.cat([y[:w], y[2 * w:]])
            torch.testing.assert_close(x, y, rtol=1e-5, atol=1e-5 * float(y.abs().max()), msg=name)


def test_on_cuda_two_or_more_transformers_of_one_architecture_stack():
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    transformers = gaussian_models("transformer", range(2))
    assert gaussian_tokens._stacked(transformers, cuda)
    assert not gaussian_tokens._stacked(transformers, cpu)  # recorded CPU runs keep their numbers
    assert not gaussian_tokens._stacked(transformers[:1], cuda)  # alone: its own forward pass
    assert not gaussian_tokens._stacked([transformers[0], *gaussian_models("transformer", [1], width=12)], cuda)
    assert not gaussian_tokens._stacked(gaussian_models("mamba", range(2)), cuda)


def test_vmap_cannot_batch_mambas_scan():
    # why Mambas keep their own forward pass on CUDA: should this fail, mambapy's scan has
    # become batchable, and STACKED_BACKBONES may take "mamba" (once measured)
    models = gaussian_models("mamba", range(2))
    batch = (torch.randn(4, 16, 3), torch.randn(4, 16, 3), torch.ones(4, 16, 3))
    with pytest.raises(RuntimeError, match="setup_context"):
        StackedFamily(loss=kl_loss).losses(models, [batch, batch])


def test_a_family_needs_one_seed_per_model():
    dist = SubvolumeGaussian(2, copies=3)
    with pytest.raises(ValueError, match="one seed per model, got 2 models and 1 seeds"):
        train_gaussian_family(gaussian_models("transformer", range(2)), [0], dist, 1, progress=False)
    with pytest.raises(ValueError, match="one or more models"):
        train_gaussian_family([], [], dist, 1, progress=False)
    with pytest.raises(ValueError, match=r"copies=4 must equal model.token_dim=3 \(model 0\)"):
        train_gaussian_family(gaussian_models("transformer", [0]), [0], SubvolumeGaussian(2, copies=4), 1,
                              progress=False)


# ---------------------------------------------------------------------- the exact condition
def test_local_exponent_of_a_power_law_and_its_checks():
    from seqmi.l2m import local_exponent

    np.testing.assert_allclose(local_exponent(3.0 ** np.arange(5)), np.log(3) / np.log(4))
    np.testing.assert_allclose(local_exponent([1.0, 8.0], ratio=2.0), [3.0])
    with pytest.raises(ValueError, match="positive"):
        local_exponent([0.0, 1.0])
    with pytest.raises(ValueError, match="ratio"):
        local_exponent([1.0, 2.0], ratio=1.0)


def test_exact_linear_states_grow_as_the_paper_says():
    from seqmi.l2m import exact_linear_states, local_exponent

    sub = exact_linear_states("subvolume", 8, [0.01], [4, 64])
    log = exact_linear_states("logarithmic", 8, [0.01], [4, 64])
    assert sub["lengths"] == [4 ** k for k in range(2, 9)]
    assert sub["rank"][-3:] == [445, 1336, 4009]
    # d_eps triples per layer (L^log_4 3); the logarithmic family's grows by about one
    assert abs(local_exponent(sub["d_needed"]["0.01"][-2:])[0] - np.log(3) / np.log(4)) < 0.005
    assert max(np.diff(log["d_needed"]["0.01"])) <= 2
    # a fixed state loses a growing share; a state past the rank loses nothing
    frac = np.array(sub["excess"]["4"]) / np.array(sub["bipartite_mi"])
    assert np.all(np.diff(frac[1:]) > 0) and frac[-1] > 0.99
    assert sub["excess"]["64"][:3] == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="max_layers"):
        exact_linear_states("subvolume", 13, [0.1], [4])


def test_collapse_measure_finds_a_curve_out_of_order():
    from seqmi.l2m import collapse_measure

    mi = np.array([1.0, 2.0])  # loads I/d: (1, 0.5, 0.25) and (2, 1, 0.5) for d = 1, 2, 4
    ordered = collapse_measure(mi, {1: [0.5, 1.4], 2: [0.3, 1.0], 4: [0.1, 0.6]})
    assert ordered["spearman"] == pytest.approx(1.0) and ordered["n_points"] == 6
    assert ordered["max_spread"] == pytest.approx(0.0, abs=1e-12)
    # the longer sequence loses 0.4 of I at load 1 where the shorter loses 0.5
    shuffled = collapse_measure(mi, {1: [0.5, 1.4], 2: [0.3, 0.8], 4: [0.1, 0.6]})
    assert shuffled["spearman"] < 1.0
    assert shuffled["max_spread"] == pytest.approx(0.1)
