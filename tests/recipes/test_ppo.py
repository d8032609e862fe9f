"""PPO on MiniGrid: episodes, advantages, the surrogate's ratio, determinism, input checks."""

import numpy as np
import pytest
import torch

from seqmi.models.agent import ACTIONS, CELL_CODES, Agent, encode_views
from seqmi.recipes.ppo import PPOConfig, evaluate_agent, gae, make_env, ppo_loss, run_episodes, train_ppo

ENV = "MiniGrid-MemoryS7-v0"


@pytest.fixture(autouse=True)
def one_thread(cpu_threads):
    """The agents are tiny: one thread (as the chapters use) avoids the pool's overhead, which
    dominates on a busy machine."""
    with cpu_threads(1):
        yield


def test_views_are_one_hot_per_code():
    env = make_env(ENV)
    view = env.reset(seed=0)[0]["image"]
    x = encode_views(view[None])
    assert x.shape == (1, 7 * 7 * sum(CELL_CODES))
    cells = x.reshape(7, 7, -1)
    assert torch.all(cells.sum(-1) == 3)  # one object, one colour, one state per cell


def test_unknown_environment_is_named():
    with pytest.raises(ValueError, match="MiniGrid-MemoryS99-v0"):
        make_env("MiniGrid-MemoryS99-v0")


def test_gae_by_hand():
    # two episodes: lengths 3 and 1 (padded to 3), reward only at the end
    rewards = torch.tensor([[0.0, 0.0, 1.0], [0.5, 0.0, 0.0]])
    values = torch.tensor([[0.1, 0.2, 0.3], [0.4, 9.0, 9.0]])
    mask = torch.tensor([[True, True, True], [True, False, False]])
    g, lam = 0.9, 0.5
    adv, targets = gae(rewards, values, mask, g, lam)
    d2 = 1.0 - 0.3
    d1 = 0.0 + g * 0.3 - 0.2
    d0 = 0.0 + g * 0.2 - 0.1
    a1 = d1 + g * lam * d2
    expected = torch.tensor([[d0 + g * lam * a1, a1, d2], [0.5 - 0.4, 0.0, 0.0]])
    assert torch.allclose(adv, expected, atol=1e-6)
    assert torch.allclose(targets, (expected + values) * mask, atol=1e-6)


def _episodes(kind="relevancy", n=4, seed=0):
    torch.manual_seed(seed)
    agent = Agent(kind, hidden=8, nu=2, rho=2)
    ep = run_episodes(agent, ENV, list(range(n)), torch.Generator().manual_seed(seed))
    return agent, ep


def test_episodes_are_padded_and_consistent():
    _, ep = _episodes()
    B, T = ep.actions.shape
    assert B == 4 and T == ep.lengths.max() and torch.equal(ep.mask.sum(1), torch.as_tensor(ep.lengths))
    assert torch.all(ep.views[~ep.mask] == 0) and set(ep.actions.unique().tolist()) <= set(range(len(ACTIONS)))
    # the Memory environments pay only at a successful end, at most 1
    assert np.all((ep.returns > 0) == ep.success) and np.all(ep.returns <= 1)
    assert np.allclose(ep.rewards.sum(1).numpy(), ep.returns)


def test_episodes_are_reproducible():
    _, a = _episodes()
    _, b = _episodes()
    assert torch.equal(a.actions, b.actions) and np.array_equal(a.lengths, b.lengths)


@pytest.mark.parametrize("kind", ["lstm", "full", "relevancy"])
def test_the_update_re_runs_the_acting_policy_exactly(kind):
    # re-run from each episode's first step, the agent gives the rollout's probabilities: the ratio is 1
    agent, ep = _episodes(kind)
    ep.advantages, ep.targets = gae(ep.rewards, ep.values, ep.mask, 0.99, 0.95)
    logits, values = agent(ep.views)
    logp = torch.log_softmax(logits, -1).gather(2, ep.actions[..., None])[..., 0]
    assert torch.allclose(logp[ep.mask], ep.log_probs[ep.mask], atol=1e-5)
    assert torch.allclose(values[ep.mask], ep.values[ep.mask], atol=1e-5)
    loss, steps = ppo_loss(agent, ep, PPOConfig())
    assert steps == int(ep.lengths.sum()) and torch.isfinite(loss)
    sub = ep.rows(np.array([2, 0]))
    assert sub.actions.shape == (2, int(ep.lengths[[2, 0]].max()))


def test_training_is_reproducible_and_records_every_rollout():
    config = PPOConfig(updates=2, n_envs=3, ppo_epochs=2, minibatches=2)
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        agent = Agent("relevancy", hidden=8, nu=2, rho=2)
        runs.append((train_ppo(agent, ENV, config, seed=5, desc="test"), agent))
    (a, agent_a), (b, agent_b) = runs
    assert a.success == b.success and a.env_steps == b.env_steps and len(a.success) == 2
    assert a.env_steps[0] < a.env_steps[1] and len(a.train.step_losses) == 2 * 2 * 2
    assert all(torch.equal(p, q) for p, q in zip(agent_a.parameters(), agent_b.parameters()))
    ev = evaluate_agent(agent_a, "MiniGrid-MemoryS9-v0", episodes=5, seed=1, batch=2)
    assert ev["episodes"] == 5 and 0 <= ev["successes"] <= 5 and ev["success"] == ev["successes"] / 5


@pytest.mark.parametrize("field, value", [("updates", 0), ("minibatches", 9), ("lr", 0.0), ("gamma", 1.5)])
def test_bad_config_is_named(field, value):
    with pytest.raises(ValueError, match=field):
        PPOConfig(n_envs=8, **{field: value})


def test_bad_episode_requests_are_named():
    agent = Agent("lstm", hidden=4)
    with pytest.raises(ValueError, match="seeds"):
        run_episodes(agent, ENV, [], torch.Generator())
    with pytest.raises(ValueError, match="batch"):
        evaluate_agent(agent, ENV, episodes=2, seed=0, batch=0)
