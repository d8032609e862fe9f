"""Sweep points of chapter 06: the trained task models of Kerg et al. 2020 (Tables 4 and 5, Figs. 3 and 4).

Seven sweeps, each point a model trained (by
:func:`seqmi.recipes.copy_tasks.train_task_model`, or by PPO for the agents) and measured:

- :func:`grid_point`: Table 5's grid, one (task, T, model kind, replicate) per point;
- :func:`transfer_point`: one model kind trained on Copy at a short delay, then tested at
  longer ones (length transfer), RelRNN optionally fine-tuned at a long delay;
- :func:`profile_point`: RelRNN trained on Denoise with one (nu, rho) and replicate, then
  its gradient-norm profile averaged over held-out batches (Fig. 3);
- :func:`denoise_point`: RelRNN alone on Denoise from scratch with the authors' recipe and
  budget (Table 5's Denoise column);
- :func:`minigrid_point`: an LSTM, MemLSTM or RelLSTM agent trained by PPO on a MiniGrid
  memory task, then tested there and on larger ones (Table 4);
- :func:`rl_transfer_point`: an agent trained by PPO on a small DoorKey or RedBlueDoors
  room and tested on the large one (Table 4's other rows);
- :func:`rellstm_point`: RelLSTM trained on Copy at a short delay, then tested at a long
  one (Table 5's RelLSTM column). Fig. 4's Denoise run at a longer delay is a
  :func:`denoise_point` with its own settings.

Every random stream is a :func:`~seqmi.rng.child_seed` of the chapter's seed named after
what it draws. A model's initialisation is its own stream; the training batches (and the
held-out batch that :func:`~seqmi.recipes.copy_tasks.train_task_model` derives from the
same seed) are shared by the models compared at one setting, so that they differ by
their architecture and initialisation, not by their data.

The code lives in private modules by subject, and every public name is imported from
here: the settings records (``_settings``), Copy and Denoise with Table 5's grid, the
long Denoise runs and Fig. 3's profiles (``_copy_tasks``), length transfer with the
RelLSTM column (``_transfer``), and the agents of Table 4 (``_minigrid``).
"""

from __future__ import annotations

from seqmi._optional import require

require("torch")  # a missing torch fails naming its extra

from seqmi.experiments.ch06_attention_gradients import _copy_tasks
from seqmi.experiments.ch06_attention_gradients._copy_tasks import (denoise_point, grid_point, grid_points,
                                                                    held_out_profile, pool_replicates, profile_point)
from seqmi.experiments.ch06_attention_gradients._minigrid import (compact_run, interact_env, minigrid_point,
                                                                  minigrid_points, rl_transfer_point,
                                                                  rl_transfer_points)
from seqmi.experiments.ch06_attention_gradients._settings import (DenoiseSettings, ExactSettings, GridSettings,
                                                                  MiniGridSettings, ProfileSettings, RelLSTMSettings,
                                                                  RLTransferSettings, TransferSettings)
from seqmi.experiments.ch06_attention_gradients._transfer import RelLSTMCopyModel, rellstm_point, transfer_point
# the model, PPO run and room pairs the points take, also offered here (documented where defined)
from seqmi.experiments.ch06_records import RL_PAIRS
from seqmi.models.attentive_rnn import TaskModel
from seqmi.recipes.ppo import PPOConfig

# The API reference reads a constant's #: comment where this package binds it, so the
# documented constants of _copy_tasks are bound here again (the same objects).

#: The task generators, by name.
TASKS = _copy_tasks.TASKS
#: RelRNN's short-term buffer per task (the authors' defaults).
TASK_NU = _copy_tasks.TASK_NU
#: RelRNN's relevant-set size (the authors' default).
RHO = _copy_tasks.RHO
#: Input tokens (blank, 8 labels, delimiter) and output classes (blank, 8 labels) of both tasks.
N_IN, N_OUT = _copy_tasks.N_IN, _copy_tasks.N_OUT
#: The attentive kinds, whose attention on the symbol states can be read.
ATTENTIVE = _copy_tasks.ATTENTIVE
#: Recall accuracy at which a run on Copy stops (Table 5 reports 100%).
TARGET = _copy_tasks.TARGET

# what the API reference documents here, in this order (autodoc follows __all__)
__all__ = [
    "TASKS", "TASK_NU", "RHO", "N_IN", "N_OUT", "ATTENTIVE", "TARGET",
    "ExactSettings", "GridSettings", "grid_points", "grid_point", "pool_replicates",
    "TransferSettings", "transfer_point",
    "DenoiseSettings", "denoise_point",
    "ProfileSettings", "held_out_profile", "profile_point",
    "MiniGridSettings", "minigrid_points", "minigrid_point", "compact_run",
    "interact_env", "RLTransferSettings", "rl_transfer_points", "rl_transfer_point",
    "RelLSTMCopyModel", "RelLSTMSettings", "rellstm_point",
]
