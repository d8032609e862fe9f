"""Training the recurrent MiniGrid agents by PPO (Kerg et al. 2020 supplement, App. B, Table 4).

The agent (:class:`~seqmi.models.agent.Agent`) is a network of :mod:`seqmi.models`.
Training is proximal policy optimisation (Schulman et al. 2017) on whole episodes, written
here on torch rather than taken from an RL library: the relevancy-screening core carries a
memory of past states that must be rebuilt from an episode's first step to recompute its
probabilities, which the recurrent PPO of common libraries (hidden state stored per chunk,
truncated backpropagation) does not do. Each update

1. runs one episode in each of ``n_envs`` environments, all started together and stepped
   in lockstep until the last one ends (:func:`run_episodes`);
2. computes advantages by GAE (:func:`gae`), an episode's end (success, failure or the
   environment's time limit) bootstrapping nothing;
3. takes ``ppo_epochs`` passes of the clipped surrogate loss over the episodes, each
   re-run from its first step (:func:`ppo_loss`).

The gradient steps are :func:`seqmi.train.fit`'s, the package's one training loop: an epoch
is one rollout and its passes, each batch the episodes of one minibatch. Episode seeds come
from the run's data-order generator, action samples from a torch generator seeded by it:
the same seed gives the same run, and a run checkpointed between rollouts
(:func:`seqmi.train.fit_checkpointed`) resumes as if it had not stopped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from seqmi._optional import require
from seqmi.device import DeviceLike, resolve_device
from seqmi.models.agent import ACTIONS, Agent, encode_views
from seqmi.sweep import Budget
from seqmi.train import Batches, Member, Task, TrainConfig, TrainResult, fit_checkpointed, member_result
from seqmi.validate import check_float, check_int


def make_env(env_id: str) -> Any:
    """A MiniGrid environment by its gymnasium id, e.g. ``"MiniGrid-MemoryS7-v0"``.

    Raises
    ------
    ValueError
        If ``env_id`` is not a registered MiniGrid environment.
    """
    gym = require("gymnasium")
    require("minigrid")  # registers the MiniGrid environments

    ids = sorted(k for k in gym.registry if k.startswith("MiniGrid-"))
    if env_id not in ids:
        raise ValueError(f"env_id must be a registered MiniGrid environment such as "
                         f"'MiniGrid-MemoryS7-v0', got {env_id!r}")
    return gym.make(env_id)


@dataclass
class Episodes:
    """Episodes run together, padded to the longest (batch first).

    Attributes
    ----------
    views : Tensor, shape (B, T, D)
        Encoded views (zeros after an episode's end).
    actions : Tensor of int64, shape (B, T)
        Indices into :data:`seqmi.models.agent.ACTIONS`.
    log_probs, values, rewards : Tensor, shape (B, T)
        Of the acting policy.
    mask : Tensor of bool, shape (B, T)
        Steps inside an episode.
    returns : ndarray, shape (B,)
        Each episode's total reward.
    success : ndarray of bool, shape (B,)
        Whether it ended with a positive reward (the Memory environments' goal reached).
    lengths : ndarray of int, shape (B,)
    advantages, targets : Tensor, shape (B, T), or None
        GAE advantages (normalised over the rollout's steps) and value targets, set by
        :func:`train_ppo` before the episodes are trained on.
    """

    views: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    mask: torch.Tensor
    returns: NDArray[np.float64]
    success: NDArray[np.bool_]
    lengths: NDArray[np.int64]
    advantages: torch.Tensor | None = None
    targets: torch.Tensor | None = None

    def rows(self, index: NDArray[np.int64]) -> "Episodes":
        """The episodes ``index`` (their tensors cut to their longest)."""
        t = int(self.lengths[index].max())
        pick = torch.as_tensor(index)

        def cut(x: torch.Tensor | None) -> torch.Tensor | None:
            return None if x is None else x[pick, :t]

        return Episodes(cut(self.views), cut(self.actions), cut(self.log_probs), cut(self.values),
                        cut(self.rewards), cut(self.mask), self.returns[index], self.success[index],
                        self.lengths[index], cut(self.advantages), cut(self.targets))


@torch.no_grad()
def run_episodes(agent: Agent, env_id: str, seeds: list[int], generator: torch.Generator,
                 device: DeviceLike = "cpu") -> Episodes:
    """Run one episode per seed with ``agent`` sampling its actions, all started together.

    Parameters
    ----------
    agent : Agent
    env_id : str
        A MiniGrid environment (:func:`make_env`).
    seeds : list of int
        Each episode's ``reset`` seed (its layout).
    generator : torch.Generator
        Draws the actions.
    device : str or torch.device

    Returns
    -------
    Episodes
    """
    if not seeds:
        raise ValueError(f"seeds must name at least one episode, got {seeds!r}")
    device = resolve_device(device)
    envs = [make_env(env_id) for _ in seeds]
    views = np.stack([env.reset(seed=int(s))[0]["image"] for env, s in zip(envs, seeds)])
    n = len(envs)
    alive = np.ones(n, dtype=bool)
    state = agent.core.initial_state(n, device)
    rec: dict[str, list[torch.Tensor]] = {k: [] for k in ("views", "actions", "log_probs", "values", "rewards", "mask")}
    returns, success, lengths = np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
    while alive.any():
        x = encode_views(views).to(device) * torch.as_tensor(alive, device=device)[:, None]
        logits, value, state = agent.step(x, state)
        probs = torch.softmax(logits, -1).cpu()
        action = torch.multinomial(probs, 1, generator=generator)[:, 0]
        reward = np.zeros(n, dtype=np.float32)
        ended = np.zeros(n, dtype=bool)
        for i in np.flatnonzero(alive):
            obs, r, terminated, truncated, _ = envs[i].step(ACTIONS[int(action[i])])
            views[i] = obs["image"]
            reward[i] = r
            lengths[i] += 1
            ended[i] = terminated or truncated
        rec["views"].append(x.cpu())
        rec["actions"].append(action)
        rec["log_probs"].append(torch.log(probs.gather(1, action[:, None])[:, 0]))
        rec["values"].append(value.cpu())
        rec["rewards"].append(torch.from_numpy(reward))
        rec["mask"].append(torch.as_tensor(alive.copy()))
        returns += reward
        success |= ended & (reward > 0)
        alive &= ~ended
    for env in envs:
        env.close()
    return Episodes(**{k: torch.stack(v, 1) for k, v in rec.items()}, returns=returns, success=success,
                    lengths=lengths)


def gae(rewards: torch.Tensor, values: torch.Tensor, mask: torch.Tensor, gamma: float,
        lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimates and value targets of padded episodes ``(B, T)``.

    An episode's last step bootstraps nothing (its end is terminal: the goal, a failure or
    the time limit, which the Memory environments' reward already counts down to);
    padded steps get zeros.
    """
    B, T = rewards.shape
    adv = torch.zeros(B, T)
    running = torch.zeros(B)
    m = mask.float()
    for t in reversed(range(T)):
        nxt = values[:, t + 1] * m[:, t + 1] if t + 1 < T else torch.zeros(B)
        delta = rewards[:, t] + gamma * nxt - values[:, t]
        running = (delta + gamma * lam * running * (m[:, t + 1] if t + 1 < T else 0.0)) * m[:, t]
        adv[:, t] = running
    return adv, (adv + values) * m


@dataclass(frozen=True)
class PPOConfig:
    """Hyper-parameters of :func:`train_ppo` (defaults: the common MiniGrid PPO recipe).

    Attributes
    ----------
    updates : int
        Rollouts, each followed by ``ppo_epochs`` passes over it.
    n_envs : int
        Episodes per rollout.
    ppo_epochs, minibatches : int
        Passes over a rollout, and the minibatches (of episodes) each pass is cut into.
    lr : float
        Adam learning rate.
    gamma, lam : float
        Discount and GAE parameter.
    clip_ratio : float
        The surrogate's clipping of the probability ratio.
    entropy_coef, value_coef : float
        Weights of the entropy bonus and of the value loss.
    max_grad_norm : float
    """

    updates: int = 100
    n_envs: int = 16
    ppo_epochs: int = 4
    minibatches: int = 1
    lr: float = 1e-3
    gamma: float = 0.99
    lam: float = 0.95
    clip_ratio: float = 0.2
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5

    def __post_init__(self) -> None:
        check_int("updates", self.updates, 1)
        check_int("n_envs", self.n_envs, 1)
        check_int("ppo_epochs", self.ppo_epochs, 1)
        check_int("minibatches", self.minibatches, 1, self.n_envs)
        check_float("lr", self.lr, 0.0, low_open=True)
        check_float("gamma", self.gamma, 0.0, 1.0)
        check_float("lam", self.lam, 0.0, 1.0)
        check_float("clip_ratio", self.clip_ratio, 0.0, low_open=True)
        check_float("entropy_coef", self.entropy_coef, 0.0)
        check_float("value_coef", self.value_coef, 0.0)
        check_float("max_grad_norm", self.max_grad_norm, 0.0, low_open=True)


def ppo_loss(agent: Agent, batch: Episodes, config: PPOConfig) -> tuple[torch.Tensor, int]:
    """Clipped surrogate, value and entropy loss of ``batch`` (advantages set), re-run from each episode's start.

    Returns the loss (a mean over the episodes' steps) and the number of steps.
    """
    logits, values = agent(batch.views)
    logp_all = torch.log_softmax(logits, -1)
    logp = logp_all.gather(2, batch.actions[..., None])[..., 0]
    m = batch.mask.float()
    steps = m.sum()
    adv = batch.advantages
    ratio = torch.exp(logp - batch.log_probs)
    surrogate = torch.minimum(ratio * adv, ratio.clamp(1 - config.clip_ratio, 1 + config.clip_ratio) * adv)
    entropy = -(logp_all.exp() * logp_all).sum(-1)
    value_loss = (values - batch.targets) ** 2
    loss = (-(surrogate * m).sum() - config.entropy_coef * (entropy * m).sum()
            + config.value_coef * (value_loss * m).sum()) / steps
    return loss, int(steps)


@dataclass
class PPOResult:
    """A PPO run: the fit's :class:`~seqmi.train.TrainResult` and every rollout's numbers.

    Attributes
    ----------
    train : TrainResult
        ``eval_metric``: each rollout's success rate; ``busy_s``: the run's compute.
    success, returns, lengths : list of float
        Per rollout: the success rate, mean return and mean episode length.
    env_steps : list of int
        Environment steps taken by the end of each rollout.
    """

    train: TrainResult | None = None
    success: list[float] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    lengths: list[float] = field(default_factory=list)
    env_steps: list[int] = field(default_factory=list)


def train_ppo(agent: Agent, env_id: str, config: PPOConfig, seed: int, device: DeviceLike = "cpu",
              desc: str = "", checkpoint_dir: str | os.PathLike | None = None,
              budget: Budget | None = None) -> PPOResult:
    """Train ``agent`` in place by PPO on ``env_id`` for ``config.updates`` rollouts.

    Parameters
    ----------
    agent : Agent
    env_id : str
        A MiniGrid environment (:func:`make_env`, checked before training starts).
    config : PPOConfig
    seed : int
        Seeds torch, the episodes' layouts and the action samples.
    device : str or torch.device
    desc : str
        The progress bar's label.
    checkpoint_dir : path, optional
        The run is checkpointed there between rollouts (every minute, and at the end) and
        resumed from it: an interrupted run ends as one that ran through, bit for bit on CPU.
    budget : seqmi.sweep.Budget, optional
        Stops training after a rollout, checkpoint saved, with
        :class:`~seqmi.sweep.OutOfTime` once it leaves no time for training.

    Returns
    -------
    PPOResult
    """
    make_env(env_id).close()
    device = resolve_device(device)
    torch.manual_seed(seed)
    agent.to(device)
    per_rollout = config.ppo_epochs * config.minibatches
    # one rollout per epoch, its success rate the epoch's evaluation
    train_config = TrainConfig(optimizer="adam", lr=config.lr, clip=config.max_grad_norm, batch_size=config.n_envs,
                               max_epochs=config.updates, patience=None, restarts=1, seed=seed)
    result = PPOResult()

    def epoch(rng: np.random.Generator, step: int) -> Iterator[Episodes]:
        generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
        agent.eval()
        ep = run_episodes(agent, env_id, rng.integers(2**31, size=config.n_envs).tolist(), generator, device)
        agent.train()
        ep.advantages, ep.targets = gae(ep.rewards, ep.values, ep.mask, config.gamma, config.lam)
        valid = ep.advantages[ep.mask]
        ep.advantages = (ep.advantages - valid.mean()) / (valid.std() + 1e-8) * ep.mask
        result.success.append(float(ep.success.mean()))
        result.returns.append(float(ep.returns.mean()))
        result.lengths.append(float(ep.lengths.mean()))
        result.env_steps.append((result.env_steps[-1] if result.env_steps else 0) + int(ep.lengths.sum()))
        for _ in range(config.ppo_epochs):
            for part in np.array_split(rng.permutation(config.n_envs), config.minibatches):
                yield _to(ep.rows(part), device)

    # a rollout is drawn by the policy being trained: checkpoints between rollouts only
    task = Task(Batches(per_rollout, epoch, replayable=False), lambda m, b: ppo_loss(m, b, config),
                lambda m: result.success[-1], metric="success", mode="max", keep_best=False)
    member = Member(agent, train_config, np.random.default_rng(seed), task)
    start = time.perf_counter()
    fit_checkpointed([member], task, checkpoint_dir, budget=budget, device=device, desc=desc,
                     extra={"success": result.success, "returns": result.returns, "lengths": result.lengths,
                            "env_steps": result.env_steps})
    agent.eval()
    result.train = member_result(member, device=device, wall_s=time.perf_counter() - start,
                                 final_metric=result.success[-1])
    return result


def _to(ep: Episodes, device: torch.device) -> Episodes:
    """``ep`` with its tensors on ``device``."""
    moved = {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in vars(ep).items()}
    return Episodes(**moved)


def evaluate_agent(agent: Agent, env_id: str, episodes: int, seed: int, device: DeviceLike = "cpu",
                   batch: int = 100) -> dict[str, Any]:
    """Success rate and mean return of ``agent``'s policy (actions sampled) on fresh episodes.

    Parameters
    ----------
    agent : Agent
    env_id : str
    episodes : int
        Episodes run, ``batch`` at a time.
    seed : int
        Their layouts and action samples.
    device : str or torch.device
    batch : int

    Returns
    -------
    dict
        ``episodes``, ``successes`` (count), ``success`` (rate), ``mean_return``,
        ``mean_length``.
    """
    check_int("episodes", episodes, 1)
    check_int("batch", batch, 1)
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    agent.eval()
    runs = [run_episodes(agent, env_id, rng.integers(2**31, size=min(batch, episodes - i)).tolist(), generator, device)
            for i in range(0, episodes, batch)]
    success = np.concatenate([r.success for r in runs])
    return {"episodes": episodes, "successes": int(success.sum()), "success": float(success.mean()),
            "mean_return": float(np.concatenate([r.returns for r in runs]).mean()),
            "mean_length": float(np.concatenate([r.lengths for r in runs]).mean())}
