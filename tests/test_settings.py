"""Every settings record checks its values when it is built, naming the value and what is allowed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from seqmi.experiments import ch03_rnn_transformer_mi as ch03

BINARY = ch03.BinarySettings(
    n_train=20, n_valid=10, length=16, mi_amplitude=0.1, mi_exponent=0.4, n_generate=10, threshold=1e-3,
    max_epochs=2, patience=1, seeds=1, transformer_epochs=2, rnn_lr=0.01, lstm_lr=0.01, transformer_lr=0.003,
    seed=0)
TEXT = ch03.TextSettings(train_chars=4000, generate=64, sample_sets=2, row=32, max_lag=8, patience=1, seeds=1,
                         seed=0)
CHAR = ch03.CharSettings(text=TEXT, window=16, epochs=1, lstm_batch=4, transformer_batch=8, transformer_lr=0.003)
WORD = ch03.WordSettings(text=TEXT, min_count=2, window=16, epochs=1, lstm_batch=4, lstm_lr=20.0, dropout=0.4,
                         transformer_batch=8, transformer_lr=0.003)

BAD = [
    (BINARY, "n_train", 5), (BINARY, "length", 8), (BINARY, "mi_amplitude", 0.7), (BINARY, "mi_exponent", 0.0),
    (BINARY, "n_generate", 1), (BINARY, "threshold", -1e-3), (BINARY, "patience", 0), (BINARY, "seeds", 0),
    (BINARY, "lstm_lr", 2.0), (BINARY, "transformer_lr", 0.0), (BINARY, "seed", -1), (BINARY, "device", "gpu"),
    (BINARY, "max_epochs", 1.5),
    (TEXT, "row", 16), (TEXT, "max_lag", 32), (TEXT, "generate", 31), (TEXT, "sample_sets", 1),
    (TEXT, "train_chars", -1), (TEXT, "device", "tpu"),
    (CHAR, "text", BINARY), (CHAR, "window", 8), (CHAR, "lstm_batch", 0), (CHAR, "transformer_lr", 1.5),
    (WORD, "min_count", 0), (WORD, "dropout", 1.0), (WORD, "lstm_lr", 0.0), (WORD, "epochs", 0),
]


@pytest.mark.parametrize("valid, name, bad", BAD, ids=[f"{type(v).__name__}.{n}" for v, n, _ in BAD])
def test_a_settings_record_rejects_a_bad_value_by_name(valid, name, bad):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        replace(valid, **{name: bad})


def test_valid_settings_build_and_keep_their_values():
    assert replace(BINARY, device="cuda:1").device == "cuda:1"
    assert replace(TEXT, max_lag=31).max_lag == 31


@pytest.mark.parametrize("widths, depths, heads, match", [
    ({"transformer": [6]}, {}, {"transformer": 4}, "transformer widths must be multiples of the 4 attention heads"),
    ({"rnn": [0]}, {}, {}, r"rnn widths\[0\] must be in"),
    ({}, {"lstm": ([8], [0])}, {}, r"lstm depths\[0\] must be in"),
    ({}, {"transformer": ([12], [1])}, {"transformer": 8}, "transformer depth-sweep widths must be multiples"),
])
def test_a_model_grid_rejects_bad_widths_and_depths(widths, depths, heads, match):
    with pytest.raises(ValueError, match=match):
        ch03.model_grid(widths, depths, heads=heads)
