"""Chapter 06's calibrations, each statistical rule run on data made under its h0 and its h1."""

from __future__ import annotations

import numpy as np

from seqmi.claims import EQUIVALENCE_MARGIN, MIN_SEEDS
from seqmi.claims.calibration import Calibration
from seqmi.claims.ch06_attention_gradients._common import H1_RECALL, N_RECALL, TARGET, _decide_recall
from seqmi.claims.ch06_attention_gradients._fig3 import FIG3_EFFECT, _decide_fig3, _fig3_run
from seqmi.claims.ch06_attention_gradients._recall_seeds import DECISIVE_RECALL_SEEDS, _decide_recall_seeds
from seqmi.claims.ch06_attention_gradients._table4 import (DECISIVE_RL_SEEDS, MEMORYLESS_REWARD, PAPER_RL,
                                                           RL_ASSUMED_SD, RL_ROWS, TABLE4, _decide_rl, _decide_table4,
                                                           _room, _table4_groups)
from seqmi.claims.ch06_attention_gradients._tasks import (CHANCE, LSTM_CHANCE_CEILING, PAPER_LSTM_CHANCE,
                                                          PAPER_LSTM_SOLVED, _decide_lstm_column)
from seqmi.experiments.ch06_records import FRESH_BATCH, RL_PAIRS, fig3_contrasts, gradient_decays, rl_rewards
from seqmi.results.ch06_attention_gradients import Fig4Sweep, RelLSTMSweep, Results


def _recall_calibration(claim_id: str, symbols: int, scale: str) -> Calibration:
    """:func:`_decide_recall` on ``symbols`` independent symbols recalled at the boundary and at :data:`H1_RECALL`."""

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        p = TARGET if hypothesis == "h0" else H1_RECALL
        return _decide_recall(rng.binomial(symbols, p) / symbols, symbols)[0]

    return Calibration(claim_id, scale, f"each of the {symbols:,} symbols recalled with probability {TARGET:.0%}",
                       f"each recalled with probability {H1_RECALL:.1%}", verdict)


def _lstm_calibration(lengths: list[int], symbols: int) -> Calibration:
    """:func:`_decide_lstm_column` at the recorded lengths, the first chance length at its ceiling under h0."""
    at_chance = [t for t in lengths if t >= min(PAPER_LSTM_CHANCE)]
    h1 = {t: CHANCE if t >= min(PAPER_LSTM_CHANCE) else H1_RECALL for t in lengths}
    h0 = {**h1, **({at_chance[0]: LSTM_CHANCE_CEILING} if at_chance else {})}

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        rates = h0 if hypothesis == "h0" else h1
        return _decide_lstm_column({t: rng.binomial(symbols, p) / symbols for t, p in rates.items()}, symbols)

    return Calibration(
        "kerg2020.table5.lstm-baseline", f"{symbols:,} independent held-out symbols at each of T = {lengths}, as "
        "recorded, of an LSTM that learned Copy",
        f"recall {H1_RECALL:.1%} at T ≤ {max(PAPER_LSTM_SOLVED)} and {CHANCE:.1%} beyond, but exactly "
        f"{LSTM_CHANCE_CEILING:.0%} at T = {at_chance[0] if at_chance else '-'} (the column's ceiling)",
        f"recall {H1_RECALL:.1%} at T ≤ {max(PAPER_LSTM_SOLVED)} and chance ({CHANCE:.1%}) from "
        f"T = {min(PAPER_LSTM_CHANCE)} on", verdict)


def _task_calibrations(r: Results) -> list[Calibration]:
    s, long = r.settings, r.long_run
    transfer = s.transfer_batch * N_RECALL
    out = [_recall_calibration("kerg2020.table5.copy-long-transfer", transfer,
                               f"{transfer:,} held-out symbols at T = {long.length} "
                               f"({s.transfer_batch} sequences, as recorded) of one trained RelRNN")]
    lengths = sorted(int(t) for t in (r.transfer.get("lstm") or r.transfer["relrnn"]))
    out.append(_lstm_calibration(lengths, transfer))
    long_run = r.denoise_long
    if long_run is None:
        symbols = s.eval_batch * N_RECALL * (1 if s.task_replicates is None else s.task_replicates)
        where = "the grid's RelRNN runs pooled, as recorded"
    else:
        sequences = long_run.fresh.sequences if long_run.fresh is not None else FRESH_BATCH
        symbols = sequences * N_RECALL
        where = (f"a fresh batch of {sequences} sequences" + ("" if long_run.fresh is not None else
                                                              ", the one the chapter now records"))
    out.append(_recall_calibration("kerg2020.table5.denoise", symbols, f"{symbols:,} held-out symbols ({where})"))
    return out


