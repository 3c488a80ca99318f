"""The spelling fallback: library terms within a couple of edits, or a split or joined word.

In the style of Lucene's ``SpellChecker``, for unknown query words (``naviagte``,
``websearch``): joins of two neighbouring words, then per word the first that
finds terms of: a tool name's last 2 to :data:`MAX_PARTS` words run together
(``addissueocmment``), a split into library terms (fewest parts first), a
correction by optimal-string-alignment distance within ``Fuzziness.AUTO`` (1
edit for 3-5 letters, 2 above; ties to the closer whole word, more tools, then
alphabetically). Bounded: ASCII words of 3 to 24 letters, 4 words a query,
:data:`MAX_CANDIDATES` distances a word, bigrams of over :data:`MAX_POSTINGS`
terms skipped; tables built on first use.

The fixes count (:func:`spelling_fixes`) always for a word and particle the
library writes as one (``set up``: ``setup``); all of them for a query of at most
:data:`SHORT_NEED` content words whose first is unknown (``clikc on the link``),
or when a query with an unknown word finds nothing.
"""

from __future__ import annotations

import bisect
import itertools
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from operator import itemgetter
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from langchain_toolsearch._support import collector_paused
from langchain_toolsearch.search.stages import is_weak
from langchain_toolsearch.search.suggest import name_words
from langchain_toolsearch.search.tokenize import tokenize

__all__ = [
    "MAX_CANDIDATES",
    "MAX_PARTS",
    "MAX_POSTINGS",
    "SHORT_NEED",
    "SpellingFallback",
    "distance",
    "spelling_fixes",
]

MAX_CANDIDATES = 64
"""Most edit distances computed per unknown word."""
MAX_POSTINGS = 2_000
"""Bigrams held by more library terms than this are not used to find candidates."""
_MIN_CHARS = 3
_MAX_CHARS = 24
_MAX_WORDS = 4
MAX_PARTS = 6
"""Most library terms one run-together word is split into."""
_MIN_PART = 2  # letters of a part of a split ("to" in "addcommenttopendingreview")
_MAX_RUN = 48  # letters of a run-together word split (a whole tool name)
_SUFFIX = 3  # letters a stem may lack of its word ("navig" of "navigate")
_DIGITS = "0123456789"
_TERM_WORDS = re.compile(rf"^[A-Za-z]{{{_MIN_CHARS},{_MAX_CHARS}}}$", re.MULTILINE)
_T = TypeVar("_T")
_NEIGHBOURS = 32  # name endings compared on each side of a run-together word, per sort order


def distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance, or ``limit + 1`` above it (Ukkonen's diagonal band)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    over = limit + 1  # every value above limit is held as over
    width = len(b) + 1
    prev2: list[int] = []
    prev: list[int] = [*range(min(width, over)), *[over] * (width - over)]
    for i, ca in enumerate(a, 1):
        row = [over] * width
        if i <= limit:
            row[0] = i
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            cb = b[j - 1]
            best = prev[j - 1] if ca == cb else prev[j - 1] + 1
            if prev[j] < best:
                best = prev[j] + 1
            if row[j - 1] < best:
                best = row[j - 1] + 1
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb and prev2[j - 2] < best:
                best = prev2[j - 2] + 1
            row[j] = best if best < over else over
        if min(row) > limit:
            return over
        prev2, prev = prev, row
    return prev[-1]


def _budget(word: str) -> int:
    """Lucene's automatic fuzziness: 1 edit for 3 to 5 letters, 2 above."""
    return 1 if len(word) <= 5 else 2


def _bigrams(word: str) -> set[str]:
    padded = f"^{word}$"
    return {padded[i : i + 2] for i in range(len(padded) - 1)}


class _Once(Generic[_T]):
    """A table built once on first use (under a lock, the cyclic collector paused)."""

    def __init__(self, build: Callable[[], _T]) -> None:
        self._build: Callable[[], _T] | None = build
        self._value: _T | None = None
        self._lock = threading.Lock()

    def get(self) -> _T:
        """The table."""
        value = self._value
        if value is None:
            with self._lock:
                if self._value is None:
                    assert self._build is not None
                    with collector_paused():
                        self._value = self._build()
                    self._build = None  # what it read is not kept
                value = self._value
        return value


def _grams(vocab: Iterable[str]) -> dict[str, list[str]]:
    """The library terms of 3 to 24 ASCII letters by character bigram."""
    built: dict[str, list[str]] = {}
    for term in _TERM_WORDS.findall("\n".join(vocab)):  # terms hold no line breaks
        for gram in _bigrams(term):
            built.setdefault(gram, []).append(term)
    return built


def _word(word: str) -> bool:
    return _MIN_CHARS <= len(word) <= _MAX_CHARS and word.isascii() and word.isalpha()


def _run_word(word: str) -> bool:
    """Whether ``word`` may be words run together (6 to 48 ASCII letters)."""
    return 2 * _MIN_CHARS <= len(word) <= _MAX_RUN and word.isascii() and word.isalpha()


class SpellingFallback:
    """Library terms near unknown query words (module doc); thread-safe.

    Args:
        vocab: Term -> term id of the index.
        df: Tools per term id.
        analyse: The index's term of one word (stemmed with ``stemming`` on).
        names: The tool names the model can write, read on first use.
    """

    def __init__(
        self,
        vocab: Mapping[str, int],
        df: Sequence[int] | npt.NDArray[np.int64],
        analyse: Callable[[str], str],
        names: Callable[[], Iterable[str]] = tuple,
    ) -> None:
        self._vocab = vocab
        self._df = df
        self._analyse = analyse
        self._grams = _Once(partial(_grams, vocab))
        self._endings = _Once(lambda: _Endings(names()))

    def run_together(self, word: str) -> list[str]:
        """The library terms of the tool name ``word`` runs together (a typo allowed), or ``[]``.

        ``addissueocmment`` -> add, issu, comment, ``add_issue_comment`` (where
        the library has them); the closest ending wins, then alphabetically.
        """
        if not _run_word(word):
            return []
        words = self._endings.get().nearest(word, _budget(word))
        if not words:
            return []
        terms = [self._analyse(w) for w in words] + ["_".join(words), "".join(words)]
        return [t for t in dict.fromkeys(terms) if t in self._vocab]

    def _df_of(self, term: str) -> int:
        return int(self._df[self._vocab[term]])

    def correct(self, word: str) -> str | None:
        """The library term closest to ``word``'s index term within the edit budget, or ``None``."""
        term = self._analyse(word)
        if not _word(term):
            return None
        limit = _budget(word)
        grams = self._grams.get()
        shared: Counter[str] = Counter()
        for gram in sorted(_bigrams(term)):  # a set's order is per process: it orders ties
            postings = grams.get(gram, ())
            if len(postings) <= MAX_POSTINGS:
                shared.update(postings)
        best: tuple[int, int, int, str] | None = None
        need = max(len(term) + 1 - 3 * limit, 1)  # bigrams kept by `limit` edits (a swap: 3)
        size = len(term)
        near = [  # sharing enough bigrams, of a length within the budget (or a stem)
            (candidate, count)
            for candidate, count in shared.items()
            if count >= need
            and -limit - _SUFFIX <= len(candidate) - size <= limit
            and candidate != term
        ]
        near.sort(key=itemgetter(1), reverse=True)  # most shared first, ties as most_common
        for candidate, _ in near[:MAX_CANDIDATES]:
            cut = size - len(candidate)
            whole = found = distance(term, candidate, limit)
            if cut > 0:  # a stem is the start of a word: "naviagte" against "navig"
                found = min(found, distance(term[: len(candidate)], candidate, limit) + 1)
            if found <= limit:  # equally close: the closer whole word ("databas", not "data")
                key = (found, whole, -self._df_of(candidate), candidate)
                best = key if best is None or key < best else best
        return best[3] if best is not None else None

    def split(self, word: str) -> tuple[str, ...] | None:
        """Library terms ``word`` runs together, fewest parts first (``websearch`` -> web, search).

        Ties: the split whose rarest part is in most tools, then alphabetically.
        Words of 6 to 48 ASCII letters; parts of 2 (in two parts: 3) to 24 letters.
        """
        if not _run_word(word):
            return None
        # best[i]: the best split of word[:i] as (parts, -fewest tools of a part, terms)
        best: list[tuple[int, int, tuple[str, ...]] | None] = [None] * (len(word) + 1)
        best[0] = (0, -(2**62), ())
        for end in range(_MIN_PART, len(word) + 1):
            for start in range(max(0, end - _MAX_CHARS), end - _MIN_PART + 1):
                head = best[start]
                if head is None or head[0] >= MAX_PARTS or (start == 0 and end == len(word)):
                    continue
                term = self._analyse(word[start:end])
                if term not in self._vocab:
                    continue
                key = (head[0] + 1, max(head[1], -self._df_of(term)), (*head[2], term))
                if best[end] is None or key < best[end]:  # type: ignore[operator]
                    best[end] = key
        found = best[-1]
        # two parts: both of 3 letters or more ("pr" + "icing" is no split)
        if found is None or (found[0] == 2 and min(map(len, found[2])) < _MIN_CHARS):
            return None
        return found[2]

    def joins(self, words: Sequence[str]) -> list[str]:
        """Library terms that are two neighbouring ``words`` written as one (``setup``)."""
        joined = (self._analyse(a + b) for a, b in itertools.pairwise(words) if _word(a + b))
        return [term for term in joined if term in self._vocab]

    def fixes(self, words: Sequence[str]) -> list[str]:
        """Distinct library terms for the unknown of ``words`` (lowercase, no stopwords; 4 tried).

        Joins of neighbours, then per word: a run-together name, else a split, else a correction.
        """
        out = self.joins(words)
        vocab = self._vocab
        unknown = [w for w in dict.fromkeys(words) if self._analyse(w) not in vocab]
        for word in unknown[:_MAX_WORDS]:
            # a name run together says more than a split ("isuse": "is" + "use"), a split
            # more than a fix unless it needs two-letter parts ("serach": not "se" + "ra" + "ch")
            parts = self.run_together(word)
            split = () if parts else self.split(word)
            if split and min(map(len, split)) >= _MIN_CHARS:
                parts = list(split)
            if parts:
                out.extend(parts)
                continue
            fixed = self.correct(word)
            if fixed is not None:
                out.append(fixed)
            elif split:  # fragments, and no fix: "addcommenttopendingreview" has "to"
                out.extend(split)
        return list(dict.fromkeys(out))


class _Endings:
    """Tool names' last 2 to :data:`MAX_PARTS` words run together (6-48 letters), both ways."""

    def __init__(self, names: Iterable[str]) -> None:
        words_of: dict[str, list[str]] = {}  # ending -> its name's words (one list per name)
        keep = words_of.setdefault
        for name in names:
            if name[-1:] in _DIGITS:  # "get_items_v2": no ending
                continue
            words = name_words(name)
            joined = words[-1] if words else ""
            if not joined.isalpha():
                continue
            for word in reversed(words[-MAX_PARTS:-1]):
                joined = word + joined
                if not word.isalpha() or len(joined) > _MAX_RUN:  # so are longer endings
                    break
                if len(joined) >= 2 * _MIN_CHARS:
                    keep(joined, words)
        self._words_of = words_of
        self._forwards = sorted(words_of)
        self._backwards = sorted(joined[::-1] for joined in words_of)

    def nearest(self, word: str, limit: int) -> tuple[str, ...]:
        """The words of the ending closest to ``word`` within ``limit`` edits, or ``()``."""
        near: set[str] = set()
        orders = ((self._forwards, word, False), (self._backwards, word[::-1], True))
        for order, key, flip in orders:
            at = bisect.bisect_left(order, key)
            for found in order[max(0, at - _NEIGHBOURS) : at + _NEIGHBOURS]:
                near.add(found[::-1] if flip else found)
        best: tuple[int, str] | None = None
        for joined in near:
            gap = distance(word, joined, limit)
            if gap <= limit and (best is None or (gap, joined) < best):
                best = (gap, joined)
        if best is None:
            return ()
        words = self._words_of[best[1]]
        size = 2
        while len("".join(words[-size:])) < len(best[1]):  # the ending's own words
            size += 1
        return tuple(words[-size:])


SHORT_NEED = 4
"""Most content words of a query whose unknown first word is corrected although others match."""


def _ascii_words(query: str, *, keep_stopwords: bool) -> list[str]:
    words = tokenize(query, keep_stopwords=keep_stopwords, stemmed=False)
    return [w for w in words if w.isascii() and w.isalpha()]


def spelling_fixes(
    spelling: SpellingFallback,
    vocab: dict[str, int],
    query: str,
    terms: Sequence[str],
    found: Callable[[], bool],
) -> list[str]:
    """The distinct library terms the ``spelling`` stage adds to ``query``, none of ``terms``.

    ``terms`` are its content terms as the index analysed them; ``found()``
    says whether it has a hit already (called only when needed).
    """
    every = _ascii_words(query, keep_stopwords=True)
    weak = is_weak
    found_terms = [
        term
        for a, b in itertools.pairwise(every)
        if weak(a) != weak(b)  # a particle with its verb: "set up", "sign off", "log in"
        for term in spelling.joins((a, b))
        if not weak(term)
    ]
    if any(t not in vocab for t in terms):
        # a request or function word is no misspelling ("let" is not "get")
        words = [w for w in _ascii_words(query, keep_stopwords=False) if not weak(w)]
        lead_unknown = bool(terms) and terms[0] not in vocab and len(words) <= SHORT_NEED
        if lead_unknown or not found():
            found_terms.extend(spelling.fixes(words))
    return [t for t in dict.fromkeys(found_terms) if t not in terms]
