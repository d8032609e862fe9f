"""Table 4's agents, trained by PPO: on MiniGrid's memory tasks, and on small rooms tested on large ones.

The memory tasks (``minigrid_point``), and DoorKey and RedBlueDoors (``rl_transfer_point``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from seqmi._optional import require
from seqmi.experiments.ch06_attention_gradients._settings import MiniGridSettings, RLTransferSettings
from seqmi.experiments.ch06_records import RL_PAIRS
from seqmi.models.agent import Agent
from seqmi.models.memory_lstm import KINDS as MEMORY_KINDS
from seqmi.recipes.ppo import evaluate_agent, make_env, train_ppo
from seqmi.rng import child_seed
from seqmi.sweep import current_budget
from seqmi.validate import check_choice, check_int, check_kinds


# ---------------------------------------------------------------- Table 4's MiniGrid agents


def minigrid_points(minigrid_kinds: Sequence[str], seeds: range) -> list[tuple[str, int]]:
    """Table 4's agents, ``(kind, seed)``, seed by seed; the kinds are memory cores, RelLSTM among them."""
    check_kinds("minigrid_kinds", minigrid_kinds, MEMORY_KINDS, "relevancy")
    return [(kind, rep) for rep in seeds for kind in minigrid_kinds]


def minigrid_point(point: tuple[str, int], checkpoint_dir: str | None, settings: MiniGridSettings) -> dict[str, Any]:
    """Train one agent by PPO on ``train_env``, then test it there and on every ``test_envs``.

    The agents of one replicate meet the same episode layouts in training (their actions,
    and so their episodes' lengths, differ), and every agent is tested on the same ones.

    Parameters
    ----------
    point : (kind, replicate)
        ``kind`` in :data:`seqmi.models.memory_lstm.KINDS`; ``replicate`` numbers
        independent runs (initialisation, layouts, action samples).
    checkpoint_dir : str or None
        The PPO run's checkpoint, between rollouts (every minute, and when the sweep's
        budget stops it): a rerun resumes from it and ends as if it had not stopped.
    settings : MiniGridSettings

    Returns
    -------
    dict
        The training curve, one value per rollout: ``success_curve``, ``return_curve``,
        ``env_steps``; ``busy_s`` (training compute); ``evaluation``: ``{env: record}`` of
        :func:`seqmi.recipes.ppo.evaluate_agent` for the training environment and each tested one;
        ``device`` (where it ran).
    """
    kind, rep = point
    torch.manual_seed(child_seed(settings.seed, "minigrid", "init", kind, rep))
    agent = Agent(kind, settings.hidden, settings.nu, settings.rho)
    run = train_ppo(agent, settings.train_env, settings.ppo, child_seed(settings.seed, "minigrid", "train", rep),
                    settings.device, desc=f"{kind} run {rep}", checkpoint_dir=checkpoint_dir,
                    budget=current_budget())
    evaluation = {env: evaluate_agent(agent, env, settings.eval_episodes,
                                      child_seed(settings.seed, "minigrid", "eval", env), settings.device)
                  for env in (settings.train_env, *settings.test_envs)}
    return {"success_curve": run.success, "return_curve": run.returns, "env_steps": run.env_steps,
            "busy_s": float(run.train.busy_s), "evaluation": evaluation, "device": run.train.device}


def compact_run(record: dict[str, Any], points: int = 120) -> dict[str, Any]:
    """A :func:`minigrid_point` record with its per-rollout curves averaged over at most ``points`` blocks.

    Each block's ``success_curve`` and ``return_curve`` are the means over its rollouts,
    its ``env_steps`` the steps taken by its last one; a run of ``points`` rollouts or
    fewer is returned as it is. The record's other fields are kept.
    """
    check_int("points", points, 1)
    n = len(record["env_steps"])
    if n <= points:
        return record
    bounds = np.linspace(0, n, points + 1).round().astype(int)
    blocks = list(zip(bounds[:-1], bounds[1:]))
    curves = {k: [float(np.mean(record[k][a:b])) for a, b in blocks] for k in ("success_curve", "return_curve")}
    return {**record, **curves, "env_steps": [int(record["env_steps"][b - 1]) for _, b in blocks]}


# ---------------------------------------------------------------- Table 4's DoorKey and RedBlueDoors agents


def _interact_env(base: str, **kwargs: Any) -> Any:
    """MiniGrid environment ``base`` whose forward action also picks up a key ahead and opens a closed door ahead.

    The agents choose among the three actions of :data:`seqmi.models.agent.ACTIONS` (turn
    left, turn right, forward); DoorKey and RedBlueDoors need pick up and toggle as well.
    Moving forward into a key or a closed door does nothing in MiniGrid, so forward takes
    their place there: with nothing carried and a key ahead it picks the key up, with a
    closed door ahead it toggles the door (a locked one opens only for the matching key,
    as MiniGrid decides). Every other step is MiniGrid's own, and each counts one step.
    """
    gym = require("gymnasium")
    env = gym.make(base, **kwargs)
    inner = env.unwrapped

    def act(action: int) -> int:
        if action != inner.actions.forward:
            return action
        ahead = inner.grid.get(*inner.front_pos)
        if ahead is not None and ahead.type == "key" and inner.carrying is None:
            return int(inner.actions.pickup)
        if ahead is not None and ahead.type == "door" and not ahead.is_open:
            return int(inner.actions.toggle)
        return action

    return gym.wrappers.TransformAction(env, act, env.action_space)


