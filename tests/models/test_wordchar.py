"""Word-level models sampled at character level."""

import numpy as np
import pytest
import torch

from seqmi.data.text import CharVocab, WordVocab, kjv_text
from seqmi.experiments.ch03_rnn_transformer_mi import run_family
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.train import sequence_loss
from seqmi.models.wordchar import CharLevelSampler, add_lstm_dropout
from seqmi.train import Stream, TrainConfig

TEXT = kjv_text()[:6000]
WORDS = WordVocab(TEXT, min_count=2)
CHARS = CharVocab(TEXT + "<unk>")


def wrapped(kind):
    torch.manual_seed(0)
    if kind == "lstm":
        inner = add_lstm_dropout(RNNLM(len(WORDS), 16, 2, "lstm", embed_dim=16, tie_weights=True), 0.4)
    else:
        inner = TransformerLM(len(WORDS), 16, 1, heads=8, max_len=32, tie_weights=True)
    return CharLevelSampler(inner, WORDS, CHARS)


@pytest.mark.parametrize("kind", ["lstm", "transformer"])
def test_samples_are_character_rows_of_the_decoded_words(kind):
    model = wrapped(kind)
    rows = model.sample(3, 200, seed=5)
    assert rows.shape == (3, 200) and rows.dtype == np.int64
    assert np.array_equal(rows, model.sample(3, 200, seed=5))
    # each row is the start of the detokenised word sample drawn with the same seed
    words = model.model.sample(3, model.tokens_for(200), seed=5)
    texts = [WORDS.decode(tok) for tok in words]
    long_enough = [(row, text) for row, text in zip(rows, texts) if len(text) >= 200]
    assert long_enough  # rows drawn again (too short at first) come from another seed
    for row, text in long_enough:
        assert CHARS.decode(row) == text[:200]


def test_dropout_acts_in_training_only():
    model = wrapped("lstm")
    x = torch.randint(0, len(WORDS), (2, 8))
    model.eval()
    assert torch.equal(model(x), model(x))
    model.train()
    assert not torch.equal(model(x), model(x))
    assert model.model.rnn.dropout == 0.4


def test_wrapper_trains_like_the_word_model():
    model = wrapped("transformer")
    seqs = torch.as_tensor(WORDS.encode(TEXT)[:64].reshape(2, 32))
    with torch.no_grad():
        assert float(sequence_loss(model, seqs)) == pytest.approx(float(sequence_loss(model.model, seqs)))
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in model.model.parameters())


def test_run_family_measures_word_models_at_character_level():
    ids = WORDS.encode(TEXT)
    cut = len(ids) * 4 // 5
    data = Stream(ids[:cut], ids[cut:], bptt=20)
    rec, = run_family(lambda: wrapped("lstm"), data, [TrainConfig(optimizer="adam", lr=3e-3, batch_size=4,
                      max_epochs=1, restarts=1)], sample_seeds=[1], n_samples=4, sample_length=120, max_lag=20,
                      threshold=2e-3, device=torch.device("cpu"), head_tokens=50)["models"]
    assert len(rec["mi"]) == 20 and np.isfinite(rec["mi"]).all()
    assert len(CHARS.decode(rec["head"])) == 50
    assert rec["val_loss"] < 2 * np.log(len(WORDS))


def test_mismatched_vocabularies_are_rejected():
    with pytest.raises(ValueError, match="tokens"):
        CharLevelSampler(RNNLM(len(WORDS) + 1, 8), WORDS, CHARS)
    with pytest.raises(ValueError, match="vocabulary"):
        CharLevelSampler(RNNLM(len(WORDS), 8), WORDS, CharVocab("abc"))
