"""The query-analysis stages on the BM25F core, and the tool names a query holds.

* ``stemming``: Snowball English on ASCII words over 3 letters.
* ``exact_forms``: words as written also match as written, at ``exact_weight``
  (Lucene's ``KeywordRepeatFilter``).
* ``request_words``: request framing (``could``, ``help``) counts ``request_weight``
  (Bendersky & Croft 2008).
* ``values``: numbers, day and month words count ``number_weight``; a typed value
  adds its parameter word at ``value_type_weight`` (``_analysis.value_terms``); a
  URL or domain counts in full for the tools taking a URL, its words as numbers.
* ``content_match``: with a content word in the query, weak words (request, date,
  function words) never make a hit alone (:func:`weak_terms`).
* ``name_words``: the words ending a tool's name close ``name_words_lift`` of the
  gap to the exact-name floor (:class:`NameMatcher`).
* ``spelling``: when nothing is found, unknown words are joined, split or corrected
  (:class:`SpellingFallback`), at ``spelling_weight``.

Each stays because it helps on data it was not tuned on (``docs/benchmarks.md``).

The spelling fallback, in the style of Lucene's ``SpellChecker``, for unknown
query words (``naviagte``, ``websearch``): joins of two neighbouring words,
then per word the first that finds terms of: a tool name's last 2 to
:data:`MAX_PARTS` words run together (``addissueocmment``), a split into
library terms (fewest parts first), a correction by optimal-string-alignment
distance within ``Fuzziness.AUTO`` (1 edit for 3-5 letters, 2 above; ties to
the closer whole word, more tools, then alphabetically). Bounded: ASCII words
of 3 to 24 letters, 4 words a query, :data:`MAX_CANDIDATES` distances a word,
bigrams of over :data:`MAX_POSTINGS` terms skipped; tables built on first use.
With the stage on, a word and particle the library writes as one are read
closed (``set up``, ``set-up``: ``setup``; :func:`close_compounds`). The fixes
(:func:`spelling_fixes`) count always for a closed word the library writes
apart (``signoff``: ``sign``, ``off``; in full) and for a join of a word and a
weak word; a one-edit fix keeping the first letter (``clikc``: ``click``)
counts in full, the others ``spelling_weight``. All of them count for a query of at
most :data:`SHORT_NEED` content words whose first is unknown (``clikc on the
link``), or when a query with an unknown word finds nothing. There, a word one
edit from a library word as written, its first letter kept
(:meth:`SpellingFallback.respell`: ``clikc``, ``mege``; of 4 letters a swap or
a letter left out, of 3 none: :func:`_slip`), stands as that word:
the index ranks the query respelled (:func:`respelled`), every stage seeing the word.

Names: :class:`NameMatcher` finds exact keys, names as written, words ending a
name and stopword pairs in a query; :class:`NameSuggester` gives bounded "did
you mean" suggestions for tool names the model got wrong (every step capped:
well under a millisecond at 100,000 tools).
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import partial
from itertools import chain, islice, pairwise
from operator import add, itemgetter
from string import ascii_lowercase
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search._analysis import (
    DATE_WORDS,
    FUNCTION_WORDS,
    PARTICLES,
    REQUEST_WORDS,
    STOPWORDS,
    BatchTokenizer,
    bigram_table,
    close_compounds,
    stem,
    tokenize,
)
from langchain_toolsearch.search._protocol import ToolDocument, name_key, searchable_names


@dataclass(frozen=True)
class SearchStages:
    """Which query-analysis stages run (module doc), and their weights in ``[0, 1]``.

    Weights are shares of a written query term's weight.

    Raises:
        ToolSearchConfigError: If a weight is outside ``[0, 1]``.
    """

    stemming: bool = True
    exact_forms: bool = True
    request_words: bool = True
    values: bool = True
    content_match: bool = True
    name_words: bool = True
    spelling: bool = True

    exact_weight: float = 0.25
    """A word matched as written, on top of its stem's match."""
    request_weight: float = 0.25
    """A request word (``could``, ``help``, ``looking``)."""
    number_weight: float = 0.2
    """A number, or a day or month word."""
    value_type_weight: float = 0.5
    """A typed value's parameter word (``date`` for ``April 22nd``)."""
    name_words_lift: float = 0.5
    """Share of the gap to the exact-name floor closed for a name said word for word."""
    spelling_weight: float = 0.7
    """A split, joined or two-edit word (a correct word always outweighs it); a one-edit
    typo's fix and a compound's other form (``setup`` of ``set up``) count in full."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                msg = f"SearchStages.{f.name} must be in [0, 1], got {value!r}"
                raise ToolSearchConfigError(msg)

    @classmethod
    def core(cls) -> SearchStages:
        """Every stage off: plain BM25F with exact names."""
        return cls(**dict.fromkeys(STAGE_NAMES, False))

    def without(self, *names: str) -> SearchStages:
        """A copy with the named stages off; ``ToolSearchConfigError`` for an unknown name."""
        return replace(self, **dict.fromkeys(_known(names), False))

    def only(self, *names: str) -> SearchStages:
        """A copy with only the named stages on; ``ToolSearchConfigError`` for an unknown name."""
        return self.without(*STAGE_NAMES).with_(*names)

    def with_(self, *names: str) -> SearchStages:
        """A copy with the named stages on; ``ToolSearchConfigError`` for an unknown name."""
        return replace(self, **dict.fromkeys(_known(names), True))


STAGE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SearchStages) if f.type == "bool")
"""The switchable stages, in the order they act on a query."""


def _known(names: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [n for n in names if n not in STAGE_NAMES]
    if unknown:
        msg = f"unknown search stages {unknown}; the stages are {list(STAGE_NAMES)}"
        raise ToolSearchConfigError(msg)
    return names


# as query terms: stemmed (the stemming stage on) and as written (off)
_REQUEST_TERMS = (frozenset(map(stem, REQUEST_WORDS)), frozenset(REQUEST_WORDS))
_DATE_TERMS = (frozenset(map(stem, DATE_WORDS)), frozenset(DATE_WORDS))
_WEAK_TERMS = (
    _REQUEST_TERMS[0] | _DATE_TERMS[0] | frozenset(map(stem, FUNCTION_WORDS)),
    _REQUEST_TERMS[1] | _DATE_TERMS[1] | FUNCTION_WORDS,
)


def weights(
    terms: Sequence[str], stages: SearchStages, values: Collection[str] = ()
) -> list[float] | None:
    """Each query term's weight (terms stemmed with ``stemming`` on); ``None`` when all are 1.

    ``["multipli", "443"]`` -> ``[1.0, 0.2]``; ``["help", "weather"]`` -> ``[0.25, 1.0]``.
    ``values``: terms only of a value (a URL's words), weighted as numbers.
    """
    form = 0 if stages.stemming else 1
    dates = _DATE_TERMS[form] if stages.values else frozenset()
    requests = _REQUEST_TERMS[form] if stages.request_words else frozenset()
    number = stages.number_weight if stages.values else 1.0
    out = [
        number
        if (number != 1.0 and (t.isdigit() or t in values)) or t in dates
        else stages.request_weight
        if t in requests
        else 1.0
        for t in terms
    ]
    return out if any(w != 1.0 for w in out) else None


def weak_terms(terms: Sequence[str], stages: SearchStages) -> list[bool] | None:
    """Per query term, whether it cannot make a hit alone (``content_match``).

    Weak: a day or month, request or function word (not a number: ``HTTP 404``).
    ``None`` with the stage off, or no weak or no content term (``tell me more``).
    ``["more", "about", "jazz"]`` -> ``[True, True, False]``.
    """
    if not stages.content_match:
        return None
    weak = _WEAK_TERMS[0 if stages.stemming else 1]
    flags = [t in weak for t in terms]
    return flags if any(flags) and not all(flags) else None


def is_weak(word: str) -> bool:
    """Whether a lowercase, unstemmed word is a request, date or function word."""
    return word in _WEAK_TERMS[1]


MAX_NAME_CHARS = 128
"""Longer asked names get no suggestions."""

_SEPARATORS = re.compile(r"[\s_\-./:]+")
_LOWER_NAME = re.compile(r"[a-z_.\-]+")
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")
_NAME_WORDS = 6  # words of the asked name used
_MAX_SCAN = 5_000  # names of the rarest word checked for the other words
_NEAR_NAMES = 6  # names compared on each side of the asked one, in each sort order
_MIN_RATIO = 0.8  # difflib ratio of a near spelling


def fold_name(name: str) -> str:
    """Lowercase without separators: ``Create-Issue``, ``createIssue`` -> ``createissue``."""
    plain = name.replace("_", "").replace("-", "")
    if plain.isascii() and plain.isalnum():  # most names: no regex
        return plain.lower()
    return _SEPARATORS.sub("", name.strip().lower())


def name_words(name: str) -> list[str]:
    """Lowercase words of a name: ``getWeather_now`` -> ``get``, ``weather``, ``now``."""
    if _LOWER_NAME.fullmatch(name):  # most names: split without a word regex
        return [w for w in name.replace("-", "_").replace(".", "_").split("_") if w]
    return [w.lower() for w in _WORDS.findall(name)]


class NameSuggester:
    """Suggestions over a fixed set of names, from maps and sorted lists built on first use.

    Args:
        names: ``(name to suggest, other spellings of it)`` pairs (a provider-safe
            name with the original), read now.
    """

    def __init__(self, names: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._entries: list[tuple[str, Sequence[str]]] | None = list(names)
        self._lock = threading.Lock()

    def _tables(self) -> None:
        """Build the maps once, under a lock (most libraries are never asked for a name)."""
        if self._entries is None:
            return
        with self._lock:
            if self._entries is not None:
                self._build(self._entries)
                self._entries = None

    def _build(self, names: list[tuple[str, Sequence[str]]]) -> None:
        entries = sorted(names, key=itemgetter(0))
        self._folded: dict[str, list[str]] = {}
        self._by_word: dict[str, list[str]] = {}
        self._folds_of: dict[str, tuple[str, ...]] = {}
        folded_names, by_word = self._folded, self._by_word
        for name, others in entries:
            if others:
                forms = (name, *others)
                folds = tuple(dict.fromkeys(map(fold_name, forms)))
                words = dict.fromkeys(w for form in forms for w in name_words(form))
            else:  # the common case, faster
                plain = name.replace("_", "").replace("-", "")
                if plain.isascii() and plain.isalpha() and plain.islower():  # get_weather
                    folds = (plain,)  # = fold_name(name), and the words are the parts
                    words = dict.fromkeys(name.replace("-", "_").split("_"))
                    words.pop("", None)
                else:
                    folds = (fold_name(name),)
                    words = dict.fromkeys(name_words(name))
            self._folds_of[name] = folds
            for folded in folds:
                folded_names.setdefault(folded, []).append(name)
            for word in words:
                by_word.setdefault(word, []).append(name)
        self._forward = sorted(self._folded)
        self._backward = sorted(f[::-1] for f in self._folded)

    def _containing(self, needle: str, words: list[str], limit: int) -> list[str]:
        """The first ``limit`` of the rarest word's names whose folded form holds ``needle``."""
        postings = [self._by_word.get(w, []) for w in words]
        if not postings or not all(postings):
            return []
        rarest = min(postings, key=len)
        found: list[str] = []
        for name in islice(rarest, _MAX_SCAN):
            if any(needle in folded for folded in self._folds_of[name]):
                found.append(name)
                if len(found) >= limit:
                    break
        return found

    def _prefixed(self, needle: str, limit: int) -> list[str]:
        """Names whose folded form starts with ``needle`` (``weath``)."""
        found: list[str] = []
        order = self._forward
        at = bisect.bisect_left(order, needle)
        for folded in order[at : at + limit]:  # a slice: islice would step over order[:at]
            if not folded.startswith(needle):
                break
            found.extend(self._folded[folded])
        return found

    def _contained(self, words: list[str]) -> list[str]:
        """Names that are a run of the asked words (``get_weather_now`` -> ``get_weather``)."""
        found: list[str] = []
        for start in range(len(words)):
            for end in range(start + 1, len(words) + 1):
                if end - start < len(words):
                    found.extend(self._folded.get("".join(words[start:end]), []))
        return found

    def _near(self, needle: str) -> list[str]:
        """Near spellings: difflib ratio >= 0.8 among sorted neighbours, best first."""
        ratios: dict[str, float] = {}
        for order, key, backwards in (
            (self._forward, needle, False),
            (self._backward, needle[::-1], True),
        ):
            at = bisect.bisect_left(order, key)
            for near in order[max(at - _NEAR_NAMES, 0) : at + _NEAR_NAMES]:
                if abs(len(near) - len(needle)) > 3:
                    continue
                matcher = difflib.SequenceMatcher(None, key, near)
                if matcher.quick_ratio() < _MIN_RATIO:
                    continue
                ratio = matcher.ratio()
                if ratio < _MIN_RATIO:
                    continue
                for name in self._folded[near[::-1] if backwards else near]:
                    if ratio > ratios.get(name, 0.0):
                        ratios[name] = ratio
        return sorted(ratios, key=lambda n: (-ratios[n], n))

    def suggest(self, name: str, *, limit: int = 5) -> list[str]:
        """At most ``limit`` names holding ``name``'s words or held in it (sorted), then near ones.

        None for a name under 3 (folded) or over 128 characters.
        """
        if len(name) > MAX_NAME_CHARS or limit < 1:
            return []
        needle = fold_name(name)
        if len(needle) < 3:
            return []
        self._tables()
        words = list(dict.fromkeys(name_words(name)))[:_NAME_WORDS]
        hits = dict.fromkeys(self._folded.get(needle, []))
        hits.update(dict.fromkeys(self._containing(needle, words, limit)))
        hits.update(dict.fromkeys(self._prefixed(needle, limit)))
        hits.update(dict.fromkeys(self._contained(words)))
        first = sorted(hits)[:limit]
        if len(first) < limit:
            first.extend(n for n in self._near(needle) if n not in hits)
        return first[:limit]


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


def _edits(word: str) -> Iterator[str]:
    """The strings one drop, swap, insert or substitution from ``word``, its first letter kept."""
    for at in range(1, len(word) + 1):
        head, tail = word[:at], word[at:]
        if tail:
            yield head + tail[1:]
            yield head + tail[1:2] + tail[:1] + tail[2:]
        for letter in ascii_lowercase:
            yield head + letter + tail
            yield head + letter + tail[1:]


def _bigrams(word: str) -> set[str]:
    return set(map(add, f"^{word}", f"{word}$"))  # each character and the next


class _Once(Generic[_T]):
    """A table built once on first use (under a lock)."""

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
                    self._value = self._build()
                    self._build = None  # what it read is not kept
                value = self._value
        return value


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
        self._grams = _Once(partial(bigram_table, vocab, _MIN_CHARS, _MAX_CHARS))
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

    def unjoined(self, word: str) -> list[str]:
        """An unknown word's head and particle the library writes apart (``signoff``), or ``[]``."""
        if self._analyse(word) in self._vocab:
            return []
        for particle in PARTICLES[:6]:  # not "in", "on": "lesson" is no "less on"
            lead = word[: -len(particle)]  # a content word: "without" is no "with out"
            head, stop = self._analyse(lead), is_weak(lead) or lead in STOPWORDS
            if word.endswith(particle) and _word(head) and head in self._vocab and not stop:
                return [t for t in (head, self._analyse(particle)) if t in self._vocab]
        return []

    def respell(self, word: str) -> str | None:
        """The library word one edit from an unknown ``word`` as :func:`_slip` allows, or ``None``.

        On the words as written (``mege``: ``merge``, though the stems ``mege`` and
        ``merg`` are two apart). Ties: the word of :meth:`correct`'s term, the term
        in more tools, then alphabetically.
        """
        if not _word(word) or self._analyse(word) in self._vocab:
            return None
        found: dict[str, str] = {}
        for edit in sorted(set(_edits(word))):
            term = self._analyse(edit)
            if term in self._vocab and _slip(word, edit):
                found.setdefault(term, edit)
        if len(found) < 2:
            return next(iter(found.values()), None)
        first = self.correct(word)
        return found[min(found, key=lambda t: (t != first, -self._df_of(t), found[t]))]

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
        words_of: dict[str, tuple[str, ...]] = {}  # ending -> its name's words (one per name)
        keep = words_of.setdefault
        for name in names:
            if name[-1:] in _DIGITS:  # "get_items_v2": no ending
                continue
            split = name_words(name)
            if len(split) < 2 or not split[-1].isalpha():  # one word ends no name of two
                continue
            words, joined = tuple(split), split[-1]
            for word in reversed(words[-MAX_PARTS:-1]):
                joined = word + joined
                if not word.isalpha() or len(joined) > _MAX_RUN:  # so are longer endings
                    break
                if len(joined) >= 2 * _MIN_CHARS:
                    keep(joined, words)
        self._words_of = words_of
        self._forwards = sorted(words_of)
        self._backwards = sorted([joined[::-1] for joined in words_of])

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


def _slip(term: str, fix: str) -> bool:
    """Whether ``fix`` is one edit from ``term``, the first letter kept (a typo rarely hits it).

    Of 4 letters, only a swap or a letter left out (``boko``, ``mege``; ``Paul`` is no
    ``pull``); of 3, none (``bob``, ``tim``: a name as often as a typo).
    """
    short = len(term) < 5 and not Counter(term) <= Counter(fix)
    return len(term) > 3 and not short and term[:1] == fix[:1] and distance(term, fix, 1) <= 1


def spelling_fixes(
    spelling: SpellingFallback,
    vocab: dict[str, int],
    query: str,
    terms: Sequence[str],
    found: Callable[[], bool],
) -> tuple[dict[str, bool], dict[str, str]]:
    """The library terms the ``spelling`` stage adds to ``query`` (none of ``terms``), and typos.

    Each term with whether it counts in full (:attr:`SearchStages.spelling_weight`);
    the typos' words with the library words they stand for (:meth:`SpellingFallback.respell`).
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
    out = dict.fromkeys(found_terms, False)
    apart = (t for w in every for t in spelling.unjoined(w))  # "signoff": sign, off
    out.update(dict.fromkeys(apart, True))  # a compound's other form stands for it in full
    unknown = [t for t in terms if t not in vocab]
    typos: dict[str, str] = {}
    if unknown:
        # a request or function word is no misspelling ("let" is not "get")
        words = [w for w in _ascii_words(query, keep_stopwords=False) if not weak(w)]
        lead_unknown = bool(terms) and terms[0] not in vocab and len(words) <= SHORT_NEED
        if lead_unknown or not found():
            for fix in spelling.fixes(words):  # a one-edit typo's fix counts in full
                out.setdefault(fix, any(_slip(t, fix) for t in unknown))
            if len(unknown) <= _MAX_WORDS:  # a typo stands as its word in every stage
                typos = {w: to for w in dict.fromkeys(words) if (to := spelling.respell(w))}
    return {t: full for t, full in out.items() if t not in terms}, typos


def respelled(query: str, typos: Mapping[str, str]) -> str:
    """``query`` with the words of ``typos`` as they stand (``Clikc on`` -> ``click on``)."""
    if not typos:
        return query
    words = "|".join(map(re.escape, typos))
    pattern = re.compile(rf"(?<![^\W_])(?:{words})(?![^\W_])", re.IGNORECASE)
    return pattern.sub(lambda m: typos[m.group().lower()], query)


_MAX_ENDINGS = 5_000  # names sharing the query's last word checked
_MAX_REORDERED = 4  # most query words matched to a name's last words in any order
_QUERY_CHUNKS = re.compile(r"[\s,;'\"`()\[\]{}<>!?]+")
# identifier-like: inner separators (get_weather, weather.get, files/read), letters next to
# digits (v2), or lowerCamelCase (getWeather; "GitHub" in prose is a brand, not a name)
_IDENTIFIER = re.compile(r"[^\W_][_\-./:]+[^\W_]|[^\W\d_]\d|\d[^\W\d_]|^[a-z]+[A-Z]")


def literal(text: str) -> str:
    """A name or query as written, ignoring case and surrounding space."""
    if text.isascii():  # NFKC and casefold: as is and lower on ASCII
        return text.strip().lower()
    return unicodedata.normalize("NFKC", text).strip().casefold()


class NameMatcher:
    """The tool names of one library, matched against queries; immutable, thread-safe.

    Args:
        documents: One per tool, in index order (hits are positions in it).
        memo: The build's tokenizer.
    """

    def __init__(self, documents: Sequence[ToolDocument], memo: BatchTokenizer) -> None:
        self._name_keys: dict[str, tuple[int, ...]] = {}  # tuples: no work for the collector
        self._literal_names: dict[str, tuple[int, ...]] = {}
        endings: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        pairs: set[tuple[str, str]] = set()
        self._words: list[tuple[str, ...]] = []  # name words per doc
        name_keys, literal_names = self._name_keys, self._literal_names
        for i, doc in enumerate(documents):
            words: tuple[str, ...] = ()
            for name in searchable_names(doc):
                terms = memo.tokenize_name(name)
                if not STOPWORDS.isdisjoint(terms):
                    pairs.update(
                        (a, b) for a, b in pairwise(terms) if a in STOPWORDS or b in STOPWORDS
                    )
                phrase = memo.name_phrase(name)
                words = phrase if not words else (*words, *phrase)
                if len(phrase) >= 2:
                    endings.setdefault(phrase[-1], []).append((i, phrase))
            if doc.aliases:
                all_names = list(dict.fromkeys((doc.name, *doc.aliases)))
                keys = list(dict.fromkeys(map(name_key, all_names)))
                written_names = list(dict.fromkeys(map(literal, all_names)))
            else:  # most tools: one name
                keys, written_names = [name_key(doc.name)], [literal(doc.name)]
            for key in keys:
                if key:
                    name_keys[key] = (*name_keys.get(key, ()), i)
            for written in written_names:
                literal_names[written] = (*literal_names.get(written, ()), i)
            self._words.append(words)
        longest_first = partial(sorted, key=lambda hit: -len(hit[1]))  # a search stops at shorter
        self._endings = {word: tuple(longest_first(hits)) for word, hits in endings.items()}
        self._name_pairs = frozenset(pairs)
        self.terms = frozenset(chain.from_iterable(self._words))
        """Every word of the tools' names (``name_phrase``)."""

    def content_terms(self, every: list[str]) -> list[str]:
        """The distinct terms of ``every`` to score (``BM25ToolIndex.query_terms``)."""
        if all(t in STOPWORDS for t in every):
            return []
        pairs = self._name_pairs
        last = len(every) - 1
        terms = [
            t
            for i, t in enumerate(every)
            if t not in STOPWORDS
            or (i > 0 and (every[i - 1], t) in pairs)
            or (i < last and (t, every[i + 1]) in pairs)
        ]
        return list(dict.fromkeys(terms))

    def coverage(self, docs: Sequence[int], words: Sequence[str]) -> list[float]:
        """Per doc of ``docs``, the share of its name's distinct words among ``words``."""
        asked = set(words)
        names = [set(self._words[i]) for i in docs]
        return [len(name & asked) / max(len(name), 1) for name in names]

    def ending_docs(self, words: tuple[str, ...]) -> list[int]:
        """Docs whose name is or ends with exactly ``words`` (2 to 4 also in another order).

        ``("create", "issue")``: ``github__create_issue``, not ``create_issue_comment``.
        ``words`` are a query's ``name_phrase``; at most 5,000 names, longest first.
        """
        if not words or STOPWORDS.issuperset(words):
            return []
        size = len(words)
        core = tuple(w for w in words if w not in STOPWORDS)  # "create a pull request"
        hits: dict[int, None] = {}
        for i, phrase in self._endings.get(words[-1], ())[:_MAX_ENDINGS]:
            if len(phrase) < len(core):  # this and the rest (shorter) cannot end in the words
                break
            if len(phrase) >= size and phrase[-size:] == words:
                hits[i] = None
            elif core != words:
                bare = (
                    phrase
                    if STOPWORDS.isdisjoint(phrase)  # most names: no tuple made
                    else tuple(w for w in phrase if w not in STOPWORDS)
                )
                if len(bare) >= len(core) and bare[-len(core) :] == core:
                    hits[i] = None
        if 2 <= len(core) <= _MAX_REORDERED and len(set(core)) == len(core):
            hits.update(dict.fromkeys(self._reordered(core)))
        return list(hits)

    def _reordered(self, core: tuple[str, ...]) -> list[int]:
        """Docs whose name ends with ``core``'s words in another order (``issue.create``)."""
        asked = sorted(core)
        size = len(core)
        found: list[int] = []
        for last in dict.fromkeys(core):
            for i, phrase in self._endings.get(last, ())[:_MAX_ENDINGS]:
                if len(phrase) < size:
                    break
                if phrase[-2] in core and sorted(phrase[-size:]) == asked:
                    found.append(i)
        return found

    def exact_docs(self, query: str) -> list[int]:
        """Docs named by the query or an identifier in it, punctuation aside, unless named exactly.

        ``weather.get`` names ``weather.get`` where a tool is so named, else ``weather_get``.
        """
        if not self._name_keys:
            return []
        named = self._literal_names
        hits: dict[int, None] = {}
        keys: list[str] = []
        chunks = [c for c in _QUERY_CHUNKS.split(query) if c and _IDENTIFIER.search(c)]
        for text in (query, close_compounds(query), *chunks):
            exact = named.get(literal(text))
            if exact:  # the name as written: not its punctuation twins
                hits.update(dict.fromkeys(exact))
            else:
                keys.append(text)
        for key in dict.fromkeys(map(name_key, keys)):
            found = self._name_keys.get(key)
            if found:
                hits.update(dict.fromkeys(found))
        return list(hits)

    def literal_docs(self, query: str) -> tuple[int, ...] | None:
        """Docs with a name exactly as ``query`` is written (case and surrounding space aside)."""
        return self._literal_names.get(literal(query))
