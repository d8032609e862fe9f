"""Fold models of chapter 04: every chapter held out of exactly one character Transformer."""

from __future__ import annotations

import numpy as np
import pytest

from seqmi.data.text import CharVocab, Document, join
from seqmi.experiments.ch04_bipartite_mi_l2m import CharLMSettings, chapter_folds, train_fold_char_lms


@pytest.mark.parametrize("n_docs, k", [(1189, 4), (10, 3), (5, 5), (2, 2)])
def test_folds_are_disjoint_covering_balanced_and_sorted(n_docs, k):
    folds = chapter_folds(n_docs, k, seed=7)
    assert len(folds) == k
    every = np.concatenate(folds)
    assert np.array_equal(np.sort(every), np.arange(n_docs))  # covering, and disjoint (no repeats)
    assert max(map(len, folds)) - min(map(len, folds)) <= 1
    assert all(np.array_equal(f, np.sort(f)) for f in folds)


def test_folds_depend_on_the_seed_alone():
    a, b = chapter_folds(100, 4, seed=3), chapter_folds(100, 4, seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    c = chapter_folds(100, 4, seed=4)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_folds_reject_bad_sizes():
    with pytest.raises(ValueError, match="k"):
        chapter_folds(10, 1, seed=0)
    with pytest.raises(ValueError, match="k"):
        chapter_folds(3, 4, seed=0)
    with pytest.raises(ValueError, match="n_docs"):
        chapter_folds(1, 2, seed=0)


def _corpus(n: int) -> list[Document]:
    rng = np.random.default_rng(0)
    return [Document(f"doc {i}", "".join(rng.choice(list("abc "), 120))) for i in range(n)]


def test_fold_models_hold_their_fold_out_and_are_reproducible(tmp_path):
    docs = _corpus(12)
    vocab = CharVocab(join(docs))
    settings = CharLMSettings(depth=1, heads=2, d_state=4, window=16, steps=10, batch=4, lr=0.003, seed=5)
    models = train_fold_char_lms(docs, vocab, 3, 8, settings, valid_fraction=0.2)
    assert [m.held.tolist() for m in models] == [f.tolist() for f in chapter_folds(12, 3, 5)]
    assert all(np.isfinite(m.result.best_val_loss) for m in models)
    again = train_fold_char_lms(docs, vocab, 3, 8, settings, valid_fraction=0.2, cache_dir=str(tmp_path))
    assert [m.result.best_val_loss for m in again] == pytest.approx([m.result.best_val_loss for m in models])
    # fold models differ: their windows and initialisations have their own seeds
    assert len({round(m.result.best_val_loss, 9) for m in models}) == 3
    with pytest.raises(ValueError, match="valid_fraction"):
        train_fold_char_lms(docs, vocab, 3, 8, settings, valid_fraction=0.0)
