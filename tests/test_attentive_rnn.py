import numpy as np
import pytest
import torch

from seqmi.models.attentive_rnn import (AttentiveRNN, RelevancyAttention, SparseAttention, TaskModel,
                                        autograd_jacobians, hidden_gradient_profile, jacobian_norms,
                                        parse_attention, recall_accuracy, recall_attention_mass,
                                        step_cost, train_task_model, transfer_accuracy)
from seqmi.data.copy_tasks import copy_task


def test_parse_attention():
    assert parse_attention("sparse(4)") == SparseAttention(4)
    assert parse_attention("sparse(4, 2)") == SparseAttention(4, 2)
    assert parse_attention("relevancy(15, 10)") == RelevancyAttention(15, 10)
    assert parse_attention("full") == "full"
    with pytest.raises(ValueError):
        parse_attention("dense")
    with pytest.raises(ValueError):
        AttentiveRNN(2, 3, "none", nonlinearity="relu")
    with pytest.raises(ValueError):
        AttentiveRNN(2, 3, "none", recurrent_weight=np.eye(2))


def test_sparse_pattern_has_bounded_size_and_depth():
    pat = SparseAttention(4, 3, gap=5)
    assert pat.chain() == [2, 7, 12]
    for m in range(40):
        idx = pat.attended(m)
        assert m in idx and len(idx) <= 4
    # far away only the last chain state is attended, never the first
    assert 12 in pat.attended(39) and 2 not in pat.attended(39)
    assert 2 in pat.attended(6) and 2 not in pat.attended(7)


def test_recurrent_weight_sets_v_exactly_and_none_is_power_of_v():
    V = np.diag([0.9, -0.5, 0.3])
    model = AttentiveRNN(1, 3, "none", nonlinearity="linear", recurrent_weight=V, dtype=torch.float64)
    J = autograd_jacobians(model, np.random.default_rng(0).normal(size=(12, 1)), 2)
    for k in range(10):
        np.testing.assert_allclose(J[k], np.linalg.matrix_power(V, k), atol=1e-15)
    np.testing.assert_allclose(jacobian_norms(model, np.zeros((12, 1)), 2), np.linalg.norm(J, axis=(1, 2)))


@pytest.mark.parametrize("attention", ["uniform", "full", "relevancy(3, 2)", "sparse(3, 2)"])
def test_batched_forward_matches_single_sequences(attention):
    torch.manual_seed(0)
    model = AttentiveRNN(2, 4, attention, dtype=torch.float64)
    x = torch.randn(3, 15, 2, dtype=torch.float64)
    s, hs, _ = model(x)
    assert s.shape == (3, 15, 4) and len(hs) == 15
    for i in range(3):
        torch.testing.assert_close(model(x[i:i + 1])[0][0], s[i], rtol=1e-12, atol=1e-12)


def test_relevancy_keeps_at_most_rho_older_states_and_costs_linear():
    torch.manual_seed(0)
    model = AttentiveRNN(2, 4, RelevancyAttention(3, 2), dtype=torch.float64)
    _, _, tr = model(torch.randn(1, 20, 2, dtype=torch.float64), trace=True)
    for m, idx in enumerate(tr.attended):
        assert len(idx) <= 5 and m in idx
        np.testing.assert_allclose(tr.alpha[m].sum(), 1.0, rtol=1e-12)
    assert any(i < m - 2 for m, idx in enumerate(tr.attended) for i in idx)


def test_task_models_train_and_report():
    dev = torch.device("cpu")
    for kind in TaskModel.KINDS:
        torch.manual_seed(0)
        model = TaskModel(kind, 10, 9, 8, nu=3, rho=2)
        res = train_task_model(model, lambda n, s: copy_task(n, 12, s), steps=3, batch=4, lr=1e-2, seed=0,
                               device=dev, eval_batch=8)
        assert res.step_losses.shape == (3,) and np.isfinite(res.step_losses).all()
        assert 0.0 <= res.final_metric <= 1.0
        tok, tgt = copy_task(2, 12, 1)
        prof = hidden_gradient_profile(model, tok, tgt, dev)
        assert prof.shape == (tok.shape[1],) and (prof >= 0).all()
        sec, saved = step_cost(model, tok, tgt, dev, repeats=1)
        assert sec > 0 and saved > 0


