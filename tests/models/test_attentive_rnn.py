import numpy as np
import pytest
import torch

from seqmi.models.attentive_rnn import (AttentiveRNN, RelevancyAttention, SparseAttention, TaskModel,
                                        autograd_jacobians, hidden_gradient_profile, jacobian_norms,
                                        parse_attention, recall_accuracy, recall_attention_mass,
                                        step_cost, transfer_accuracy)
from seqmi.recipes.copy_tasks import train_task_model
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


def _relevancy_autograd_reference(model, x, delta=None, delta_index=0):
    """The relevancy forward pass as it was before the compiled scan: every step recorded op by
    op for autograd. Returns ``s``, the per-step states ``h`` (graph nodes) and, for the first
    sequence, the attended indices and weights of every step."""
    att, (a_h, b_c) = model.attention, model.mix
    B, T, _ = x.shape
    n = model.hidden_size
    s_prev = x.new_zeros(B, n)
    drive = (x @ model.U.T + model.b).unbind(1)
    hs, keys, ss, attended, alphas = [], [], [], [], []
    mem, mem_keys = x.new_zeros(B, att.rho, n), x.new_zeros(B, att.rho, n)
    rel_idx = torch.full((B, att.rho), -1, dtype=torch.long)
    rel_score = torch.full((B, att.rho), float("-inf"), dtype=x.dtype)
    acc = x.new_zeros(B, T)
    for m in range(T):
        h = model.phi(s_prev @ model.V.T + drive[m])
        if delta is not None and m == delta_index:
            h = h + delta
        hs.append(h)
        keys.append(h @ model.U_a.T)
        lo = max(0, m - att.nu + 1)
        states = torch.cat([torch.stack(hs[lo:], 1), mem], 1)
        k_all = torch.cat([torch.stack(keys[lo:], 1), mem_keys], 1)
        mask = torch.cat([torch.ones(B, m + 1 - lo, dtype=torch.bool), rel_idx >= 0], 1)
        e = torch.tanh((s_prev @ model.W_a.T)[:, None, :] + k_all) @ model.v_a
        weights = torch.softmax(e.masked_fill(~mask, float("-inf")), dim=1)
        c = (weights[:, :, None] * states).sum(1)
        acc[:, lo: m + 1] += weights[:, : m + 1 - lo].detach()
        valid0 = (rel_idx[0] >= 0).numpy()
        attended.append(np.array(list(range(lo, m + 1)) + rel_idx[0].numpy()[valid0].tolist()))
        w0 = weights[0].detach().numpy()
        alphas.append(np.concatenate([w0[: m + 1 - lo], w0[m + 1 - lo:][valid0]]))
        leaving = m - att.nu + 1
        if leaving >= 0 and att.rho > 0:
            low, slot = rel_score.min(1)
            score = acc[:, leaving]
            put = torch.nn.functional.one_hot(slot, att.rho).bool() & (score > low)[:, None]
            mem = torch.where(put[..., None], hs[leaving][:, None, :], mem)
            mem_keys = torch.where(put[..., None], keys[leaving][:, None, :], mem_keys)
            rel_idx = torch.where(put, torch.full_like(rel_idx, leaving), rel_idx)
            rel_score = torch.where(put, score[:, None].expand_as(rel_score), rel_score)
        s_prev = a_h * h + b_c * c
        ss.append(s_prev)
    return torch.stack(ss, 1), hs, attended, alphas


def _forward_backward(forward, model, x, g_out, delta):
    """Outputs, and the gradients of ``sum(g_out * s)`` with respect to the hidden states, the
    parameters, the input and ``delta``, from ``forward(x, delta) -> (s, hs)``."""
    x = x.clone().requires_grad_()
    delta = delta.clone().requires_grad_()
    s, hs = forward(x, delta)
    loss = (g_out * s).sum()
    g_hs = torch.autograd.grad(loss, hs, retain_graph=True)
    model.zero_grad()
    loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    return s.detach(), torch.stack(g_hs, 1), grads, x.grad, delta.grad


@pytest.mark.parametrize("dtype, nonlinearity, combine, nu, rho", [
    (torch.float32, "tanh", "mean", 4, 3),
    (torch.float32, "tanh", "sum", 1, 2),
    (torch.float32, "tanh", "mean", 5, 0),
    (torch.float32, "tanh", "mean", 3, 6),
    (torch.float64, "tanh", "sum", 4, 3),
    (torch.float64, "linear", "mean", 2, 2),
])
def test_relevancy_scan_matches_autograd_reference(dtype, nonlinearity, combine, nu, rho):
    # outputs, traces and every gradient (states, parameters, inputs, delta) of the compiled
    # scan against the per-step autograd graph it replaced: equal to rounding
    torch.manual_seed(2)
    model = AttentiveRNN(3, 6, RelevancyAttention(nu, rho), nonlinearity=nonlinearity, combine=combine, dtype=dtype)
    x = torch.randn(4, 40, 3, dtype=dtype)
    g_out = torch.randn(4, 40, 6, dtype=dtype)
    delta = torch.zeros(6, dtype=dtype)

    def fast(x, d):
        return model(x, delta=d, delta_index=7)[:2]

    def reference(x, d):
        return _relevancy_autograd_reference(model, x, d, 7)[:2]

    rtol = 1e-5 if dtype == torch.float32 else 1e-11

    def assert_close(a, b):
        # relative to the largest entry: gradients are sums of many terms, and an entry where
        # they cancel keeps the absolute rounding error of the others
        assert (a - b).abs().max() <= rtol * b.abs().max()

    got, want = _forward_backward(fast, model, x, g_out, delta), _forward_backward(reference, model, x, g_out, delta)
    for a, b in zip(got[:2] + got[3:], want[:2] + want[3:]):
        assert_close(a, b)
    for name in want[2]:
        assert_close(got[2][name], want[2][name])
    # the trace: the same attended states in the same order, the same weights
    with torch.no_grad():
        _, _, tr = model(x[:1], trace=True)
        _, _, attended, alphas = _relevancy_autograd_reference(model, x[:1])
    for m in range(x.shape[1]):
        np.testing.assert_array_equal(tr.attended[m], attended[m])
        np.testing.assert_allclose(tr.alpha[m], alphas[m], rtol=rtol, atol=rtol)


def test_relevancy_states_outside_s_raise_instead_of_wrong_gradients():
    # the states' gradients are those of functions of s: a loss that reads them directly
    # would need the recursion too, so the backward pass refuses it
    torch.manual_seed(0)
    model = AttentiveRNN(2, 4, RelevancyAttention(3, 2))
    s, hs, _ = model(torch.randn(2, 12, 2))
    with pytest.raises(RuntimeError, match="only through its outputs s"):
        (s.sum() + hs[5].sum()).backward()
    s, hs, _ = model(torch.randn(2, 12, 2))
    with pytest.raises(RuntimeError, match="only through its outputs s"):
        hs[5].sum().backward()


def test_relevancy_without_gradients_computes_the_same_outputs():
    torch.manual_seed(0)
    model = AttentiveRNN(2, 4, RelevancyAttention(3, 2))
    x = torch.randn(3, 20, 2)
    s, hs, _ = model(x)
    with torch.no_grad():
        s0, hs0, _ = model(x)
    assert s.requires_grad and not s0.requires_grad
    torch.testing.assert_close(s0, s.detach(), rtol=0, atol=0)
    torch.testing.assert_close(torch.stack(hs0), torch.stack(hs).detach(), rtol=0, atol=0)
