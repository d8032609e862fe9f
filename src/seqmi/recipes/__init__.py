"""Training recipes: how each task's networks are trained, one module per task.

Each is a configuration of the one loop, :func:`seqmi.train.fit` (batches, loss,
optimizer, stopping); the networks it trains and the measurements made on them live in
:mod:`seqmi.models`, below the loop. A new training task goes here.

- :mod:`seqmi.recipes.ngram_lm`: the SSM and RNN language models of n-gram languages
  (Nandakumar et al., Section 5).
- :mod:`seqmi.recipes.gaussian_tokens`: sequence models of continuous tokens with Gaussian
  conditionals, trained and scored by KL (L2M Fig. 4).
- :mod:`seqmi.recipes.copy_tasks`: the Copy and Denoise tasks of Kerg et al.
- :mod:`seqmi.recipes.ppo`: the MiniGrid agents of Kerg et al., by PPO on whole episodes.
"""

from seqmi._optional import require

require("torch")  # every module here needs it: a missing torch fails naming its extra