def _fig3_calibration(r: Results) -> list[Calibration]:
    """:func:`_decide_fig3` on normal contrasts with the recorded spreads, every model past the plateau."""
    contrasts = fig3_contrasts(gradient_decays(r.gradient_profiles, _fig3_run(r).length))
    n = len(contrasts["rho3_margin"])
    if n < 2:
        return []  # one seed measures no spread to simulate with
    sd_margin, sd_gap = (float(contrasts[k].std(ddof=1)) for k in ("rho3_margin", "range_gap"))

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        # h0 at its boundary: the margin's mean 0 while the gap, far above 0, cannot save the verdict
        margin, gap = (0.0, 10 * sd_gap) if hypothesis == "h0" else (FIG3_EFFECT, FIG3_EFFECT)
        return _decide_fig3(rng.normal(margin, sd_margin, n), rng.normal(gap, sd_gap, n))

    return [Calibration(
        "kerg2020.fig3.rho-destabilises",
        f"{n} seeds per setting (as recorded), every model past the plateau; each seed's two contrasts normal and "
        f"independent, sd {sd_margin:.2f} and {sd_gap:.2f} decades (over all recorded seeds)",
        f"ρ = 3's margin of mean 0 (no more decay than the largest other ρ), the range gap at {10 * sd_gap:.1f} "
        "decades", f"both contrasts at +{FIG3_EFFECT} decades", verdict)]


def _table4_calibrations(r: Results) -> list[Calibration]:
    """:func:`_decide_table4` on normal rewards with the recorded spreads, at the recorded seeds per kind."""
    mg = r.minigrid
    out = []
    for cid, _, where, paired, effect in TABLE4:
        env = mg.train_env if where == "train" else mg.test_envs[-1]
        groups = _table4_groups(mg, env, paired)
        n = min(len(g) for g in groups)
        if n < 2:
            continue  # one seed measures no spread to simulate with
        sds = [float(g.std(ddof=1)) for g in groups]
        # the baseline at its recorded mean; RelLSTM at the boundary (h0) or the paper's effect above it (h1)
        floor = float(groups[1].mean()) if paired else MEMORYLESS_REWARD

        def verdict(hypothesis: str, rng: np.random.Generator, floor: float = floor, sds: list[float] = sds,
                    n: int = n, effect: float = effect, paired: bool = paired) -> str:
            rel = rng.normal(floor + (effect if hypothesis == "h1" else 0.0), sds[0], n)
            groups = (rel, rng.normal(floor, sds[1], n)) if paired else (rel,)
            return _decide_table4(groups, 0.0 if paired else MEMORYLESS_REWARD)[0]

        against = "the baseline's" if paired else "the memoryless reward"
        out.append(Calibration(
            cid, f"{n} seeds per kind on {env} (as recorded), rewards normal with the recorded sd "
                 f"{', '.join(f'{x:.3f}' for x in sds)}",
            f"RelLSTM's mean reward equal to {against} ({floor:.2f})",
            f"RelLSTM's mean reward {effect:+.2f} above {against} (the paper's)", verdict))
    return out


