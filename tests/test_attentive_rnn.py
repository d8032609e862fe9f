import numpy as np
import pytest
import torch

from seqmi.models.attentive_rnn import (AttentiveRNN, RelevancyAttention, SparseAttention, TaskModel,
                                        autograd_jacobians, hidden_gradient_profile, jacobian_norms,
                                        parse_attention, step_cost, train_task_model)
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
        assert res.losses.shape == (3,) and np.isfinite(res.losses).all()
        assert 0.0 <= res.accuracy <= 1.0
        tok, tgt = copy_task(2, 12, 1)
        prof = hidden_gradient_profile(model, tok, tgt, dev)
        assert prof.shape == (tok.shape[1],) and (prof >= 0).all()
        sec, saved = step_cost(model, tok, tgt, dev, repeats=1)
        assert sec > 0 and saved > 0
