"""Claims of chapter 04: bipartite MI and the L2M condition (Chen et al. 2025).

The Gaussian families are exact computations. Every other claim is a test of the paper's
hypothesis against a named alternative (its :class:`~seqmi.claims.Design`), decided by a
pure function of arrays (the ``_decide_*`` functions) that :func:`rules` and
:func:`calibrations` both call:

- the growth of the bipartite MI of text: power law against logarithmic growth, by the
  profile likelihood of ``beta`` in ``a (L^beta - 1) / beta + c``
  (:func:`seqmi.stats.growth.growth_profile`), with the per-length standard errors over chapters;
- the two-point MI of text: power law against exponential decay, by the log-likelihood
  ratio of the two offset fits (:func:`seqmi.stats.decay.decay_form`);
- exponents compared between estimators: the difference of weighted log-log slopes
  (:func:`seqmi.stats.growth.log_slope`);
- trained models (Fig. 4, the exact bound): Student-t and Welch intervals over
  independently trained seeds, never paired across configurations
  (:func:`seqmi.stats.intervals.log_ratio_ci`), and Fisher's interval of a rank correlation
  (:func:`seqmi.stats.rank.spearman_ci`);
- Fig. 5: the gap's change with position, over chapters, held back below
  ``MIN_SEEDS`` trained models per architecture.

An interval that admits both outcomes leaves the claim inconclusive, and its scale says
what would decide it (:func:`~seqmi.claims.would_decide`).

Its parts live in private modules, and every public name is imported from here: the
thresholds, the calibrations' effects and the readings of the results record that the groups
share (``_common``), the decision functions (``_decisions``), the exact Gaussian claims
(``_gaussian``), the trained models' claims of Fig. 4, the bound and Fig. 5
(``_trained``), the text's claims (``_text``), the calibrations (``_calibrations``) and
:func:`rules` (``_rules``).
"""

from __future__ import annotations

from seqmi.claims.ch04_bipartite_mi_l2m._calibrations import calibrations
from seqmi.claims.ch04_bipartite_mi_l2m._common import (CLEAR_COLLAPSE, COLLAPSE_RHO, COLLAPSE_SE_FACTOR, H1_BETA,
                                                        H1_COLLAPSE_POWER, H1_EXCESS_EXPONENT, H1_EXPONENT_GAP,
                                                        H1_GAP_CHANGE, H1_LENGTH_FACTOR, H1_LZMA_GAP,
                                                        H1_SSM_LATE_EARLY, MIN_COLLAPSE_RUNS, Curve, Model,
                                                        spearman_interval)
from seqmi.claims.ch04_bipartite_mi_l2m._gaussian import BOUNDARY, LINEAR, LOG_STEP_MAX, STATE_EXPONENT_TOL
from seqmi.claims.ch04_bipartite_mi_l2m._rules import rules
from seqmi.claims.ch04_bipartite_mi_l2m._text import (CHAR, DECAY_TEST, GENERATED_STATEMENT, GROWTH_TEST,
                                                      LR_FOR_POWER_80, SMOL, TEXT, TWO_POINT)
from seqmi.claims.ch04_bipartite_mi_l2m._trained import (BOUND_SOURCE, FIG5, FIG5_CONTEXT, LEARNED_FRACTION,
                                                         MAMBA_NORM, PAPER_STEPS)

# what the API reference documents here, in this order (autodoc follows __all__)
__all__ = [
    "BOUNDARY", "TEXT", "SMOL", "CHAR", "TWO_POINT", "CLEAR_COLLAPSE", "COLLAPSE_RHO", "MIN_COLLAPSE_RUNS",
    "COLLAPSE_SE_FACTOR", "LEARNED_FRACTION", "PAPER_STEPS", "MAMBA_NORM", "FIG5", "FIG5_CONTEXT",
    "H1_BETA", "H1_EXPONENT_GAP", "H1_LZMA_GAP", "H1_SSM_LATE_EARLY", "H1_LENGTH_FACTOR", "H1_COLLAPSE_POWER",
    "H1_EXCESS_EXPONENT", "H1_GAP_CHANGE", "LR_FOR_POWER_80", "LINEAR", "STATE_EXPONENT_TOL", "LOG_STEP_MAX",
    "BOUND_SOURCE", "GROWTH_TEST", "DECAY_TEST", "GENERATED_STATEMENT", "Curve", "Model",
    "spearman_interval", "calibrations", "rules",
]
