"""Claims of chapter 03: what trained RNNs, LSTMs and Transformers generate (Shen 2019).

A claim about an architecture is a claim about what it learns, not about one trained
network: every model is trained as several independent seeds (their own weights and data
order), and every trained-model claim is decided over the seeds, each seed's own sampling
noise nested inside its value: for binary models the decay rate ``1/ξ``, the exponent and
the decay form ``ln(RSS_pow / RSS_exp)`` of each seed's samples
(:func:`seqmi.fit.decay_fits`); for text, each seed's mismatch ``mean |Δ ln I|`` to a
same-size sample of the training text over the lags the paper's statement names (its
first sample set, whose curve the run records). Seeds of different models are never
paired: one model is a Student-t interval over its seeds, a comparison Welch's, a slope
over widths a contrast of the per-width means (:func:`seqmi.stats.intervals.contrast_ci`), a
"does not improve" or "matches" claim two one-sided tests on the 90% interval of a
relative difference with the book's one margin (:func:`seqmi.claims.decide_equivalence`), a
"reaches" claim one of them (non-inferiority at that margin).

A verdict needs at least ``MIN_SEEDS`` seeds per model and every seed converged
(:func:`seqmi.convergence.converged`); a comparison of binary models, whose validation losses
differ by 0.0001-0.005 nats, asks for a criterion finer than those differences
(``FINE_TOL`` over the recipe's patience, ``FINE_WINDOW``). Otherwise the claim is
inconclusive whichever way its interval points, and says what would decide it. Every
statistical rule is factored into a ``decide_*`` function of arrays, which
:func:`calibrations` runs on data simulated at the recorded scale under the claim's h0
and h1 (:mod:`seqmi.claims.calibration`).

Its rules live in private modules by subject, and every public name is imported from here:
what the rules share (the paper's numbers, the readings of a recorded model, intervals,
power, convergence and scale texts: ``_shared``), the binary RNNs and LSTMs
(``_binary_rnn``), the binary Transformers (``_binary_transformer``), the text's splits
(``_splits``), the text models' mismatches, decay forms and spelling (``_text``), the
character Transformers' range (``_text_range``), the calibrations (``_calibrations_binary``,
``_calibrations_text``), and the chapter's list of each (``_chapter``).
"""

from __future__ import annotations

from seqmi.claims.ch03_rnn_transformer_mi._binary_rnn import (decide_depth_beats_width, decide_exponential,
                                                              decide_lstm, decide_lstm_exponential, decide_no_gain,
                                                              decide_saturation, decide_small_lstm)
from seqmi.claims.ch03_rnn_transformer_mi._binary_transformer import (decide_beyond_lstms, decide_magnitude,
                                                                      decide_not_exponential, decide_overestimates,
                                                                      decide_power_law)
from seqmi.claims.ch03_rnn_transformer_mi._chapter import calibrations, rules
from seqmi.claims.ch03_rnn_transformer_mi._shared import (CONTROL_DRAWS, FINE_TOL, FINE_WINDOW, FLOOR_FRACTION,
                                                          H1_RATIO, H1_RHO, HEAD_WORDS_NOTE, INTERMEDIATE_LAGS,
                                                          MAGNITUDE_LAGS, MIDDLE_LAGS, PAPER_CHAR_CONTEXT,
                                                          PAPER_CLEAR_LSTM, PAPER_GENERATE, PAPER_MAX_LAG,
                                                          PAPER_NARROWEST_TRANSFORMER, PAPER_SMALL_LSTM,
                                                          PAPER_TAIL_DEPTHS, PAPER_TAIL_LAG, PAPER_TEXT_DEPTH_WIDTH,
                                                          PAPER_TRANSFORMER_WIDTH, PAPER_WIDE_RNN, PAPER_WORD_CONTEXT,
                                                          PERMUTATIONS, SATURATION_WIDTH, SEED_LIMIT, SHORT_LAGS,
                                                          SIGNIFICANCE, TAIL_START, TEXT_FIT_THRESHOLD,
                                                          TEXT_SUBSTITUTION, at_paper_width)
from seqmi.claims.ch03_rnn_transformer_mi._splits import decide_floor, decide_uniform
from seqmi.claims.ch03_rnn_transformer_mi._text import decide_gaps, decide_rank_link, decide_text_forms
from seqmi.claims.ch03_rnn_transformer_mi._text_range import decide_mid_range, decide_tail

# what the API reference documents here, in this order (autodoc follows __all__)
__all__ = [
    "SATURATION_WIDTH", "PAPER_TRANSFORMER_WIDTH", "PAPER_NARROWEST_TRANSFORMER", "PAPER_CLEAR_LSTM",
    "PAPER_WIDE_RNN", "PAPER_SMALL_LSTM", "MAGNITUDE_LAGS", "TEXT_FIT_THRESHOLD", "SHORT_LAGS", "MIDDLE_LAGS",
    "INTERMEDIATE_LAGS", "PAPER_TAIL_DEPTHS", "PAPER_TAIL_LAG", "TAIL_START", "PAPER_MAX_LAG", "PAPER_GENERATE",
    "PAPER_TEXT_DEPTH_WIDTH", "FLOOR_FRACTION", "PAPER_CHAR_CONTEXT", "PAPER_WORD_CONTEXT", "FINE_TOL",
    "FINE_WINDOW", "CONTROL_DRAWS", "H1_RATIO", "H1_RHO", "SIGNIFICANCE", "PERMUTATIONS", "SEED_LIMIT",
    "HEAD_WORDS_NOTE", "TEXT_SUBSTITUTION",
    "decide_exponential", "decide_lstm_exponential", "decide_saturation", "decide_lstm",
    "decide_depth_beats_width", "decide_no_gain", "at_paper_width", "decide_small_lstm",
    "decide_power_law", "decide_overestimates", "decide_beyond_lstms", "decide_not_exponential",
    "decide_magnitude",
    "decide_uniform", "decide_floor",
    "decide_text_forms", "decide_gaps", "decide_mid_range", "decide_tail", "decide_rank_link",
    "rules", "calibrations",
]
