"""Sweep points of chapter 03: trained RNNs, LSTMs and Transformers, sampled and measured (Shen 2019).

Shen's method is black-box: train a model, let it generate from its start state, and
measure the two-point mutual information ``I(tau)`` of what it writes, summarised by the
correlation length ``xi`` of an exponential fit (:func:`~seqmi.fit.decay_fits`). A sweep point here
is one seed of a *family* ``(kind, widths, depth)``: the models of one kind and depth at
several widths, trained in one :func:`seqmi.train.train_family` call (each exactly as it
would be alone), then every model sampled and measured (:func:`run_seeds`); seeds of one
family may train together, each seed's record unchanged. Three sweeps use it:

- :func:`binary_points`: binary sequences with a power-law ``I(tau)`` (Sec. 4.2.1);
- :func:`char_point`: character-level models of the KJV (Sec. 4.2.2);
- :func:`word_point`: word-level models of the KJV, measured at character level (Sec. 5.2).

A point rebuilds its data from its settings (:func:`binary_data`, :func:`char_corpus`,
:func:`word_corpus`, cached per process), so that a Dask worker receives only the point
and a small frozen settings record. Every random stream is a
:func:`~seqmi.rng.child_seed` of the chapter's seed named after what it seeds: the data,
and per model ``(kind, width, depth)`` its training (every seed's weights and data
order, :func:`seed_config`) and its sampler. A model's numbers therefore do not depend on the family it is
trained in.

The code lives in private modules by subject, and every public name is imported from
here: the families and their seed points (``_families``), training and measuring a
family's seeds (``_seeds``), the comparisons of curves with the text's (``_curves``), the
binary sweep (``_binary``) and the text sweeps (``_text``).
"""

from __future__ import annotations

from seqmi._optional import require

require("torch")  # a missing torch fails naming its extra

from seqmi.experiments.ch03_rnn_transformer_mi import _families
from seqmi.experiments.ch03_rnn_transformer_mi._binary import (BINARY_BOOTSTRAP, BINARY_HEADS, BINARY_KINDS,
                                                               BinarySettings, binary_config, binary_data,
                                                               binary_model, binary_points)
from seqmi.experiments.ch03_rnn_transformer_mi._curves import (curve_gap, long_range_shape, reference_curves,
                                                               set_gaps, subsample_control)
from seqmi.experiments.ch03_rnn_transformer_mi._families import (by_model, families, family_of, join_seeds,
                                                                 members, merge_seeds, model_grid, seed_families,
                                                                 training_spec)
from seqmi.experiments.ch03_rnn_transformer_mi._seeds import BOOTSTRAP_BLOCKS, run_family, run_seeds, seed_config
from seqmi.experiments.ch03_rnn_transformer_mi._text import (CHAR_KINDS, HEAD_CHARS, MID_START, TEXT_HEADS,
                                                             TEXT_THRESHOLD, WORD_KINDS, CharCorpus, CharSettings,
                                                             TextSettings, WordCorpus, WordSettings, char_config,
                                                             char_corpus, char_data, char_model, char_point,
                                                             word_config, word_corpus, word_data, word_model,
                                                             word_point, xi_series)

# The API reference reads a constant's #: comment where this package binds it, so the
# documented constants of _families are bound here again (the same objects).

#: A trained model of a sweep, ``(kind, width, depth)``.
Model = _families.Model
#: The models of one kind and depth, ``(kind, widths, depth)``.
Family = _families.Family
#: A sweep point, ``(kind, widths, depth, seed)``: one independently trained seed of a
#: family. A point per seed lets a run add seeds to those an earlier run finished (the
#: ledger keeps each one), and a decisive run's fresh seeds never meet its pilot's.
SeedFamily = _families.SeedFamily
#: Settings fields that only sampling and measurement read, never training.
MEASUREMENT_FIELDS = _families.MEASUREMENT_FIELDS

# what the API reference documents here, in this order (autodoc follows __all__)
__all__ = [
    "Model", "Family", "SeedFamily",
    "BINARY_KINDS", "CHAR_KINDS", "WORD_KINDS", "BINARY_HEADS", "TEXT_HEADS", "TEXT_THRESHOLD", "MID_START",
    "HEAD_CHARS", "BINARY_BOOTSTRAP", "BOOTSTRAP_BLOCKS", "MEASUREMENT_FIELDS",
    "model_grid", "xi_series", "families", "seed_families", "merge_seeds", "join_seeds", "members", "by_model",
    "training_spec",
    "curve_gap", "reference_curves", "set_gaps", "subsample_control", "long_range_shape",
    "run_seeds", "run_family", "seed_config",
    "BinarySettings", "binary_data", "binary_model", "binary_config", "family_of", "binary_points",
    "TextSettings", "CharSettings", "WordSettings", "CharCorpus", "char_corpus", "WordCorpus", "word_corpus",
    "char_data", "char_model", "char_config", "word_data", "word_model", "word_config", "char_point",
    "word_point",
]