def _relevancy_reference(model, x, nu, rho):
    """The relevancy screening mechanism for one sequence, written as plainly as possible:
    lists, one state at a time, insertion by explicit comparison (float64)."""
    V, U, b = (p.detach().numpy() for p in (model.V, model.U, model.b))
    W_a, U_a, v_a = (p.detach().numpy() for p in (model.W_a, model.U_a, model.v_a))
    a_h, b_c = model.mix
    hs, score, relevant, out = [], [], [], []
    s_prev = np.zeros(model.hidden_size)
    for m, xm in enumerate(x):
        h = np.tanh(V @ s_prev + U @ xm + b)
        hs.append(h)
        score.append(0.0)
        attended = list(range(max(0, m - nu + 1), m + 1)) + [i for i, _ in relevant]
        e = np.array([v_a @ np.tanh(W_a @ s_prev + U_a @ hs[i]) for i in attended])
        alpha = np.exp(e - e.max())
        alpha /= alpha.sum()
        for i, a in zip(attended, alpha):
            if i > m - nu:
                score[i] += a
        s = a_h * h + b_c * sum(a * hs[i] for i, a in zip(attended, alpha))
        out.append(s)
        leaving = m - nu + 1
        if leaving >= 0 and rho > 0:
            if len(relevant) < rho:
                relevant.append((leaving, score[leaving]))
            else:
                low = min(range(rho), key=lambda j: relevant[j][1])
                if score[leaving] > relevant[low][1]:
                    relevant[low] = (leaving, score[leaving])
        s_prev = s
    return np.array(out)


@pytest.mark.parametrize("combine", ["sum", "mean"])
def test_relevancy_matches_plain_reference(combine):
    torch.manual_seed(1)
    model = AttentiveRNN(3, 5, RelevancyAttention(4, 3), combine=combine, dtype=torch.float64)
    x = torch.randn(2, 30, 3, dtype=torch.float64)
    s, _, _ = model(x)
    for i in range(2):
        np.testing.assert_allclose(s[i].detach().numpy(), _relevancy_reference(model, x[i].numpy(), 4, 3),
                                   rtol=1e-12, atol=1e-12)


def test_training_curve_unchanged_by_the_speedup():
    # losses of this exact run made by the implementation before the per-step work was cut
    # (input drive indexed per step, broadcast multiply + sum for the context); float32
    # summation order differs, so agreement is to rounding (a few ulp of ~2.4), not bitwise
    before = [2.453061580657959, 2.407486915588379, 2.371022939682007, 2.3187296390533447,
              2.270956039428711, 2.2431416511535645]
    torch.manual_seed(0)
    model = TaskModel("relrnn", 10, 9, 8, nu=3, rho=2)
    # the batch seeds of that run (held-out batch first), from before batches had named child seeds
    seeds = iter([13, 0, 1, 2, 3, 4, 5])
    res = train_task_model(model, lambda n, s: copy_task(n, 12, next(seeds)), steps=6, batch=4, lr=1e-2, seed=0,
                           device=torch.device("cpu"), eval_batch=8)
    np.testing.assert_allclose(res.step_losses, before, rtol=1e-6)


def test_training_stops_at_target_and_records_evaluations():
    torch.manual_seed(0)
    model = TaskModel("rnn", 10, 9, 8)
    sample = lambda n, s: copy_task(n, 12, s)  # noqa: E731
    res = train_task_model(model, sample, steps=9, batch=4, lr=1e-2, seed=0, device=torch.device("cpu"),
                           eval_batch=8, eval_every=3)
    assert res.eval_steps.tolist() == [3, 6, 9] and res.steps_to_target is None
    assert res.final_metric == res.eval_metric[-1]
    # any accuracy reaches 0: the run stops at the first evaluation
    torch.manual_seed(0)
    res = train_task_model(TaskModel("rnn", 10, 9, 8), sample, steps=9, batch=4, lr=1e-2, seed=0,
                           device=torch.device("cpu"), eval_batch=8, eval_every=3, target=0.0)
    assert res.steps_to_target == 3 and res.step_losses.shape == (3,)


