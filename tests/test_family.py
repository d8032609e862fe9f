"""Model families: members trained together end as if trained alone (bit for bit, stacked ones to float32 rounding)."""

import dataclasses

import numpy as np
import pytest
import torch

from seqmi import family as family_module
from seqmi.train import families as train_module
from seqmi.family import (RecurrentFamily, Recurrence, StackedFamily, family_for, family_key, next_token_loss,
                          padded_batch)
from seqmi.models.gaussian_lm import GaussianSequenceModel
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.models.wordchar import add_lstm_dropout
from seqmi.recipes.gaussian_tokens import kl_loss
from seqmi.train import (Member, Sequences, Stream, TrainConfig, evaluate, fit, language_model_task, sequence_loss,
                         train, train_family)

RNG = np.random.default_rng(0)


def markov(n, length):
    # x_{t+1} = x_t with probability 0.9: learnable in a few epochs
    flips = RNG.random((n, length)) < 0.1
    return (np.cumsum(flips, axis=1) + RNG.integers(2, size=(n, 1))) % 2


DATA = Sequences(markov(32, 16), markov(8, 16))
B = 8
# one plain run, one that cannot improve (stops by patience while the others go on), one
# with a tiny clip and another optimizer, one with a cosine schedule and fewer epochs
CONFIGS = [TrainConfig(lr=0.01, batch_size=B, max_epochs=3, patience=1),
           TrainConfig(lr=1e-12, batch_size=B, max_epochs=3, patience=1),
           TrainConfig(optimizer="adam", lr=0.003, clip=0.01, batch_size=B, max_epochs=3),
           TrainConfig(optimizer="adamw", lr=0.01, weight_decay=0.1, schedule="cosine", warmup_steps=2,
                       batch_size=B, max_epochs=2)]


@pytest.fixture(params=[1, 2], ids=["1 thread", "2 threads"])
def threads(request, cpu_threads):
    # with two threads torch rounds a lone matrix product differently from a batch of them
    with cpu_threads(request.param) as n:
        yield n


def members(task, make_model, indices):
    out = []
    for i in indices:
        torch.manual_seed(100 + i)
        out.append(Member(make_model(), CONFIGS[i], np.random.default_rng(i), task))
    return out


@pytest.mark.parametrize("cell, depth, threads", [("rnn", 1, 1), ("rnn", 2, 2), ("lstm", 1, 2)], indirect=["threads"])
def test_members_end_bit_for_bit_as_if_trained_alone(cell, depth, threads):
    # vanilla RNNs: one batched recurrence for the family; LSTMs: each member's own forward pass
    make_model = lambda: RNNLM(2, 5, depth, cell, embed_dim=2)  # noqa: E731
    family = RecurrentFamily(DATA.valid, torch.device("cpu")) if cell == "rnn" else None
    task = language_model_task(DATA, B, family=family)
    together = members(task, make_model, range(len(CONFIGS)))
    fit(together, task, progress=False)
    assert [m.stopped for m in together] == ["epochs", "patience", "epochs", "epochs"]
    assert [m.epoch for m in together] == [3, 2, 3, 2]
    for i, member in enumerate(together):
        alone = members(task, make_model, [i])[0]
        fit([alone], task, progress=False)
        assert member.step_losses == alone.step_losses and member.eval_metric == alone.eval_metric
        for (name, x), y in zip(member.model.state_dict().items(), alone.model.state_dict().values()):
            assert torch.equal(x, y), (i, name)
        # a frozen member's optimizer stopped with it
        state = member.optimizer.state_dict()["state"][0]
        assert int(state.get("step", len(member.step_losses))) == len(member.step_losses)


@pytest.mark.parametrize("shape", [dict(width=3, vocab=4, embed_dim=1, tie_weights=False, batch=7, length=9),
                                   dict(width=9, vocab=5, embed_dim=9, tie_weights=True, batch=13, length=6)])
def test_batched_losses_and_gradients_do_not_depend_on_the_other_members(threads, shape):
    torch.manual_seed(0)
    models = [RNNLM(shape["vocab"], shape["width"], 2, "rnn", embed_dim=shape["embed_dim"],
                    tie_weights=shape["tie_weights"]) for _ in range(5)]
    tokens = torch.randint(0, shape["vocab"], (5, shape["batch"], shape["length"]))
    family = RecurrentFamily(DATA.valid, torch.device("cpu"))
    losses = family._losses(models, tokens)
    grads = torch.autograd.grad(torch.stack(losses).sum(), [p for m in models for p in m.parameters()])
    n = len(grads) // 5
    for k, model in enumerate(models):
        alone = family._losses([model], tokens[k:k + 1])[0]
        assert torch.equal(alone, losses[k])
        for g, h in zip(torch.autograd.grad(alone, list(model.parameters())), grads[k * n:(k + 1) * n]):
            assert torch.equal(g, h)


