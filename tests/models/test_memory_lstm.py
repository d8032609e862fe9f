"""The LSTM memory cores: relevancy screening against a per-sequence reference."""

import pytest
import torch

from seqmi.models.memory_lstm import KINDS, MemoryLSTM


def _reference_relevancy(core: MemoryLSTM, x: torch.Tensor) -> torch.Tensor:
    """RelLSTM run one sequence at a time with Python lists: the buffer as the last nu states,
    the relevant set as (state, key, score) entries, relevance summed while in the buffer."""
    out = []
    n = core.hidden_size
    for seq in x:
        h = c = s = torch.zeros(1, n)
        buffer, relevant = [], []  # buffer entries: [state, key, score], oldest first
        rows = []
        for xt in seq:
            h, c = core.cell(torch.cat([xt[None], s], 1), (h, c))
            query = core.W_a(s)
            if len(buffer) == core.nu:
                leaving = buffer.pop(0)
                if len(relevant) < core.rho:
                    relevant.append(leaving)
                elif core.rho:
                    low = min(range(len(relevant)), key=lambda j: relevant[j][2])
                    if leaving[2] > relevant[low][2]:
                        relevant[low] = leaving
            buffer.append([h, core.U_a(h), 0.0])
            members = buffer + relevant
            e = torch.stack([(torch.tanh(query + k) @ core.v_a)[0] for _, k, _ in members])
            alpha = torch.softmax(e, 0)
            context = sum(a * st for a, (st, _, _) in zip(alpha, members))
            for a, entry in zip(alpha[:len(buffer)], buffer):
                entry[2] += float(a)
            s = 0.5 * (h + context)
            rows.append(s[0])
        out.append(torch.stack(rows))
    return torch.stack(out)


@pytest.mark.parametrize("nu, rho", [(3, 2), (2, 4), (4, 0)])
def test_relevancy_core_matches_a_per_sequence_reference(nu, rho):
    torch.manual_seed(0)
    core = MemoryLSTM(5, 6, "relevancy", nu=nu, rho=rho)
    x = torch.randn(3, 14, 5)
    with torch.no_grad():
        s, state = core(x)
        ref = _reference_relevancy(core, x)
    assert torch.allclose(s, ref, atol=1e-5)
    assert state.step == 14 and int(state.valid.sum()) == 3 * (nu + rho)


def test_relevancy_with_a_buffer_longer_than_the_sequence_is_full_attention():
    torch.manual_seed(1)
    rel = MemoryLSTM(4, 5, "relevancy", nu=12, rho=3)
    full = MemoryLSTM(4, 5, "full")
    full.load_state_dict(rel.state_dict())
    x = torch.randn(2, 10, 4)
    assert torch.allclose(rel(x)[0], full(x)[0], atol=1e-6)
    # once states leave the buffer the two differ
    x = torch.randn(2, 20, 4)
    assert not torch.allclose(rel(x)[0], full(x)[0], atol=1e-4)


@pytest.mark.parametrize("kind", KINDS)
def test_steps_carry_the_memory_as_a_whole_sequence_does(kind):
    torch.manual_seed(2)
    core = MemoryLSTM(3, 4, kind, nu=2, rho=2)
    x = torch.randn(2, 9, 3)
    whole, _ = core(x)
    state = core.initial_state(2)
    for t in range(9):
        s, state = core.step(x[:, t], state)
        assert torch.allclose(s, whole[:, t], atol=1e-6)


def test_gradients_reach_a_state_kept_in_the_relevant_set():
    torch.manual_seed(3)
    core = MemoryLSTM(3, 4, "relevancy", nu=2, rho=2)
    x = torch.randn(1, 12, 3, requires_grad=True)
    s, _ = core(x)
    s[0, -1].sum().backward()
    # the first input's state is admitted to the relevant set (room is free) and stays while
    # no later state outscores it: its gradient does not vanish through 11 LSTM steps alone
    assert x.grad[0, 0].abs().sum() > 0


def test_the_plain_lstm_is_torch_s_lstm_cell():
    torch.manual_seed(4)
    core = MemoryLSTM(3, 4, "lstm")
    x = torch.randn(2, 5, 3)
    h = c = torch.zeros(2, 4)
    for t in range(5):
        h, c = core.cell(x[:, t], (h, c))
    assert torch.allclose(core(x)[0][:, -1], h)


def test_bad_kind_is_named():
    with pytest.raises(ValueError, match="kind"):
        MemoryLSTM(3, 4, "gru")