def interact_env(env_id: str) -> str:
    """The id of ``_interact_env`` of ``env_id``, registered with gymnasium on first use.

    ``"MiniGrid-DoorKey-5x5-v0"`` gives ``"MiniGrid-DoorKey-5x5-Interact-v0"``. Every
    process that makes the environment registers it (a sweep's worker calls this through
    :func:`rl_transfer_point`).

    Raises
    ------
    ValueError
        If ``env_id`` is not a registered MiniGrid environment ``MiniGrid-<name>-v0``.
    """
    make_env(env_id).close()  # checks the id, and imports minigrid
    if not env_id.endswith("-v0"):
        raise ValueError(f"env_id must be a MiniGrid environment 'MiniGrid-<name>-v0', got {env_id!r}")
    gym = require("gymnasium")
    wrapped = env_id[:-len("-v0")] + "-Interact-v0"
    if wrapped not in gym.registry:
        gym.register(wrapped, entry_point=_interact_env, kwargs={"base": env_id})
    return wrapped


def rl_transfer_points(pairs: Sequence[str], kinds: Sequence[str], seeds: range) -> list[tuple[str, str, int]]:
    """Table 4's transfer agents, ``(pair, kind, seed)``: every pair of :data:`seqmi.experiments.ch06_records.RL_PAIRS` named, seed by seed.

    The kinds are memory cores with RelLSTM (``"relevancy"``) among them.
    """
    if not isinstance(pairs, list) or not pairs:
        raise ValueError(f"rl_pairs must be a non-empty list of {list(RL_PAIRS)}, got {pairs!r}")
    for pair in pairs:
        check_choice("rl_pairs entry", pair, RL_PAIRS)
    check_kinds("rl_kinds", kinds, MEMORY_KINDS, "relevancy")
    return [(pair, kind, rep) for pair in pairs for rep in seeds for kind in kinds]


def rl_transfer_point(point: tuple[str, str, int], checkpoint_dir: str | None,
                      settings: RLTransferSettings) -> dict[str, Any]:
    """Train one agent by PPO on a pair's small room, then test it there and on the large one.

    Both rooms are played through :func:`interact_env` (forward picks up a key and opens a
    door ahead). The agents of one pair and replicate meet the same layouts in training,
    and every agent of a pair is tested on the same ones.

    Parameters
    ----------
    point : (pair, kind, replicate)
        ``pair`` in :data:`~seqmi.experiments.ch06_records.RL_PAIRS`, ``kind`` in
        :data:`seqmi.models.memory_lstm.KINDS`; ``replicate`` numbers independent runs
        (initialisation, layouts, action samples).
    checkpoint_dir : str or None
        The PPO run's checkpoint, between rollouts (every minute, and when the sweep's
        budget stops it): a rerun resumes from it and ends as if it had not stopped.
    settings : RLTransferSettings

    Returns
    -------
    dict
        As :func:`minigrid_point`'s, its curves averaged over at most 120 blocks of
        rollouts (:func:`compact_run`): ``success_curve``, ``return_curve``, ``env_steps``,
        ``busy_s``, ``evaluation`` (``{env: record}`` for the pair's two environments, by
        their MiniGrid ids), ``device``.
    """
    pair, kind, rep = point
    train_env, test_env = RL_PAIRS[check_choice("pair", pair, RL_PAIRS)]
    torch.manual_seed(child_seed(settings.seed, "rl-transfer", "init", pair, kind, rep))
    agent = Agent(kind, settings.hidden, settings.nu, settings.rho)
    run = train_ppo(agent, interact_env(train_env), settings.ppo,
                    child_seed(settings.seed, "rl-transfer", "train", pair, rep), settings.device,
                    desc=f"{pair} {kind} run {rep}", checkpoint_dir=checkpoint_dir, budget=current_budget())
    batch = settings.full_eval_batch if kind == "full" else 100
    evaluation = {env: evaluate_agent(agent, interact_env(env), settings.eval_episodes,
                                      child_seed(settings.seed, "rl-transfer", "eval", env), settings.device,
                                      batch=batch)
                  for env in (train_env, test_env)}
    return compact_run({"success_curve": run.success, "return_curve": run.returns, "env_steps": run.env_steps,
                        "busy_s": float(run.train.busy_s), "evaluation": evaluation, "device": run.train.device})
