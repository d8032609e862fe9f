"""Language models: shapes, causality, sampling, state sizes."""

import numpy as np
import pytest
import torch

from seqmi.models.lm import RNNLM, TransformerLM, sinusoidal_positions
from seqmi.train import sequence_loss

V = 5


def models():
    torch.manual_seed(0)
    return [
        RNNLM(V, width=8, depth=2, cell="rnn"),
        RNNLM(V, width=8, depth=1, cell="lstm", embed_dim=3),
        RNNLM(V, width=6, depth=1, cell="lstm", embed_dim=6, tie_weights=True),
        TransformerLM(V, width=16, depth=2, heads=4, max_len=12),
        TransformerLM(V, width=8, depth=1, heads=2, max_len=12, tie_weights=True),
    ]


@pytest.mark.parametrize("model", models(), ids=lambda m: type(m).__name__)
def test_forward_shape_and_loss(model):
    tokens = torch.randint(0, V + 1, (3, 10))
    assert model(tokens).shape == (3, 10, V)
    loss = sequence_loss(model, torch.randint(0, V, (3, 10)))
    # an untrained model is close to uniform: about ln V nats per token
    assert 0.5 * np.log(V) < float(loss.detach()) < 2 * np.log(V)


@pytest.mark.parametrize("model", models(), ids=lambda m: type(m).__name__)
def test_future_tokens_never_change_past_logits(model):
    model.eval()
    torch.manual_seed(1)
    a = torch.randint(0, V, (2, 10))
    b = a.clone()
    b[:, 6:] = torch.randint(0, V, (2, 4))
    with torch.no_grad():
        la, lb = model(a), model(b)
    torch.testing.assert_close(la[:, :6], lb[:, :6], rtol=0, atol=1e-6)
    assert not torch.allclose(la[:, 6:], lb[:, 6:])


@pytest.mark.parametrize("model", models(), ids=lambda m: type(m).__name__)
def test_sampling_is_reproducible_and_in_range(model):
    x = model.sample(7, 30, seed=3, batch_size=4)
    assert x.shape == (7, 30) and x.dtype == np.int64
    assert x.min() >= 0 and x.max() < V
    np.testing.assert_array_equal(x, model.sample(7, 30, seed=3, batch_size=4))
    assert not np.array_equal(x, model.sample(7, 30, seed=4, batch_size=4))


@pytest.mark.parametrize("model", models(), ids=lambda m: type(m).__name__)
def test_sampler_follows_the_model_distribution(model):
    # the first two sampled tokens must follow p(x1 | BOS) and p(x2 | BOS, x1) exactly
    model.eval()
    n = 20000
    x = model.sample(n, 2, seed=0)
    bos = torch.full((V, 1), model.bos)
    with torch.no_grad():
        logits = model(torch.cat([bos, torch.arange(V)[:, None]], dim=1))
    p1 = torch.softmax(logits[0, 0], -1).numpy()
    p12 = p1[:, None] * torch.softmax(logits[:, 1], -1).numpy()
    counts = np.bincount(x[:, 0] * V + x[:, 1], minlength=V * V).reshape(V, V)
    expected = n * p12
    chi2 = ((counts - expected) ** 2 / expected).sum()
    # 24 degrees of freedom: chi2 beyond 60 has probability < 1e-4
    assert chi2 < 60


def test_transformer_cache_matches_full_forward():
    torch.manual_seed(0)
    model = TransformerLM(V, width=16, depth=2, heads=4, max_len=12).eval()
    tokens = torch.cat([torch.full((2, 1), model.bos), torch.randint(0, V, (2, 9))], dim=1)
    with torch.no_grad():
        full = model(tokens)
        caches = [[] for _ in model.blocks]
        steps = [model._step(tokens[:, :3], caches, 0)]
        steps += [model._step(tokens[:, t:t + 1], caches, t) for t in range(3, 10)]
    torch.testing.assert_close(torch.stack(steps, 1), full[:, 2:], rtol=1e-5, atol=1e-5)


def test_transformer_samples_beyond_its_context():
    torch.manual_seed(0)
    model = TransformerLM(V, width=8, depth=1, heads=2, max_len=8)
    x = model.sample(3, 40, seed=0)
    assert x.shape == (3, 40) and x.max() < V


def test_history_state_size():
    assert RNNLM(2, 8, 3, "rnn").history_state_size(512) == 24
    assert RNNLM(2, 8, 3, "lstm").history_state_size(512) == 48
    t = TransformerLM(2, 16, 2, heads=4, max_len=100)
    assert t.history_state_size(10) == 2 * 2 * 16 * 10
    assert t.history_state_size(1000) == 2 * 2 * 16 * 100


def test_sinusoidal_positions_are_the_vaswani_code():
    table = sinusoidal_positions(50, 6)
    pos, i = 17, 1
    assert table[pos, 2 * i] == pytest.approx(np.sin(pos / 10000 ** (2 * i / 6)), abs=1e-6)
    assert table[pos, 2 * i + 1] == pytest.approx(np.cos(pos / 10000 ** (2 * i / 6)), abs=1e-6)


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="cell"):
        RNNLM(2, 8, cell="gru")
    with pytest.raises(ValueError, match="heads"):
        TransformerLM(2, 10, heads=4)
    with pytest.raises(ValueError, match="tie_weights"):
        RNNLM(2, 8, embed_dim=2, tie_weights=True)
    with pytest.raises(ValueError, match="max_len"):
        TransformerLM(2, 8, heads=2, max_len=4)(torch.zeros(1, 5, dtype=torch.long))
