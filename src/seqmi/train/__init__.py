"""The package's one training loop, its checkpoints, and the language-model recipe every chapter reuses.

:func:`seqmi.train.loop.fit` is the only place where the package takes a gradient step;
a training run is a configuration of it (a task, a config per model, the models trained
in lockstep). :func:`seqmi.train.families.train` and
:func:`seqmi.train.families.train_family` fit autoregressive models by maximum
likelihood, the restarts and configs of one architecture together as one family, each
ending with the weights it would have had alone.

- :mod:`seqmi.train.config`: :class:`~seqmi.train.config.TrainConfig` (optimizer,
  learning-rate schedule, clipping, stop rule), :class:`~seqmi.train.config.TrainResult`,
  the schedules and optimizers.
- :mod:`seqmi.train.data`: the loop's batch source (:class:`~seqmi.train.data.Batches`)
  and the language models' data, :class:`~seqmi.train.data.Sequences` (independent
  rows) and :class:`~seqmi.train.data.Stream` (one stream read with truncated BPTT).
- :mod:`seqmi.train.loop`: :class:`~seqmi.train.loop.Task`,
  :class:`~seqmi.train.loop.Member` and :func:`~seqmi.train.loop.fit`, the one loop.
- :mod:`seqmi.train.checkpoint`: what a checkpoint holds, when it is written
  (atomically), and :func:`~seqmi.train.checkpoint.resume`, the one path that resumes a
  run from it, bit for bit; :func:`~seqmi.train.checkpoint.fit_checkpointed`.
- :mod:`seqmi.train.lm`: the language models' loss, validation and task.
- :mod:`seqmi.train.families`: :func:`~seqmi.train.families.train_family`,
  :func:`~seqmi.train.families.train` and the seeds of their restarts.

Every name listed in ``__all__`` is importable from the package itself (``from
seqmi.train import fit``), as it was before the package was split into modules.
"""

from seqmi._optional import require

require("torch")  # first, so that a missing torch fails naming the extra that installs it

from seqmi.train.checkpoint import CHECKPOINT_EVERY_S, CHECKPOINT_FILE, fit_checkpointed  # noqa: E402
from seqmi.train.config import OPTIMIZERS, SCHEDULES, TrainConfig, TrainResult, lr_factor  # noqa: E402
from seqmi.train.data import Batches, Sequences, Stream  # noqa: E402
from seqmi.train.families import init_seed, order_rng, train, train_family  # noqa: E402
from seqmi.train.lm import evaluate, language_model_task, sequence_loss  # noqa: E402
from seqmi.train.loop import MODES, Member, Task, fit, member_result  # noqa: E402

__all__ = [
    "CHECKPOINT_EVERY_S", "CHECKPOINT_FILE", "MODES", "OPTIMIZERS", "SCHEDULES",
    "Batches", "Member", "Sequences", "Stream", "Task", "TrainConfig", "TrainResult",
    "evaluate", "fit", "fit_checkpointed", "init_seed", "language_model_task", "lr_factor", "member_result",
    "order_rng", "sequence_loss", "train", "train_family",
]
