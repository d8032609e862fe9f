"""Chapter 03's rules and calibrations, gathered in the order the chapter and the scoreboard show them.

Re-exported by :mod:`seqmi.claims.ch03_rnn_transformer_mi`, where the public ones are documented.
"""

from __future__ import annotations

from seqmi.claims import Claim
from seqmi.claims.calibration import Calibration
from seqmi.claims.ch03_rnn_transformer_mi._binary_rnn import (_depth, _lstm, _lstm_beats_wider_rnn, _lstm_depth,
                                                              _lstm_exponential, _rnn_exponential, _rnn_saturates)
from seqmi.claims.ch03_rnn_transformer_mi._binary_transformer import (_transformer, _transformer_beyond_lstms,
                                                                      _transformer_shape, _transformer_xi_over_data)
from seqmi.claims.ch03_rnn_transformer_mi._calibrations_binary import (_cal_beyond_lstms, _cal_depth, _cal_exponential,
                                                                       _cal_lstm_exponential, _cal_magnitude,
                                                                       _cal_no_gain_xi, _cal_not_exponential,
                                                                       _cal_overestimates, _cal_power_law,
                                                                       _cal_saturation, _cal_small_lstm)
from seqmi.claims.ch03_rnn_transformer_mi._calibrations_text import (_cal_gaps, _cal_mid_range, _cal_no_gain_text,
                                                                     _cal_rank_link, _cal_splits, _cal_tail,
                                                                     _cal_text_forms)
from seqmi.claims.ch03_rnn_transformer_mi._shared import INTERMEDIATE_LAGS, MIDDLE_LAGS
from seqmi.claims.ch03_rnn_transformer_mi._splits import _splits
from seqmi.claims.ch03_rnn_transformer_mi._text import _depth_pairs, _text, _text_forms, _text_quality
from seqmi.claims.ch03_rnn_transformer_mi._text_range import _deep_tail, _mid_range
from seqmi.results.ch03_rnn_transformer_mi import Results


def rules(r: Results) -> list[Claim]:
    """The chapter's claims from its results record."""
    return [_rnn_exponential(r), _lstm_exponential(r), _rnn_saturates(r), _lstm(r), _depth(r), _lstm_depth(r),
            _lstm_beats_wider_rnn(r), _transformer(r), _transformer_xi_over_data(r), _transformer_beyond_lstms(r, "a"),
            _transformer_beyond_lstms(r, "b"), *_transformer_shape(r), *_splits(r), _text_forms(r), *_text(r),
            _mid_range(r), _deep_tail(r), _text_quality(r)]


def calibrations(r: Results) -> list[Calibration]:
    """One :class:`~seqmi.claims.calibration.Calibration` per statistical claim whose models ``r`` recorded.

    Each draws one data set at the recorded scale (seeds per model, lags, the recorded
    spreads) under the claim's h0 or h1 and returns the verdict of the rule's own
    ``decide_*`` function on it; a claim whose models the run lacks has none.
    """
    s, pts = r.settings, r.text_points
    same_w = [w for w in s.text_lstm_widths if f"lstm_w{w}_d1" in pts and f"transformer_w{w}_d1" in pts]
    word_pairs = {f"{k} {w}": (f"lstm {w}×1", f"{k} {w}×1")
                  for k, ws in (("word_lstm", s.word_lstm_widths), ("word_transformer", s.word_transformer_widths))
                  for w in ws if f"{k}_w{w}_d1" in pts and f"lstm_w{w}_d1" in pts}
    built = [_cal_exponential(r), _cal_lstm_exponential(r), _cal_saturation(r, "rnn"), _cal_saturation(r, "lstm"),
             _cal_depth(r), _cal_no_gain_xi(r), _cal_small_lstm(r), _cal_power_law(r), _cal_overestimates(r),
             _cal_beyond_lstms(r, "a"), _cal_beyond_lstms(r, "b"), _cal_not_exponential(r), _cal_magnitude(r),
             *_cal_splits(r), _cal_text_forms(r),
             _cal_gaps(r, "shen2019.fig3b.char-transformer-beats-lstm",
                       {f"width {w}": (f"lstm {w}×1", f"transformer {w}×1") for w in same_w}, MIDDLE_LAGS,
                       lambda name: True),
             _cal_gaps(r, "shen2019.fig3c.word-beats-char-intermediate", word_pairs, INTERMEDIATE_LAGS,
                       lambda name: True),
             _cal_no_gain_text(r),
             _cal_gaps(r, "shen2019.fig10b.transformer-depth-gain", _depth_pairs(r, "transformer"), MIDDLE_LAGS,
                       lambda name: True),
             _cal_mid_range(r), _cal_tail(r), _cal_rank_link(r)]
    return [c for c in built if c is not None]
