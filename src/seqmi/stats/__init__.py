"""Intervals, sample sizes and the statistics of curves that every chapter and claim rule uses.

Intervals are ``[low, high]`` lists of floats. The independent units are what the caller
passes: trained seeds, sequences, documents, held-out symbols. A claim rule
(:mod:`seqmi.claims`) decides a verdict from these intervals; a chapter may compute them
too, but never through a rule module.

- :mod:`seqmi.stats.intervals`: normal, bootstrap and Wilson intervals; Student-t
  intervals over seeds of means, differences, contrasts and slopes; ratios; the jackknife.
- :mod:`seqmi.stats.power`: the sample sizes that would resolve an effect, and the power
  of the Wilson and Student-t intervals.
- :mod:`seqmi.stats.equivalence`: intervals of relative differences, the scale and power
  of a TOST, normal tolerance intervals.
- :mod:`seqmi.stats.growth`: how a curve grows (power law against logarithmic growth,
  log-log slopes, the late/early ratio of a KL profile).
- :mod:`seqmi.stats.decay`: how a curve decays (power law against exponential decay, the
  correlation length of an exponential).
- :mod:`seqmi.stats.rank`: the one Spearman correlation, its permutation test and Fisher's
  interval, power and sample size.

Every public name is importable from the package itself (``from seqmi.stats import
mean_ci``). A new interval or sample size goes to the module of its kind.
"""

from seqmi.stats.decay import (DECAY_BLOCKS, DECAY_OFFSETS, DecayForm, correlation_length_interval, decay_form,
                               log_decay_slope)
from seqmi.stats.equivalence import (equivalence_power, equivalence_scale, equivalence_scale_for_power,
                                     relative_difference_interval, tolerance_factor, tolerance_interval)
from seqmi.stats.growth import (CHI2_1_95, GROWTH_GRID, GrowthProfile, growth_power, growth_profile,
                                late_early_ratio, log_slope)
from seqmi.stats.intervals import (Z95, binomial_ci, bootstrap_ci, contrast_ci, geometric_ratio_ci, jackknife_ci,
                                   log_ratio_ci, mean_ci, mean_diff_ci, normal_ci, ratio_to_reference_ci, slope_ci,
                                   standard_error, t_quantile)
from seqmi.stats.power import needed_for_interval, needed_samples, seeds_to_decide, t_power, wilson_power
from seqmi.stats.rank import (FISHER_SE_FACTOR, MIN_RANK_PAIRS, spearman, spearman_ci, spearman_pairs_needed,
                              spearman_permutation_test, spearman_power)

__all__ = [
    "CHI2_1_95", "DECAY_BLOCKS", "DECAY_OFFSETS", "FISHER_SE_FACTOR", "GROWTH_GRID", "MIN_RANK_PAIRS", "Z95",
    "DecayForm", "GrowthProfile",
    "binomial_ci", "bootstrap_ci", "contrast_ci", "correlation_length_interval", "decay_form",
    "equivalence_power", "equivalence_scale", "equivalence_scale_for_power", "geometric_ratio_ci",
    "growth_power", "growth_profile", "jackknife_ci", "late_early_ratio", "log_decay_slope", "log_ratio_ci",
    "log_slope", "mean_ci", "mean_diff_ci", "needed_for_interval", "needed_samples", "normal_ci",
    "ratio_to_reference_ci", "relative_difference_interval", "seeds_to_decide", "slope_ci", "spearman",
    "spearman_ci", "spearman_pairs_needed", "spearman_permutation_test", "spearman_power", "standard_error",
    "t_power", "t_quantile", "tolerance_factor", "tolerance_interval", "wilson_power",
]