def test_transfer_accuracy_tests_each_delay_on_its_own_held_out_batch():
    torch.manual_seed(0)
    model = TaskModel("relrnn", 10, 9, 8, nu=3, rho=2)
    dev = torch.device("cpu")
    out = transfer_accuracy(model, copy_task, [30, 5], n=6, seed=4, device=dev)
    assert list(out) == [30, 5]
    for T, acc in out.items():
        tok, tgt = (torch.as_tensor(a) for a in copy_task(6, T, 4))
        assert acc == recall_accuracy(model, tok, tgt, 10)


def test_recall_attention_mass_is_exact_for_uniform_scores():
    torch.manual_seed(0)
    model = TaskModel("full", 10, 9, 8)
    with torch.no_grad():
        model.core.v_a.zero_()  # equal scores: alpha_{i,m} = 1/(m+1) over 0..m
    tok, _ = copy_task(1, 7, 0)
    L = tok.shape[1]
    expected = np.mean([10 / (m + 1) for m in range(L - 10, L)])
    assert recall_attention_mass(model, tok[0]) == pytest.approx(expected, rel=1e-6)
    rel = TaskModel("relrnn", 10, 9, 8, nu=3, rho=2)
    assert 0.0 <= recall_attention_mass(rel, tok[0]) <= 1.0
    with pytest.raises(ValueError, match="relrnn"):
        recall_attention_mass(TaskModel("lstm", 10, 9, 8), tok[0])


def reference_train_task_model(model, sample, steps, batch, lr, seed, clip=1.0, n_recall=10, eval_batch=200,
                               eval_every=None, target=None):
    """`train_task_model` as it was before it became a configuration of `seqmi.train.fit`
    (since then batch seeds are named children of `seed`, no longer `seed * 1_000_003 + i`)."""
    from seqmi.models.attentive_rnn import recall_accuracy
    from seqmi.rng import child_seed

    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    lossf = torch.nn.CrossEntropyLoss()
    losses, ev_steps, ev_acc = [], [], []
    ev_tok, ev_tgt = (torch.as_tensor(a) for a in sample(eval_batch, child_seed(seed, "eval")))
    for i in range(steps):
        tok, tgt = (torch.as_tensor(a) for a in sample(batch, child_seed(seed, "batch", i)))
        logits, _ = model(tok)
        loss = lossf(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        losses.append(loss.item())
        if eval_every is not None and (i + 1) % eval_every == 0:
            ev_steps.append(i + 1)
            ev_acc.append(recall_accuracy(model, ev_tok, ev_tgt, n_recall))
            if target is not None and ev_acc[-1] >= target:
                break
    return losses, ev_steps, ev_acc


@pytest.mark.parametrize("kind, eval_every, target", [("relrnn", None, None), ("lstm", 2, 0.2)])
def test_training_follows_the_reference_loop_bit_for_bit(kind, eval_every, target):
    sample = lambda n, s: copy_task(n, 12, s)  # noqa: E731
    models = []
    for _ in range(2):
        torch.manual_seed(0)
        models.append(TaskModel(kind, 10, 9, 8, nu=3, rho=2))
    kw = dict(steps=7, batch=4, lr=1e-2, seed=1, eval_batch=8, eval_every=eval_every, target=target)
    losses, ev_steps, ev_acc = reference_train_task_model(models[0], sample, **kw)
    res = train_task_model(models[1], sample, device="cpu", **kw)
    assert res.step_losses.tolist() == losses
    assert res.eval_steps.tolist() == ev_steps and res.eval_metric.tolist() == ev_acc
    for (name, x), y in zip(models[0].state_dict().items(), models[1].state_dict().values()):
        assert torch.equal(x, y), name
