"""The KJV corpus: documents, vocabulary, splits."""

import numpy as np
import pytest

from seqmi.data import text
from seqmi.data.text import KJV_CHAPTERS, CharVocab, Document, kjv_documents, kjv_text, split_contiguous, split_random


def test_kjv_has_every_chapter_in_canonical_order():
    docs = kjv_documents()
    assert len(docs) == KJV_CHAPTERS == 1189
    assert docs[0].title == "Genesis 1"
    assert docs[0].text.startswith("In the beginning God created the heaven and the earth.")
    assert docs[-1].title == "Revelation 22"
    assert docs[-1].text.endswith("Amen.")
    # 4.14 M characters (the data notes), joined by 1,188 newlines
    assert 4.1e6 < len(kjv_text()) < 4.2e6


def test_vocabulary_round_trip():
    text = kjv_text()[:20000]
    vocab = CharVocab(text)
    ids = vocab.encode(text)
    assert ids.dtype == np.int64 and ids.max() == len(vocab) - 1
    assert vocab.decode(ids) == text
    with pytest.raises(ValueError, match="vocabulary"):
        vocab.encode("~")


def test_whole_corpus_vocabulary_is_small():
    assert 55 <= len(CharVocab(kjv_text())) <= 70


DOCS = [Document(f"d{i}", "x" * (10 + i)) for i in range(40)]


@pytest.mark.parametrize("split", [split_contiguous, lambda d, v, t: split_random(d, v, t, seed=1)])
def test_splits_partition_documents_with_the_target_shares(split):
    s = split(DOCS, 0.1, 0.2)
    titles = [t for part in s.titles for t in part]
    assert sorted(titles) == sorted(d.title for d in DOCS)
    total = sum(len(d.text) for d in DOCS)
    biggest = max(len(d.text) for d in DOCS)
    for part, share in ((s.valid, 0.1), (s.test, 0.2)):
        chars = len(part.replace("\n", ""))
        assert abs(chars - share * total) <= biggest


def test_contiguous_split_keeps_order_and_random_split_mixes():
    c = split_contiguous(DOCS, 0.1, 0.1)
    order = [int(t[1:]) for part in c.titles for t in part]
    assert order == sorted(order)
    r = split_random(DOCS, 0.1, 0.1, seed=0)
    assert r.titles != c.titles
    assert r.titles == split_random(DOCS, 0.1, 0.1, seed=0).titles
    assert all(list(p) == sorted(p, key=lambda t: int(t[1:])) for p in r.titles)


def test_bad_fractions_are_rejected():
    with pytest.raises(ValueError, match="valid_fraction"):
        split_contiguous(DOCS, 0.0, 0.1)


from seqmi.data.text import GLUE, SPACE, UNK, WordVocab, detokenize, tokenize  # noqa: E402


@pytest.mark.parametrize("text", [
    "In the beginning God created the heaven and the earth.",
    "  a ,b(c) d--e\n\n f  king’s sons’ 12 \t(x;) ",
    "",
    "word",
])
def test_tokenize_round_trip_is_exact(text):
    assert detokenize(tokenize(text)) == text


def test_tokenizer_splits_punctuation_and_keeps_case():
    toks = tokenize("And God said, Let there be light: and the LORD’s (light).")
    assert toks == ["And", "God", "said", ",", "Let", "there", "be", "light", ":", "and", "the",
                    "LORD’s", "(", "light", ")", "."]
    # departures from the spacing rule are spelled out by separator tokens
    assert tokenize("a,b") == ["a", ",", GLUE, "b"]
    assert tokenize("a  b") == ["a", SPACE, "b"]


def test_whole_corpus_round_trip_through_ids():
    text = kjv_text()
    vocab = WordVocab(text, min_count=1)  # every token known: no <unk>
    ids = vocab.encode(text)
    assert (ids != vocab.unk).all()
    assert vocab.decode(ids) == text
    # KJV: about 4.5 characters per token (words, punctuation and newlines)
    assert 4.0 < vocab.chars_per_token < 5.0


def test_rare_words_become_unk_deterministically():
    text = "the cat and the dog and the cat sat"
    vocab = WordVocab(text, min_count=2)
    assert vocab.tokens == [UNK, "the", "and", "cat"]  # by falling count, ties by token
    assert vocab.decode(vocab.encode("the dog sat")) == f"the {UNK} {UNK}"
    assert WordVocab(text, min_count=2).tokens == vocab.tokens
    with pytest.raises(ValueError, match="min_count"):
        WordVocab(text, min_count=0)


def test_spelled_fraction_counts_the_words_of_a_dictionary():
    words = text.word_set("In the beginning God created the heaven and the earth.")
    assert words == frozenset({"in", "the", "beginning", "god", "created", "heaven", "and", "earth"})
    # "Thr" and "craeted" are not words of the dictionary; case and punctuation do not count
    assert text.spelled_fraction("THE earth, thr heaven; craeted!", words) == pytest.approx(3 / 5)
    assert np.isnan(text.spelled_fraction(" 12 ,. ", words))