def test_train_family_returns_what_each_config_gives_alone():
    make_model = lambda: RNNLM(2, 4, 1, "rnn", embed_dim=2)  # noqa: E731
    configs = [dataclasses.replace(CONFIGS[0], restarts=2, seed=s) for s in (0, 1)] + [CONFIGS[2]]
    together = train_family(make_model, DATA, configs, progress=False)
    for config, result in zip(configs, together):
        alone = train(make_model, DATA, config, progress=False)
        assert result.restart_val_losses == alone.restart_val_losses
        for x, y in zip(result.model.state_dict().values(), alone.model.state_dict().values()):
            assert torch.equal(x, y)


def test_batched_recurrence_matches_torch_to_rounding():
    # the same function as nn.RNN, summed in another order
    torch.manual_seed(0)
    model = RNNLM(3, 7, 2, "rnn")
    x = torch.randint(0, 3, (9, 15))
    family = RecurrentFamily(DATA.valid, torch.device("cpu"))
    ours = family.losses([model], [x])[0][0]
    grads = torch.autograd.grad(ours, list(model.parameters()))
    theirs = sequence_loss(model, x)
    reference = torch.autograd.grad(theirs, list(model.parameters()))
    assert float(ours.detach()) == pytest.approx(float(theirs.detach()), rel=1e-6)
    for g, r in zip(grads, reference):
        torch.testing.assert_close(g, r, rtol=1e-5, atol=1e-6)


def test_recurrence_gradient_against_finite_differences():
    torch.manual_seed(0)
    L, K, H, Bp, S = 4, 2, 3, 2, 3
    w = (0.5 * torch.randn(K, H, H, dtype=torch.float64)).requires_grad_()
    xp = torch.randn(L, K, H, Bp, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: Recurrence.apply(a, b), (xp, w))
    table = torch.randn(K, H, S, dtype=torch.float64, requires_grad=True)
    symbols = torch.randint(0, S, (L, K, Bp))
    assert torch.autograd.gradcheck(lambda a, b: Recurrence.apply(a, b, symbols), (table, w))


def test_padded_batch_makes_every_slab_a_multiple_of_64():
    for hidden in (1, 2, 3, 6, 8, 64, 100):
        for batch in (1, 16, 50, 256):
            bp = padded_batch(batch, hidden)
            assert bp >= batch and bp * hidden % 64 == 0 and (bp - 1 < batch or (bp - 1) * hidden % 64)


def test_which_models_share_a_family():
    cpu = torch.device("cpu")
    rnn = RNNLM(2, 4, 1, "rnn", embed_dim=2)
    assert family_key(rnn, True, cpu) == family_key(RNNLM(2, 4, 1, "rnn", embed_dim=2), True, cpu)
    assert family_key(rnn, True, cpu) != family_key(RNNLM(2, 5, 1, "rnn", embed_dim=2), True, cpu)  # widths apart
    assert family_key(rnn, True, cpu)[0] == "recurrent" and family_key(rnn, False, cpu) is None
    assert family_key(RNNLM(2, 4, 1, "lstm", embed_dim=2), True, cpu)[0] == "each"
    assert family_key(TransformerLM(2, 8, 1, heads=2, max_len=8), True, cpu)[0] == "each"
    # dropout draws from torch's global generator: in lockstep the draws would interleave
    assert family_key(add_lstm_dropout(RNNLM(5, 4, 2, "lstm"), 0.4), True, cpu) is None


def test_streams_train_one_model_at_a_time():
    stream = RNG.integers(0, 2, 600)
    data = Stream(stream[:500], stream[500:], bptt=10)
    config = TrainConfig(lr=0.02, batch_size=4, max_epochs=2, restarts=2)
    result = train(lambda: RNNLM(2, 4, 1, "lstm", embed_dim=2), data, config, progress=False)
    # one run after the other: the log holds restart 0's epochs, then restart 1's
    assert [h["restart"] for h in result.history] == [0, 0, 1, 1]


def test_an_interrupted_family_resumes_bit_for_bit(tmp_path):
    make_model = lambda: RNNLM(2, 4, 1, "rnn", embed_dim=2)  # noqa: E731
    configs = [dataclasses.replace(CONFIGS[0], restarts=2), CONFIGS[1]]
    reference = train_family(make_model, DATA, configs, progress=False)

    class Interrupt(Exception):
        pass

    def stop(record):
        if record["epoch"] == 2:
            raise Interrupt

    with pytest.raises(Interrupt):
        train_family(make_model, DATA, configs, checkpoint_dir=tmp_path, progress=False, on_epoch_end=stop)
    resumed = train_family(make_model, DATA, configs, checkpoint_dir=tmp_path, progress=False)
    for a, b in zip(reference, resumed):
        assert a.restart_val_losses == b.restart_val_losses
        for x, y in zip(a.model.state_dict().values(), b.model.state_dict().values()):
            assert torch.equal(x, y)


