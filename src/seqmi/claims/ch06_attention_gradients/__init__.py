"""Claims of chapter 06: gradient propagation through attention (Kerg et al. 2020).

The supplement's derivations are exact checks. Task accuracies are proportions of held-out
recalled symbols, decided from their Wilson intervals on a batch that no stopping rule saw:
a Copy or Denoise run stops once its own held-out batch reaches 99%, so that batch chose the
reported update and cannot test it (:func:`seqmi.recipes.copy_tasks.fresh_recall`). A claim
whose training budget is far below what the chapter measured RelRNN to need is
inconclusive, with that need as its scale. Fig. 3
(:func:`~seqmi.experiments.ch06_records.gradient_decay`,
:func:`~seqmi.experiments.ch06_records.fig3_contrasts`) and Table 4 are decided by
Student-t intervals over seeds, Fig. 3 only over models past the Denoise plateau; a
decisive run's seeds are fresh ones, as many as a pilot's spread asks for
(:func:`seqmi.stats.power.seeds_to_decide`), and its rules name them
(:func:`~seqmi.experiments.ch06_records.seed_range`). Table 4's DoorKey and RedBlueDoors
rows compare RelLSTM with MemLSTM over seeds, by two one-sided tests at the book's margin
where the paper reports equal rewards; Table 5's RelLSTM column and Fig. 4 at a longer
delay are recall claims over seeds, every seed's Wilson interval above 99%.

Every statistical claim carries its :class:`~seqmi.claims.Design`, and
:func:`calibrations` runs the decision function of each on data made under its h0 and its
h1 at the recorded scale (:mod:`seqmi.claims.calibration`), or at its decisive design
where nothing of it is recorded yet.

Its parts live in private modules, and every public name is imported from here: the
recall target, budgets and recall decisions the groups share (``_common``), the exact
claims (``_exact``), Table 5's Copy and Denoise claims (``_tasks``), Fig. 3 (``_fig3``),
Table 4's MiniGrid rows (``_table4``), the recall claims over seeds of Table 5's RelLSTM
column and Fig. 4 (``_recall_seeds``), the calibrations (``_calibrations``) and
:func:`rules` (``_rules``).
"""

from __future__ import annotations

from seqmi.claims.ch06_attention_gradients._calibrations import calibrations
from seqmi.claims.ch06_attention_gradients._common import (H1_RECALL, N_RECALL, NEAR_RECALL, PAPER_UPDATES, TARGET,
                                                           TARGET_POWER, TRANSFER)
from seqmi.claims.ch06_attention_gradients._fig3 import FIG3_EFFECT, PLATEAU_EXIT, PROFILE_SECONDS_PER_UPDATE
from seqmi.claims.ch06_attention_gradients._recall_seeds import (DECISIVE_RECALL_SEEDS, FIG4_UPDATE_S, RELLSTM_TEST_S,
                                                                 RELLSTM_UPDATE_S)
from seqmi.claims.ch06_attention_gradients._rules import rules
from seqmi.claims.ch06_attention_gradients._table4 import (DECISIVE_MINIGRID_SEEDS, DECISIVE_RL_SEEDS,
                                                           MEMORYLESS_REWARD, PAPER_ENV_STEPS, PAPER_MEMORY, PAPER_RL,
                                                           RL_ASSUMED_SD, RL_REFERENCE, RL_ROWS, RL_SUBSTITUTION,
                                                           RL_UNIT, TABLE4)
from seqmi.claims.ch06_attention_gradients._tasks import (CHANCE, LSTM_CHANCE_CEILING, PAPER_LSTM_CHANCE,
                                                          PAPER_LSTM_SOLVED)
from seqmi.experiments.ch06_records import FRESH_BATCH

# what the API reference documents here, in this order (autodoc follows __all__)
__all__ = [
    "TARGET", "N_RECALL", "H1_RECALL", "NEAR_RECALL", "TRANSFER", "PAPER_UPDATES", "PAPER_LSTM_SOLVED",
    "PAPER_LSTM_CHANCE", "LSTM_CHANCE_CEILING", "CHANCE", "PAPER_ENV_STEPS", "MEMORYLESS_REWARD", "PAPER_MEMORY",
    "DECISIVE_MINIGRID_SEEDS", "PLATEAU_EXIT", "FIG3_EFFECT", "PROFILE_SECONDS_PER_UPDATE", "TARGET_POWER",
    "TABLE4", "PAPER_RL", "RL_ROWS", "DECISIVE_RL_SEEDS", "RL_ASSUMED_SD", "RL_REFERENCE", "RL_UNIT",
    "RL_SUBSTITUTION", "DECISIVE_RECALL_SEEDS", "RELLSTM_UPDATE_S", "RELLSTM_TEST_S", "FIG4_UPDATE_S",
    "FRESH_BATCH", "rules", "calibrations",
]
