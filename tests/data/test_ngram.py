"""n-gram languages: the paper's example (Appendix B), rules, f_N, consistency, TV distance."""

import numpy as np
import pytest

from seqmi.data.ngram import (
    UNK, NgramLanguage, is_eps_equivalent, max_tv_distance, paper_context_table,
    random_ngram_language, tv_distance,
)


@pytest.fixture(scope="module")
def paper():
    return NgramLanguage.paper_example()


def test_paper_language_size_and_rules_match_appendix_b(paper):
    assert paper.n == 4
    assert len(paper.sentences) == 10 * 12 * 7 * 2 + 3 * 2 * 5 * 7 * 5 * 6
    assert len(paper.rules) == 145
    # the enumeration reproduces the printed table, even in its order
    assert list(paper.rules) == paper_context_table()
    assert paper.vocab[-1] == UNK and len(set(paper.vocab)) == len(paper.vocab)
    assert paper.is_consistent
    assert paper.contains("He got up and put on his jeans because he didn’t want to jog into the "
                          "station in his robes".split())


def test_next_word_distribution(paper):
    p = paper.next_word_distribution("Harry woke at one o’clock and was too".split())
    assert p.sum() == pytest.approx(1.0)
    moods = ["excited", "angry", "elated", "agitated", "nervous", "troubled", "upset"]
    np.testing.assert_allclose(p[[paper.vocab.index(w) for w in moods]], 1 / 7)
    # only the last n - 1 words matter
    np.testing.assert_array_equal(p, paper.next_word_distribution("Ron woke at one o’clock and was too".split()))
    unk = np.zeros(len(paper.vocab))
    unk[-1] = 1.0
    np.testing.assert_array_equal(paper.next_word_distribution(["go", "back", "to", "sleep"]), unk)
    np.testing.assert_array_equal(paper.next_word_distribution(["sleep", "at", "jeans"]), unk)
    with pytest.raises(ValueError, match="at least 3 words"):
        paper.next_word_distribution(["Harry", "woke"])


def test_starting_sequences_are_all_prefixes(paper):
    starts = paper.starting_sequences()
    # template 1: 10 + 5*120 + 5*840 + 1680; template 2: 10288 prefixes minus the 4 shorter than 3
    assert len(starts) == len(set(starts)) == 6490 + 10284
    assert min(map(len, starts)) == 3


def test_inconsistent_language_is_detected():
    lang = NgramLanguage.from_sentences(["a b c d".split(), "x b c e".split()], 3)
    bad = lang.inconsistencies()
    assert not lang.is_consistent and bad
    assert bad[0].by_rules == ("d", "e")


def test_from_templates_splits_phrases():
    lang = NgramLanguage.from_templates([["X", "sat on", "Y"]], {"X": ["a cat", "dogs"], "Y": ["mats"]}, 2)
    assert lang.sentences == [("a", "cat", "sat", "on", "mats"), ("dogs", "sat", "on", "mats")]
    assert lang.rules[("sat",)] == ("on",) and lang.rules[("mats",)] == ()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_languages_are_consistent_and_reproducible(n):
    lang = random_ngram_language(n, 8, 12, 2, 6, seed=n)
    again = random_ngram_language(n, 8, 12, 2, 6, seed=n)
    assert lang.sentences == again.sentences
    assert lang.is_consistent
    assert all(len(s) == 8 for s in lang.sentences)
    assert all(len(c) == n - 1 for c in lang.rules)


def test_split_is_disjoint_and_seeded(paper):
    train, test = paper.split(40, seed=3)
    assert len(train) == 40 and len(test) == len(paper.sentences) - 40
    assert not set(train) & set(test)
    assert paper.split(40, seed=3)[0] == train


class _NgramItself:
    def __init__(self, lang):
        self.lang = lang

    def predict_proba(self, prefix):
        return self.lang.next_word_distribution(prefix)


class _Uniform:
    def __init__(self, lang):
        self.k = len(lang.vocab)

    def predict_proba(self, prefix):
        return np.full(self.k, 1.0 / self.k)


def test_tv_and_eps_equivalence():
    assert tv_distance([1, 0], [0, 1]) == 1.0
    np.testing.assert_allclose(tv_distance(np.eye(3), np.full((3, 3), 1 / 3)), 2 / 3)
    lang = random_ngram_language(3, 5, 4, 2, 3, seed=0)
    assert max_tv_distance(_NgramItself(lang), lang) == 0.0
    assert is_eps_equivalent(_NgramItself(lang), lang, 1e-9)
    assert not is_eps_equivalent(_Uniform(lang), lang, 0.5)
    with pytest.raises(ValueError):
        is_eps_equivalent(_Uniform(lang), lang, 0.0)