# ---------------------------------------------------------------------- stacked members
# A stacked member against its own forward pass: float32 rounding (measured: losses 1.6e-7,
# gradients 3e-6 of the tensor's largest entry); these bounds leave a margin of 5-10x
LOSS_RTOL, GRAD_RTOL = 1e-6, 2e-5


def tiny_transformer(width=8, heads=2, depth=1, vocab=2, tie_weights=False):
    return TransformerLM(vocab, width, depth, heads=heads, max_len=17, tie_weights=tie_weights)


def assert_near(x, reference, rtol):
    scale = float(reference.abs().max())
    assert float((x - reference).abs().max()) <= rtol * scale, (float((x - reference).abs().max()), scale)


@pytest.mark.parametrize("kw", [dict(), dict(width=12, heads=3, depth=2, vocab=5, tie_weights=True)])
def test_stacked_losses_and_gradients_equal_each_members_own_to_rounding(kw):
    torch.manual_seed(0)
    models = [tiny_transformer(**kw) for _ in range(3)]
    tokens = torch.randint(0, models[0].vocab_size, (3, 5, 16))
    losses = StackedFamily(DATA.valid).losses(models, list(tokens))
    torch.stack([loss for loss, _ in losses]).sum().backward()
    for model, x, (loss, count) in zip(models, tokens, losses):
        own = sequence_loss(model, x)
        assert count == x.numel()
        assert_near(loss.detach(), own.detach(), LOSS_RTOL)
        for p, g in zip(model.parameters(), torch.autograd.grad(own, list(model.parameters()))):
            assert_near(p.grad, g, GRAD_RTOL)


def test_stacked_evaluation_is_the_validation_loss_in_float32():
    torch.manual_seed(0)
    models = [tiny_transformer() for _ in range(2)]
    family = StackedFamily(DATA.valid, batch_size=3)  # several passes, the last one short
    with torch.autocast("cpu", dtype=torch.bfloat16):  # as inside fit: evaluation ignores it
        values = family.evaluate(models)
    for model, value in zip(models, values):
        assert value == pytest.approx(evaluate(model, DATA), rel=LOSS_RTOL)
        assert model.training


def tiny_gaussian_transformers(k):
    """``k`` Transformers of Gaussian tokens (L2M Fig. 4), and one batch ``(z, mu_p, sigma_p)`` each."""
    torch.manual_seed(0)
    models = [GaussianSequenceModel("transformer", 3, 8, 1, n_heads=2, max_len=16) for _ in range(k)]
    z, mu_p = torch.randn(k, 5, 16, 3), torch.randn(k, 5, 16, 3)
    return models, (z, mu_p, 0.5 + torch.rand(k, 5, 16, 3))


def tiny_lms(k):
    """``k`` tiny Transformer language models, and one batch of tokens each."""
    torch.manual_seed(0)
    return [tiny_transformer() for _ in range(k)], torch.randint(0, 2, (k, 7, 16))


STACKED_CASES = {"language model": (tiny_lms, next_token_loss),
                 "Gaussian tokens": (tiny_gaussian_transformers, kl_loss)}


def member_batch(batch, k):
    return batch[k:k + 1] if isinstance(batch, torch.Tensor) else tuple(x[k:k + 1] for x in batch)


@pytest.mark.parametrize("case", STACKED_CASES)
def test_a_stacked_members_numbers_do_not_depend_on_the_others(threads, case):
    # bit for bit: the batched products take each member's slice the same way whatever K
    build, loss = STACKED_CASES[case]
    models, batch = build(5)
    family = StackedFamily(loss=loss)
    losses, _ = family._losses(models, batch)
    grads = torch.autograd.grad(losses.sum(), [p for m in models for p in m.parameters()])
    n = len(grads) // 5
    for k, model in enumerate(models):
        alone = family._losses([model], member_batch(batch, k))[0][0]
        assert torch.equal(alone, losses[k])
        for g, h in zip(torch.autograd.grad(alone, list(model.parameters())), grads[k * n:(k + 1) * n]):
            assert torch.equal(g, h)


