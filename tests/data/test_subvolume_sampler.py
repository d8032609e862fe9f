"""The device sampler of the Gaussian tokens (SubvolumeGaussian.sample_with_conditionals) and its use in
training: its distribution, its conditionals against the triangular solve, its seeding, and the key
that keeps its points apart from the numpy sampler's."""

from dataclasses import replace

import numpy as np
import pytest
import torch

import seqmi.experiments.ch04_bipartite_mi_l2m as ch04
from seqmi.data.subvolume import SubvolumeGaussian
from seqmi.models.gaussian_lm import GaussianSequenceModel
from seqmi.recipes.gaussian_tokens import _conditional_targets, evaluate_kl, train_gaussian
from seqmi.sweep import sweep_key

CASES = [(f, op) for f in ("subvolume", "logarithmic") for op in ("mix", "overwrite")]
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def standardised_deviations(flat, cov):
    """``(S_hat - S) / se`` over the distinct entries, ``se = sqrt((S_ii S_jj + S_ij^2) / n)``."""
    n = flat.shape[0]
    emp = flat.T @ flat / n
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov ** 2) / n)
    return ((emp - cov) / se)[np.triu_indices(len(cov))]


@pytest.mark.parametrize("family,op", CASES)
def test_device_sampler_covariance_matches(family, op):
    sg = SubvolumeGaussian(3, family, copies=2, pair_op=op)
    z, mu, sigma = sg.sample_with_conditionals(50_000, seed=1)
    assert z.shape == mu.shape == sigma.shape == (50_000, 64, 2) and z.dtype == torch.float64
    z = z.numpy()
    n = 100_000
    cov = sg.covariance()
    dev = standardised_deviations(z.transpose(0, 2, 1).reshape(n, 64), cov)
    # 2,080 distinct entries: the largest of that many standard normals passes 5.5 with
    # probability about 1e-4, and their squares average 1 (0.95-1.07 over three seeds each)
    assert np.abs(dev).max() < 5.5
    assert 0.85 < (dev ** 2).mean() < 1.15
    # the criterion can fail: samples 1.5% too large (a covariance 3% too large) break it
    assert np.abs(standardised_deviations(z.transpose(0, 2, 1).reshape(n, 64) * 1.015, cov)).max() > 5.5
    # copies are independent of each other
    cross = (z[:, :, 0].T @ z[:, :, 1]) / (n // 2)
    assert np.abs(cross).max() < 5.5 / np.sqrt(n // 2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", ["mix", "overwrite"])
def test_device_conditionals_equal_the_triangular_solve_to_float64_rounding(op, device):
    # the full profile's batch (16 sequences of 64 copies) at L = 256; measured: 1.0e-14 sigma_i
    sg = SubvolumeGaussian(4, copies=64, pair_op=op)
    z, mu, sigma = sg.sample_with_conditionals(16, seed=7, device=device)
    assert z.device.type == device
    mu_solve, sigma_solve = sg.conditionals(z)
    assert float(((mu - mu_solve).abs() / sigma).max()) < 1e-10
    assert torch.equal(sigma, sigma_solve)
    torch.testing.assert_close(sigma[0, :, 0], torch.diagonal(sg.cholesky(device)), rtol=0, atol=0)
    # the criterion is not vacuous: the conditional means of other draws are far from these
    other, _, _ = sg.sample_with_conditionals(16, seed=8, device=device)
    assert float(((sg.conditionals(other)[0] - mu).abs() / sigma).max()) > 0.1


@pytest.mark.parametrize("device", DEVICES)
def test_draws_depend_on_the_whole_seed_only(device):
    sg = SubvolumeGaussian(2, copies=3)
    a = sg.sample_with_conditionals(4, seed=2 ** 63 + 5, device=device)
    b = sg.sample_with_conditionals(4, seed=2 ** 63 + 5, device=device)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    # seeds equal in their low 32 bits (all that torch's CPU generator would keep) draw apart
    for other in (5, 2 ** 32 + 5):
        assert not torch.equal(a[0], sg.sample_with_conditionals(4, seed=other, device=device)[0])
    assert a[0].is_contiguous() and a[1].is_contiguous()  # batch first, as the models read them


def test_invalid_arguments_name_the_value():
    sg = SubvolumeGaussian(2)
    with pytest.raises(ValueError, match="n must be"):
        sg.sample_with_conditionals(0, seed=1)
    with pytest.raises(ValueError, match="seed must be"):
        sg.sample_with_conditionals(2, seed=-1)
    with pytest.raises(ValueError, match="device"):
        sg.sample_with_conditionals(2, seed=1, device="tpu")
    model = GaussianSequenceModel("transformer", 1, 8, 1, n_heads=2, max_len=16)
    with pytest.raises(ValueError, match=r"sampler must be one of \['numpy', 'device-cholesky'\], got 'torch'"):
        train_gaussian(model, sg, 1, progress=False, sampler="torch")
    with pytest.raises(ValueError, match="sampler must be one of"):
        evaluate_kl(model, sg, 2, sampler="cholesky")


def test_a_batch_takes_one_integer_from_the_generator():
    sg = SubvolumeGaussian(2, copies=3)
    rng, mirror = np.random.default_rng(4), np.random.default_rng(4)
    z, mu, sigma = _conditional_targets(sg, 5, rng, torch.device("cpu"), "device-cholesky")
    seed = int(mirror.integers(2 ** 63))
    assert rng.bit_generator.state == mirror.bit_generator.state
    expected = sg.sample_with_conditionals(5, seed)
    assert all(x.dtype == torch.float32 for x in (z, mu, sigma))
    assert all(torch.equal(x, y.float()) for x, y in zip((z, mu, sigma), expected))


def test_settings_key_the_sampler_and_check_it():
    settings = ch04.GaussianSettings(token_dim=1, layers=1, heads=1, max_len=16, d_state=2, steps=3, batch=2,
                                     warmup=1, lr=1e-3, n_eval=2, seed=0)
    assert settings.sampler == "device-cholesky"
    point = ("transformer", 8, 16, 0)
    old = replace(settings, sampler="numpy")
    assert sweep_key("l2m", point, settings) != sweep_key("l2m", point, old)
    assert sweep_key("l2m", point, settings) == sweep_key("l2m", point, replace(settings, device="cuda"))
    with pytest.raises(ValueError, match="sampler must be one of"):
        replace(settings, sampler="device")


def test_both_samplers_train_on_the_same_distribution():
    """A point under either sampler: the same fields, the same exact quantities, other draws."""
    settings = ch04.GaussianSettings(token_dim=2, layers=1, heads=1, max_len=16, d_state=2, steps=4, batch=2,
                                     warmup=1, lr=1e-3, n_eval=4, seed=0)
    point = ("transformer", 8, 16, 0)
    new = ch04.gaussian_points([point], None, settings)[0]
    old = ch04.gaussian_points([point], None, replace(settings, sampler="numpy"))[0]
    assert new.keys() == old.keys() and new["bipartite_mi"] == old["bipartite_mi"]
    assert new["position_kl"] != old["position_kl"]
    assert new == ch04.gaussian_points([point], None, settings)[0]  # a point is a function of its settings
