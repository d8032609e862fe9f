"""Model families: members trained together end exactly as if trained alone."""

import dataclasses

import numpy as np
import pytest
import torch

from seqmi.family import RecurrentFamily, Recurrence, family_key, padded_batch
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.train import sequence_loss
from seqmi.models.wordchar import add_lstm_dropout
from seqmi.train import Member, Sequences, Stream, TrainConfig, fit, language_model_task, train, train_family

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