def test_stacked_gaussian_losses_and_gradients_equal_each_members_own_to_rounding():
    models, (z, mu_p, sigma_p) = tiny_gaussian_transformers(3)
    losses = StackedFamily(loss=kl_loss).losses(models, list(zip(z, mu_p, sigma_p)))
    torch.stack([loss for loss, _ in losses]).sum().backward()
    for model, batch, (loss, weight) in zip(models, zip(z, mu_p, sigma_p), losses):
        own, own_weight = kl_loss(model, batch)
        assert weight == own_weight == 1
        assert_near(loss.detach(), own.detach(), LOSS_RTOL)
        for p, g in zip(model.parameters(), torch.autograd.grad(own, list(model.parameters()))):
            assert_near(p.grad, g, GRAD_RTOL)


def test_a_stacked_family_without_validation_rows_cannot_evaluate():
    models, _ = tiny_gaussian_transformers(2)
    with pytest.raises(ValueError, match="without validation sequences"):
        StackedFamily(loss=kl_loss).evaluate(models)


def test_fit_with_a_stacked_family_ends_near_the_members_trained_alone():
    stacked = language_model_task(DATA, B, family=StackedFamily(DATA.valid))
    together = members(stacked, tiny_transformer, range(len(CONFIGS)))
    fit(together, stacked, progress=False)
    own = language_model_task(DATA, B)
    for i, member in enumerate(together):
        alone = members(own, tiny_transformer, [i])[0]
        fit([alone], own, progress=False)
        assert (member.stopped, member.epoch) == (alone.stopped, alone.epoch)
        np.testing.assert_allclose(member.step_losses, alone.step_losses, rtol=1e-5)
        np.testing.assert_allclose(member.eval_metric, alone.eval_metric, rtol=1e-5)
        for (name, x), y in zip(member.model.state_dict().items(), alone.model.state_dict().values()):
            if name.endswith("qkv.bias"):
                # the keys' bias adds a constant to each row of scores, which the softmax removes:
                # its gradient is rounding noise, which RMSprop and Adam scale up to the learning rate
                w = len(x) // 3
                x, y = torch.cat([x[:w], x[2 * w:]]), torch.cat([y[:w], y[2 * w:]])
            assert_near(x, y, 1e-5)


def test_a_stacked_family_takes_members_of_one_architecture():
    family = StackedFamily(DATA.valid)
    x = torch.zeros(2, 16, dtype=torch.long)
    with pytest.raises(ValueError, match="member 1 .* differs from member 0"):
        family.losses([tiny_transformer(8), tiny_transformer(12)], [x, x])
    # equal parameter shapes, other heads: another forward pass
    with pytest.raises(ValueError, match="member 1 .* differs"):
        family.losses([tiny_transformer(8, heads=2), tiny_transformer(8, heads=4)], [x, x])
    with pytest.raises(ValueError, match="aten::rnn_tanh"):
        family.losses([RNNLM(2, 4, 1, "rnn", embed_dim=2)], [x])
    with pytest.raises(ValueError, match="at least one"):
        family.losses([], [])


def test_transformers_stack_on_cuda_only(monkeypatch):
    cpu = torch.device("cpu")
    assert family_key(tiny_transformer(), True, cpu)[0] == "each"  # recorded CPU runs keep their numbers
    assert family_for(family_key(tiny_transformer(), True, cpu), DATA.valid, cpu) is None
    monkeypatch.setattr(family_module, "resolve_device", lambda device: torch.device("cuda"))
    key = family_key(tiny_transformer(), True, "cuda")
    assert key[0] == "stacked" and key == family_key(tiny_transformer(), True, "cuda")
    assert key != family_key(tiny_transformer(heads=4), True, "cuda")  # shapes alike, heads apart
    assert family_key(RNNLM(2, 4, 1, "lstm", embed_dim=2), True, "cuda")[0] == "each"
    assert isinstance(family_for(key, DATA.valid, "cuda", members=2), StackedFamily)
    assert family_for(key, DATA.valid, "cuda", members=1) is None  # alone: its own forward pass, faster


def test_train_family_trains_a_stacked_key_with_a_stacked_family(monkeypatch):
    # on the CPU as on CUDA: force the key train_family sees on a GPU
    built = []

    def recorded_family_for(*args):
        built.append(family_for(*args))
        return built[-1]

    monkeypatch.setattr(train_module, "family_key", lambda model, sequences, device: ("stacked", 0))
    monkeypatch.setattr(train_module, "family_for", recorded_family_for)
    configs = [dataclasses.replace(CONFIGS[0], restarts=2), CONFIGS[2]]
    together = train_family(tiny_transformer, DATA, configs, progress=False)
    assert len(built) == 1 and isinstance(built[0], StackedFamily)  # one family of three members
    monkeypatch.undo()
    for config, result in zip(configs, together):
        alone = train(tiny_transformer, DATA, config, progress=False)
        np.testing.assert_allclose(result.restart_val_losses, alone.restart_val_losses, rtol=1e-5)