def _rl_calibrations(r: Results) -> list[Calibration]:
    """:func:`_decide_rl` on normal rewards: the recorded seeds and spreads, or the decisive design's.

    MemLSTM at its recorded mean reward (the paper's where none is recorded); RelLSTM at the
    boundary of h0 (equal, or ``1 - margin`` times MemLSTM's) or at h1 (the paper's effect
    above, or equal). A recording with fewer than two seeds measures no spread: the rule is
    calibrated at the decisive run's seeds and the assumed spread instead.
    """
    rl = r.rl_transfer
    out = []
    for cid, pair, where, test in RL_ROWS:
        train_env, test_env = RL_PAIRS[pair]
        env = train_env if where == "train" else test_env
        paper = PAPER_RL[pair][where]
        ran = (rl is not None and pair in rl.pairs and {"full", "relevancy"} <= set(rl.kinds)
               and rl.replicates >= 2)
        if ran:
            rel, base = (rl_rewards(rl, pair, k, env) for k in ("relevancy", "full"))
            # a spread of 0 (every seed alike) would make any interval a point: floor it at 0.01
            n, level, sds = len(rel), float(base.mean()), [max(float(g.std(ddof=1)), 0.01) for g in (rel, base)]
            scale = (f"{n} seeds per kind on {_room(env)} (as recorded), rewards normal with the recorded sd "
                     f"{', '.join(f'{x:.3f}' for x in sds)}")
        else:
            n, level, sds = DECISIVE_RL_SEEDS, paper["full"], [RL_ASSUMED_SD, RL_ASSUMED_SD]
            scale = (f"{n} seeds per kind on {_room(env)} (the decisive design; no spread recorded), rewards normal "
                     f"with the assumed sd {RL_ASSUMED_SD}")
        effect = paper["relevancy"] - paper["full"]
        h0_shift = -EQUIVALENCE_MARGIN * level if test == "match" else 0.0
        h1_shift = 0.0 if test == "match" else effect

        def verdict(hypothesis: str, rng: np.random.Generator, level: float = level, sds: list[float] = sds,
                    n: int = n, shift: tuple[float, float] = (h0_shift, h1_shift), test: str = test) -> str:
            rel = rng.normal(level + shift[hypothesis == "h1"], sds[0], n)
            return _decide_rl(test, rel, rng.normal(level, sds[1], n))[0]

        h0 = (f"RelLSTM's mean reward {EQUIVALENCE_MARGIN:.0%} below MemLSTM's ({level:.2f})" if test == "match" else
              f"RelLSTM's mean reward equal to MemLSTM's ({level:.2f})")
        h1 = (f"RelLSTM's mean reward equal to MemLSTM's ({level:.2f})" if test == "match" else
              f"RelLSTM's mean reward {effect:+.2f} above MemLSTM's ({level:.2f}; the paper's difference)")
        out.append(Calibration(cid, scale, h0, h1, verdict))
    return out


def _recall_seeds_calibration(claim_id: str, symbols: int, n: int, scale: str) -> Calibration:
    """:func:`_decide_recall_seeds` on ``n`` seeds of ``symbols`` independent symbols each."""

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        rates = [TARGET if hypothesis == "h0" and i == 0 else H1_RECALL for i in range(n)]
        return _decide_recall_seeds([rng.binomial(symbols, p) / symbols for p in rates], symbols)[0]

    return Calibration(claim_id, scale, f"one seed recalls each symbol with probability {TARGET:.0%} (the boundary), "
                                        f"the others {H1_RECALL:.1%}",
                       f"every seed recalls each symbol with probability {H1_RECALL:.1%}", verdict)


def _recall_seeds_calibrations(r: Results) -> list[Calibration]:
    """The RelLSTM and Fig. 4 rules at the recorded seeds and symbols, or at the decisive design's.

    One per rule whose claim :func:`rules` lists: a whole run's, or its section's.
    """
    out = []
    for cid, run in (("kerg2020.table5.rellstm-transfer", r.rellstm_copy),
                     ("kerg2020.fig4.denoise-long", r.denoise_fig4)):
        if r.settings is None and run is None:
            continue
        # the RelLSTM rule reads the seeds that learned Copy where they trained
        counted = (None if run is None else run.replicates if isinstance(run, Fig4Sweep) else
                   sum(x.steps_to_99 is not None for x in run.runs.values()))
        if run is None or counted < MIN_SEEDS:
            n, symbols = DECISIVE_RECALL_SEEDS, FRESH_BATCH * N_RECALL
            where = f"the decisive design: no recording of {MIN_SEEDS} seeds"
        else:
            first = run.runs[str(run.first_seed)]
            n = counted
            symbols = (run.test_batch if isinstance(run, RelLSTMSweep) else first.fresh.sequences) * N_RECALL
            where = "as recorded"
        out.append(_recall_seeds_calibration(cid, symbols, n, f"{n} seeds of {symbols:,} independent held-out "
                                                              f"symbols each ({where})"))
    return out


def calibrations(results: Results) -> list[Calibration]:
    """The chapter's statistical rules, each run on data made under its h0 and its h1.

    One :class:`~seqmi.claims.calibration.Calibration` per statistical claim whose numbers
    ``results`` holds, at their recorded scale: the recall rules over the recorded numbers
    of held-out symbols (Denoise over the fresh batch it is decided on), Fig. 3 and Table 4
    over the recorded seeds with the recorded spreads. A claim with no numbers here, or
    with one seed (no spread to simulate with), has none; except the transfer, RelLSTM and
    Fig. 4 rows, calibrated at their decisive design where nothing of theirs is recorded.
    """
    out = _task_calibrations(results) if results.copy_run is not None else []
    if results.gradient_profiles is not None:
        out += _fig3_calibration(results)
    if results.minigrid is not None:
        out += _table4_calibrations(results)
    if results.settings is not None or results.rl_transfer is not None:
        out += _rl_calibrations(results)
    return out + _recall_seeds_calibrations(results)
