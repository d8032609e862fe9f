"""seqmi: mutual information scaling and the expressive power of sequence models.

The shared package of the executable book. Every module, by what it holds:

Measuring information
    - :mod:`seqmi.info`: entropy and mutual-information estimators (plug-in, psi,
      Grassberger), the two-point MI ``I(tau)``, exact Gaussian MI.
    - :mod:`seqmi.pair_counts`: exact counts of lagged symbol pairs (histogram, compiled
      loop, FFT), the input of every two-point estimate.
    - :mod:`seqmi.bipartite`: bipartite MI of text from a language model's likelihoods
      (direct, 2-gram corrected, vCLUB), compression estimates, sampling from LMs.
    - :mod:`seqmi.fit`: correlation lengths (Shen's eq. 9) and power-law exponents with
      confidence intervals.
    - :mod:`seqmi.stats`: the statistics the chapters and the rules share, a module a
      kind: :mod:`seqmi.stats.intervals` (Student-t, Welch, bootstrap, Wilson, ratios,
      the jackknife), :mod:`seqmi.stats.power` (the sample sizes that would resolve an
      effect, and powers), :mod:`seqmi.stats.equivalence` (TOST, tolerance intervals),
      :mod:`seqmi.stats.growth` and :mod:`seqmi.stats.decay` (how a curve grows or
      decays), :mod:`seqmi.stats.rank` (Spearman's ρ). A new estimator goes to
      :mod:`seqmi.info` (or :mod:`seqmi.bipartite`), a new interval or sample size here.

Data with known statistics (:mod:`seqmi.data`)
    - :mod:`seqmi.data.markov`: binary Markov chains.
    - :mod:`seqmi.data.binary`: Shen's binary sequences with designed power-law MI.
    - :mod:`seqmi.data.subvolume`, :mod:`seqmi.data.subvolume_prefix`,
      :mod:`seqmi.data.subvolume_cca`: the sub-volume Gaussian families of L2M, their exact
      bipartite MI and the canonical correlations of their halves;
      :mod:`seqmi.data.subvolume_mixing`: their mixing matrix (eq. B.19).
    - :mod:`seqmi.data.ngram`: n-gram languages (Nandakumar et al.).
    - :mod:`seqmi.data.text`: the King James Bible corpus, vocabularies, splits.
    - :mod:`seqmi.data.copy_tasks`: Copy and Denoise tasks (Kerg et al.).

Exact results to check against (:mod:`seqmi.theory`)
    - :mod:`seqmi.theory.markov`, :mod:`seqmi.theory.ising`: closed-form MI of chains.
    - :mod:`seqmi.theory.linear_rnn`: linear Gaussian RNNs, numerically (covariances,
      MI, sampling); :mod:`seqmi.theory.linear_rnn_symbolic`: their exact generating
      functions and poles (Shen's App. A proof).
    - :mod:`seqmi.theory.attention_grad`, :mod:`seqmi.theory.sparse_patterns`: gradient
      propagation through attention (Kerg et al.).
    - :mod:`seqmi.theory.ngram_ssm`: the constructive n-gram SSM (Nandakumar et al.).
    - :mod:`seqmi.theory.memorisation`: SSMs trained to memorise Proposition A.8's
      alternating set, below and above its bound.
    - :mod:`seqmi.l2m`: the L2M condition: history-state sizes and Theorem 5.2.

Models (:mod:`seqmi.models`)
    - :mod:`seqmi.models.lm`: RNN, LSTM and Transformer language models.
    - :mod:`seqmi.models.mamba`: Mamba backbone and language model.
    - :mod:`seqmi.models.gaussian_lm`: models of continuous tokens with Gaussian
      conditionals (L2M Fig. 4).
    - :mod:`seqmi.models.wordchar`: word-level models sampled as characters.
    - :mod:`seqmi.models.ngram_lm`: the SSM and RNN language models of Section 5
      (Nandakumar et al.) and their probes.
    - :mod:`seqmi.models.attentive_rnn`: self-attentive RNNs (RelRNN) and the recall,
      attention and gradient measurements made on them.
    - :mod:`seqmi.models.memory_lstm`: LSTM cores with attention over past states
      (MemLSTM, RelLSTM) that step with their memory carried.
    - :mod:`seqmi.models.agent`: the MiniGrid agent (view encoder, memory core, policy
      and value heads).

    A new network goes here; how it is trained goes to :mod:`seqmi.recipes`.

Training and sweeps
    - :mod:`seqmi.train`: the one training loop, a module a job:
      :mod:`seqmi.train.loop` (:func:`seqmi.train.loop.fit`), :mod:`seqmi.train.config`
      (configs, results, schedules), :mod:`seqmi.train.data` (batch sources, sequences,
      streams), :mod:`seqmi.train.checkpoint` (checkpoints and the one resume path),
      :mod:`seqmi.train.lm` (the language models' loss and task) and
      :mod:`seqmi.train.families` (restarts and configurations trained together);
      :mod:`seqmi.convergence`, the criterion a run counts as converged by (no torch: the
      claim rules read it too).
    - :mod:`seqmi.recipes`: one training task a module, each a configuration of that
      loop: :mod:`seqmi.recipes.ngram_lm` (Nandakumar et al.),
      :mod:`seqmi.recipes.gaussian_tokens` (L2M Fig. 4), :mod:`seqmi.recipes.copy_tasks`
      and :mod:`seqmi.recipes.ppo` (Kerg et al.: the Copy and Denoise tasks, the MiniGrid
      agents by PPO on whole episodes). A new training task goes here.
    - :mod:`seqmi.family`: which runs share one family, and the batched recurrence that
      computes all members of a vanilla-RNN family at once.
    - :mod:`seqmi.sweep`: the sweep engine (:func:`seqmi.sweep.run_sweep`): cached,
      resumable, budgeted, in-process or on Dask; :mod:`seqmi.ledger` keeps every finished
      point of a decisive run in the repository (``results/points/``), so that a run
      continues on any machine; :mod:`seqmi.campaign` queues the pre-registered decisive
      runs by claims decided per core-hour and works through them; :mod:`seqmi.passes` adds up the wall
      time of a run resumed over several passes; :mod:`seqmi.sections` finds the
      parameters a chapter's section reads, so that a section recorded on top of a run
      vouches for those only.
    - :mod:`seqmi.experiments`: each chapter's settings records (frozen, checked when
      built) and sweep points, one module per chapter (``chNN_slug``); the torch-free
      readings of chapters 04 and 06's recorded sweeps, shared with their rules
      (:mod:`seqmi.experiments.ch04_records`, :mod:`seqmi.experiments.ch06_records`).
      A new chapter's parameters get a settings record here.

Conventions
    - Installing: the core (measuring information, data, theory, fits, claims, the
      sweep engine) needs no torch; networks and training need the extra ``models``,
      distributed sweeps ``sweep``, the agents ``rl``, the corpus ``text``
      (``pip install 'seqmi[all]'``). ``seqmi._optional`` names the extra a missing
      package comes with.
    - :mod:`seqmi.device`: the device argument and the CPU-thread setting (one call for
      every pool of a running process, one environment for the processes it starts).
    - :mod:`seqmi.rng`: named child seeds.
    - :mod:`seqmi.validate`: argument checks with clear messages.
    - :mod:`seqmi.progress`: progress bars that print one line in a notebook.

The book
    - :mod:`seqmi.profiles`: the profiles a chapter runs at (quick, reference, full),
      named once.
    - :mod:`seqmi.report`: chapter results, figures and reference runs.
    - :mod:`seqmi.results`: what each chapter saves, as one typed record per chapter
      (``seqmi.results.chNN_slug.Results``, torch-free) whose JSON is its
      ``results.json``; the rules read the record, never the raw JSON.
    - :mod:`seqmi.plots`: figure panels of the chapters (MI curves, correlation
      lengths with intervals, exact MI of linear RNNs, split profiles, position-wise KL).
    - :mod:`seqmi.claims`: the papers' claims, their rules, designs and verdicts, the
      scoreboard, each statistical rule's size and power on data made under its
      hypotheses (:mod:`seqmi.claims.calibration`), and whether two runs' claims agree
      within their statistics (:mod:`seqmi.claims.agreement`).
      A new claim is a row of its chapter's rule module
      (``seqmi.claims.chNN_slug.rules``), computed from the chapter's recorded results
      with :mod:`seqmi.stats` and the experiments' readings, never from a notebook.
    - :mod:`seqmi.book`: the command line that executes and builds the book.
"""

__version__ = "0.1.0"
