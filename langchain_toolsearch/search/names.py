"""Name coverage and spelling tolerance for the BM25 index.

:class:`NameCoverage` answers "how much of each tool's name did the query
say?": the share of a name's distinct words that the query holds. Among
sibling names (``create_work_item``, ``create_work_item_link``,
``create_intake_work_item``) the one the query covers best, with least left
over, is the one the user named. It also lets a query made only of
function words (``who am i``) find a tool whose name holds them
(``get_me``): such a query has no content term for BM25 to score.

:func:`correct` tolerates one typing slip (a deleted, inserted, replaced or
two swapped letters: Damerau-Levenshtein distance 1, Norvig's candidate
generation) in a query word the library has never seen, by looking the
candidates up in the library's own vocabulary: about 25 lookups per letter
of the word, no precomputed structure, so building costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import chain, count
from string import ascii_lowercase
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["NameCoverage", "correct", "edits"]

_IntArray: TypeAlias = npt.NDArray[np.int64]
_FloatArray: TypeAlias = npt.NDArray[np.float64]

MIN_FUZZY_CHARS = 5
"""Shorter words are never corrected (too many neighbours at one edit)."""
MAX_FUZZY_CHARS = 24
"""Longer words are never corrected (bounded work per query word)."""


class NameCoverage:
    """Distinct name words per tool, as postings, for coverage of a query's terms.

    Args:
        name_words: For each document, the distinct words of its searchable
            names (stopwords included; stemmed like every term).
    """

    def __init__(self, name_words: Sequence[Sequence[str]]) -> None:
        distinct = [list(dict.fromkeys(words)) for words in name_words]
        flat = list(chain.from_iterable(distinct))
        vocab = dict(zip(dict.fromkeys(flat), count()))  # ids in order of first use
        self.vocab = vocab
        self.size = len(name_words)
        terms = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
        docs = np.repeat(np.arange(self.size, dtype=np.int64), list(map(len, distinct)))
        order = np.argsort(terms, kind="stable")  # postings of a term in document order
        self.docs: _IntArray = docs[order]
        df = np.bincount(terms, minlength=len(vocab))
        self.indptr: _IntArray = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(df)))
        lengths = np.bincount(docs, minlength=self.size).astype(np.float64)
        self.lengths: _FloatArray = np.maximum(lengths, 1.0)

    def matched(self, terms: Sequence[str]) -> _IntArray:
        """Per document, how many distinct words of its name are among ``terms``."""
        ptr = self.indptr
        ids = sorted({self.vocab[t] for t in terms if t in self.vocab})
        if not ids:
            return np.zeros(self.size, dtype=np.int64)
        if len(ids) == 1:
            counts = np.zeros(self.size, dtype=np.int64)
            counts[self.docs[ptr[ids[0]] : ptr[ids[0] + 1]]] = 1
            return counts
        docs = np.concatenate([self.docs[ptr[i] : ptr[i + 1]] for i in ids])
        return np.bincount(docs, minlength=self.size)

    def covered(self, terms: Sequence[str], least: int) -> tuple[_IntArray, _IntArray]:
        """Documents whose names hold at least ``least`` (>= 1) distinct words of ``terms``.

        The same as the documents where :meth:`matched` is at least ``least``
        and their counts, from the matched words' postings alone (no pass
        over every document).

        Returns:
            ``(docs, counts)``: document ids, ascending, and each one's count.
        """
        ptr = self.indptr
        ids = sorted({self.vocab[t] for t in terms if t in self.vocab})
        if len(ids) < least:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        docs = np.sort(np.concatenate([self.docs[ptr[i] : ptr[i + 1]] for i in ids]))
        starts = np.flatnonzero(np.concatenate(([True], docs[1:] != docs[:-1])))
        counts = np.diff(np.append(starts, docs.size)).astype(np.int64)
        keep = counts >= least
        return docs[starts[keep]], counts[keep]

    def coverage(self, terms: Sequence[str]) -> _FloatArray:
        """Per document, the share of its name's distinct words among ``terms``, in [0, 1]."""
        return self.matched(terms) / self.lengths


def edits(word: str) -> list[str]:
    """Every string one edit (delete, swap, replace, insert of a-z) away from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = [a + b[1:] for a, b in splits if b]
    out += [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    out += [a + c + b[1:] for a, b in splits if b for c in ascii_lowercase if c != b[0]]
    out += [a + c + b for a, b in splits for c in ascii_lowercase]
    return out


def correct(
    word: str,
    vocab: Mapping[str, int],
    df: Sequence[int] | _IntArray,
    stem: Callable[[str], str],
) -> str | None:
    """The library term one typing slip away from an unknown query ``word``, if any.

    Candidates are the strings one edit away from the raw word; one counts
    when it is a library term as is, or (only if none is) when a prefix of it
    is and that prefix is the candidate's stem (``naviagte`` -> ``navigate``, whose
    Snowball stem ``navig`` is a library term). Only ASCII letter words of
    5 to 24 characters are corrected. Of several candidates the term in
    most documents wins (ties: alphabetical), so a common word beats a rare
    one. At most about 3,000 dictionary lookups per word.

    Args:
        word: A lowercase query word whose stem is not in ``vocab``.
        vocab: Term -> term id of the index.
        df: Document frequency per term id.
        stem: The tokenizer's stemmer.

    Returns:
        The corrected term (as indexed, i.e. stemmed), or ``None``.
    """
    if not (MIN_FUZZY_CHARS <= len(word) <= MAX_FUZZY_CHARS and word.isascii() and word.isalpha()):
        return None
    candidates = edits(word)
    best: tuple[int, str] | None = None
    for candidate in candidates:  # a library word as written ("clikc" -> "click")
        found = vocab.get(candidate)
        if found is not None and len(candidate) >= MIN_FUZZY_CHARS - 1:
            key = (-int(df[found]), candidate)
            best = key if best is None or key < best else best
    if best is not None:
        return best[1]
    for candidate in candidates:  # a library stem ("naviagte" -> "navigate" -> "navig")
        for cut in range(len(candidate) - 1, max(len(candidate) - 4, 3), -1):
            term = candidate[:cut]
            found = vocab.get(term)
            if found is None:
                continue
            if stem(candidate) == term:
                key = (-int(df[found]), term)
                best = key if best is None or key < best else best
            break
    return best[1] if best is not None else None
