"""Trainable SSM/RNN language models (Section 5) and the piece-counting helpers (Prop. A.8)."""

import numpy as np
import pytest
import torch

from seqmi.data.ngram import NgramLanguage, random_ngram_language
from seqmi.models.ngram_lm import (MODELS, RNNLanguageModel, SSMLanguageModel,
    batch_tensors, complete, completion_accuracy, explained_by_groups, hidden_states,
    influence_by_lag, pca_2d, state_jacobian_norms)
from seqmi.recipes.ngram_lm import train_language_model
from seqmi.theory.ngram_ssm import alternating_task, memorising_ssm, pieces_and_sign_changes


@pytest.fixture(scope="module")
def lang():
    return random_ngram_language(3, 6, 4, 2, 3, seed=1)


def test_batch_tensors_targets_end_with_unknown(lang):
    ids, targets = batch_tensors(lang, lang.sentences[:3], torch.device("cpu"))
    s = lang.sentences[0]
    assert ids.shape == (3, len(s))
    np.testing.assert_array_equal(targets[0, :-1].numpy(), lang.encode(s)[1:])
    assert int(targets[0, -1]) == lang.unk_index


@pytest.mark.parametrize("kind", ["ssm", "rnn"])
def test_training_learns_a_small_language_and_is_seeded(lang, kind):
    train, test = lang.split(len(lang.sentences) // 2, seed=0)
    kw = dict(embed_dim=8, hidden_size=len(lang.rules), epochs=30, lr=0.1, seed=3, progress=False)
    res = train_language_model(kind, lang, train, **kw)
    again = train_language_model(kind, lang, train, **kw)
    assert res.epoch_losses == again.epoch_losses
    assert res.epoch_losses[-1] < 0.5 * res.epoch_losses[0]
    # prefixes of n - 1 = 2 words leave the model free to complete them any valid way
    assert completion_accuracy(res.model, lang, test, 2) > 0.9


def test_complete_stops_at_unknown_and_max_length(lang):
    torch.manual_seed(0)
    model = SSMLanguageModel(len(lang.vocab), 4, 8)
    out = complete(model, lang, [lang.sentences[0][:2]], max_length=5)
    assert 2 <= len(out[0]) <= 5 and out[0][:2] == lang.sentences[0][:2]
    with pytest.raises(ValueError):
        complete(model, lang, [("a",), ("a", "b")], 5)


def test_influence_vanishes_beyond_a_models_window():
    lang = NgramLanguage.paper_example()
    torch.manual_seed(0)
    model = RNNLanguageModel(len(lang.vocab), 4, 6)
    # an RNN whose hidden matrix is zero sees only the last word
    with torch.no_grad():
        model.rnn.weight_hh_l0.zero_()
    prefixes = [s[:10] for s in lang.sentences[::400]]
    infl = influence_by_lag(model, lang, prefixes, 4, seed=0)
    assert infl[0] > 0 and (infl[1:] == 0).all()
    h = hidden_states(model, lang, prefixes)
    assert h.shape == (len(prefixes), 6)


def test_explained_by_groups_and_pca():
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((3, 5)) * 10
    labels = np.repeat([0, 1, 2], 20)
    assert explained_by_groups(centres[labels], labels) == pytest.approx(1.0)
    noisy = centres[labels] + rng.standard_normal((60, 5))
    assert 0.8 < explained_by_groups(noisy, labels) < 1.0
    coords, frac = pca_2d(noisy)
    assert coords.shape == (60, 2) and frac[0] >= frac[1] and frac.sum() <= 1


def test_piece_counting_bounds_sign_changes():
    x, y = alternating_task(10, 3, 2, seed=0)
    assert np.array_equal(y[:, 0], [(-1) ** j for j in range(1, 11)])
    for m in (1, 3, 6):
        pieces, changes = pieces_and_sign_changes(x, m, 300, seed=m)
        assert (pieces <= m + 1).all() and (changes <= pieces).all()
    # with as many neurons as points the construction memorises the alternating set
    w = memorising_ssm(x, y, 3, seed=0)
    np.testing.assert_allclose(w.outputs(x)[:, -1], y, atol=1e-9)


@pytest.mark.parametrize("kind", ["ssm", "rnn"])
def test_state_jacobian_norms_against_autograd(lang, kind):
    torch.manual_seed(0)
    model = MODELS[kind](len(lang.vocab), 4, 12)
    prefixes = [s[:6] for s in lang.sentences if len(s) >= 6][:3]
    norms = state_jacobian_norms(model, lang, prefixes, 4)
    ids = torch.as_tensor(np.stack([lang.encode(p) for p in prefixes]))
    x = model.embed(ids).detach()
    for i in range(len(prefixes)):
        for k in range(1, 5):
            def last_state(h0, i=i, k=k):
                # run the last k steps from h_(T-k) = h0
                h = h0
                for t in range(x.shape[1] - k, x.shape[1]):
                    if kind == "ssm":
                        h = model.A(h) + model.B(x[i, t])
                    else:
                        h = torch.relu(model.rnn.weight_ih_l0 @ x[i, t] + model.rnn.bias_ih_l0
                                       + model.rnn.weight_hh_l0 @ h + model.rnn.bias_hh_l0)
                return h
            start = model.states(ids)[i, -k - 1].detach()
            jac = torch.autograd.functional.jacobian(last_state, start)
            # float32 model, float64 products: agreement to float32 rounding
            assert norms[i, k] == pytest.approx(float(torch.linalg.matrix_norm(jac, ord=2)), rel=1e-5)


def reference_train_language_model(kind, language, train, *, embed_dim, hidden_size, epochs, lr, optimizer,
                                   batch_size, seed):
    """`train_language_model` as it was before it became a configuration of `seqmi.train.fit`."""
    from seqmi.models.ngram_lm import PAD_TARGET

    device = torch.device("cpu")
    torch.manual_seed(seed)
    model = MODELS[kind](len(language.vocab), embed_dim, hidden_size)
    opt = (torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam)(model.parameters(), lr=lr)
    ids, targets = batch_tensors(language, train, device)
    rng = np.random.default_rng(seed)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_TARGET)
    losses = []
    for _ in range(epochs):
        model.train()
        total, count = 0.0, 0
        order = torch.as_tensor(rng.permutation(len(train)), device=device)
        for start in range(0, len(train), batch_size):
            rows = order[start: start + batch_size]
            x, y = ids[rows], targets[rows]
            T = int((y != PAD_TARGET).sum(dim=1).max())
            logits = model(x[:, :T])
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), y[:, :T].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            words = int((y[:, :T] != PAD_TARGET).sum())
            total += loss.item() * words
            count += words
        losses.append(total / count)
    return model, losses


@pytest.mark.parametrize("kind, optimizer, batch_size", [("ssm", "sgd", 1), ("rnn", "adam", 3)])
def test_training_follows_the_reference_loop_bit_for_bit(lang, kind, optimizer, batch_size):
    train, _ = lang.split(len(lang.sentences) // 2, seed=0)
    kw = dict(embed_dim=8, hidden_size=6, epochs=3, lr=0.05, optimizer=optimizer, batch_size=batch_size, seed=3)
    model, losses = reference_train_language_model(kind, lang, train, **kw)
    res = train_language_model(kind, lang, train, progress=False, **kw)
    assert res.epoch_losses == losses
    for (name, x), y in zip(model.state_dict().items(), res.model.state_dict().values()):
        assert torch.equal(x, y), name
