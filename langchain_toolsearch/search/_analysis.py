"""Text analysis: text -> search terms, chunk by chunk, through a bounded shared cache.

A chunk is letters and digits joined by ``_ - . / :``. It yields identifier
pieces (``addPerson`` -> add, person; ``HTTPServer`` -> http, server; ``v1``
-> v, 1, v1), the joined form (``get_weather``), short hyphen parts joined
(``e-mail`` -> email), Snowball stems, unaccented Latin forms, and for CJK
runs character bigrams plus lone characters (Lucene's ``CJKAnalyzer``), for
Thai, Lao, Khmer and Myanmar bigrams of grapheme clusters.

Chunks of at most 48 characters are analysed once into a cache of about
32 MiB; an index build memoises in a :class:`BatchTokenizer` of its own.
The English word lists
(stopwords, function, request and date words) are ASCII, lowercase, unstemmed.
Typed values (dates, times, e-mail addresses, URLs: :data:`VALUE_TYPES`) name
the parameter word a query lacks (:func:`value_terms`).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache, lru_cache, partial
from itertools import chain, pairwise
from operator import itemgetter
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import Stemmer  # type: ignore[import-not-found, import-untyped, unused-ignore]

if TYPE_CHECKING:
    from langchain_toolsearch.search._protocol import ToolDocument

STOPWORDS = frozenset(
    (  # noqa: SIM905 (word lists as text)
        "a am an and are as at be by can do does for from how i if in into is it its me my of on "
        "or our please should so that the their then there these this to us was we what when where "
        "which who will with would you your"
    ).split()
)
"""Dropped from queries and documents, never from names (``get_me`` keeps ``me``)."""

FUNCTION_WORDS = frozenset(
    (  # noqa: SIM905 (word lists as text)
        "about above after again against all any because been before being below between both but "
        "d did doing down during each few further had has having he her here hers herself him "
        "himself his itself ll m more most myself no nor not off once only other ought ours "
        "ourselves out over own re s same she such t than theirs them themselves they those "
        "through too under until up ve very were while whom why yours yourself yourselves"
    ).split()
)
"""The Snowball English stop list (snowballstem.org/algorithms/english/stop.txt) less
:data:`STOPWORDS` and :data:`REQUEST_WORDS`, plus contraction parts (``i'm`` -> ``m``).
Query terms that score but never make a hit alone (``content_match``)."""

REQUEST_WORDS: tuple[str, ...] = tuple(
    (  # noqa: SIM905 (word lists as text)
        "could help want need like tell know let hi hello hey thanks just also some have going "
        "looking trying wondering curious interested me"
    ).split()
)
"""Words framing a request (Bendersky & Croft 2008); ``me`` stands for ``i``, ``my``, ``myself``."""

DATE_WORDS: tuple[str, ...] = tuple(
    (  # noqa: SIM905 (word lists as text)
        "january february march april june july august september october november december monday "
        "tuesday wednesday thursday friday saturday sunday today tomorrow yesterday"
    ).split()
)
"""Day and month words, weighted like numbers (not ``may``: as often a modal verb)."""


SEPARATORS = re.compile(r"[_\-./:]+")
"""Identifier punctuation between the words of a name."""
CAMEL_PIECES = re.compile(r"[A-Z]+(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+|[A-Z]+|\d+", re.UNICODE)
"""camelCase pieces (``addPerson`` -> add, Person); case changes only between ASCII letters."""
_PLAIN = re.compile(r"[a-z]+")
_LOWER_SNAKE = re.compile(r"[a-z]+(?:[_\-./:]+[a-z]+)*")  # get_weather, list-issues
_HYPHENATED = re.compile(r"[^\W\d_]+-[^\W\d_]+")  # "e-mail", "to-do", "sign-in"
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")  # "PRs", "APIs": one word, not "P" + "Rs"
_CASE_OR_DIGIT = re.compile(r"[A-Z0-9]|\d")  # what camelCase splitting can act on

# Hiragana and Katakana, CJK Extension A, Unified Ideographs, Hangul syllables,
# compatibility ideographs, half-width Katakana, Extensions B-F
_CJK_CLASS = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0002fa1f"
)
# Thai, Lao, Myanmar, Khmer, Khmer symbols, Myanmar extended-A
_SPACELESS_CLASS = "\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\uaa60-\uaa7f"
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_RUN_CHAR = re.compile(f"[{_CJK_CLASS}{_SPACELESS_CLASS}]")
# a chunk's runs: (CJK run, spaceless-script run, anything else)
_RUNS = re.compile(
    f"([{_CJK_CLASS}]+)|([{_SPACELESS_CLASS}]+)|([^{_CJK_CLASS}{_SPACELESS_CLASS}]+)"
)


@cache
def _mark_ranges() -> tuple[tuple[int, int], ...]:
    """All combining marks (Mn, Mc, Me) as code point ranges (built on first use, ~10 ms)."""
    ranges: list[tuple[int, int]] = []
    for span in (range(0x0300, 0x20000), range(0xE0100, 0xE01F0)):
        categories = map(unicodedata.category, map(chr, span))
        for cp, category in zip(span, categories, strict=True):
            if category[0] != "M":
                continue
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    return tuple(ranges)


def _mark_class(astral: bool | None = None) -> str:
    """The combining marks as a regex class body: all, or those above U+FFFF or not."""
    ranges = [(lo, hi) for lo, hi in _mark_ranges() if astral is None or (hi > 0xFFFF) == astral]
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ranges)


@cache
def _mark_finders() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Patterns of one mark below and above U+FFFF (the first, a bitmap, is fast on any text)."""
    return re.compile(f"[{_mark_class(astral=False)}]"), re.compile(f"[{_mark_class(astral=True)}]")


def _has_marks(text: str) -> bool:
    """Whether ``text`` holds a combining mark (else ``_CHUNK`` reads it as ``marked_chunk``)."""
    below, above = _mark_finders()
    return below.search(text) is not None or (
        max(text, default="") > "\uffff" and above.search(text) is not None
    )


@cache
def marked_chunk() -> re.Pattern[str]:
    """The chunk pattern keeping combining marks inside words (non-ASCII text)."""
    letter = f"(?:[^\\W_]|[{_mark_class()}])"
    return re.compile(f"{letter}+(?:[_\\-./:]+{letter}+)*", re.UNICODE)


@cache
def _cluster() -> re.Pattern[str]:
    """One grapheme cluster, approximately: a character and the marks after it."""
    return re.compile(f".[{_mark_class()}]*", re.DOTALL)


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK character (written without spaces)."""
    return _CJK_CHAR.match(ch) is not None


def _pairs(units: list[str]) -> list[str]:
    """Bigrams of a run's characters or grapheme clusters (a lone one stays)."""
    return units if len(units) == 1 else [a + b for a, b in pairwise(units)]


@lru_cache(maxsize=4096)
def fold_accents(word: str) -> str | None:
    """The word without diacritics if that leaves ASCII letters (``résumé`` -> resume)."""
    if word.isascii():
        return None
    decomposed = unicodedata.normalize("NFKD", word)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    if folded.isascii() and folded.isalnum():
        return folded.lower()
    return None


_STEM_CACHE_CHARS = 32
_SNOWBALL = threading.local()  # a Snowball stemmer keeps state while it works: one per thread
_PRONOUNS = {"i": "me", "my": "me", "myself": "me"}


def _stem(word: str) -> str:
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    stemmer = getattr(_SNOWBALL, "stemmer", None)
    if stemmer is None:
        stemmer = _SNOWBALL.stemmer = Stemmer.Stemmer("english", 0)  # no cache: ours are
    stemmed: str = stemmer.stemWord(word)
    return stemmed


_cached_stem = lru_cache(maxsize=65536)(_stem)


def stem(word: str) -> str:
    """Snowball English stem of an ASCII word over 3 letters (``issues`` -> issu), else the word."""
    return _cached_stem(word) if len(word) <= _STEM_CACHE_CHARS else _stem(word)


def _analyse_word(word: str, stemmed: bool = True) -> tuple[str, ...]:
    """The terms of one lowercase word: its stem (or itself) and its accent fold's."""
    if word in _PRONOUNS:
        return (_PRONOUNS[word],)
    if word in STOPWORDS:
        return (word,)
    out: tuple[str, ...] = (_stem(word) if stemmed else word,)  # cached whole below
    if word.isascii():
        return out
    folded = fold_accents(word)
    if folded is not None and folded != word:
        out = (*out, *_analyse_word(folded, stemmed))
    return out


WordFn: TypeAlias = Callable[[str], tuple[str, ...]]
"""The terms of one lowercase word (its stem or itself, then its accent fold's)."""
STEMMED_WORD: WordFn = lru_cache(maxsize=65536)(_analyse_word)
"""A word's terms, stemmed."""
PLAIN_WORD: WordFn = lru_cache(maxsize=65536)(partial(_analyse_word, stemmed=False))
"""A word's terms as written, aligned one for one with :data:`STEMMED_WORD`'s."""

Analysed: TypeAlias = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
"""A chunk's terms (with joined forms), its words (without), and the terms' written forms.

The third is aligned with the first; it is the first itself when no written forms were asked.
"""


PARTICLES: tuple[str, ...] = ("up", "off", "out", "down", "over", "back", "in", "on")
"""Second words of compounds written closed, hyphenated or apart (``setup``, ``sign-off``)."""


def _compound(parts: list[str]) -> bool:
    """Whether two hyphen parts are one word: a part of at most 2 letters, or a particle."""
    return min(map(len, parts)) <= 2 or parts[1].lower() in PARTICLES


def _joined_hyphen(chunk: str, parts: list[str]) -> str | None:
    """``email`` of ``e-mail``, ``signoff`` of ``sign-off``: a compound's parts run together."""
    if len(parts) == 2 and _compound(parts) and _HYPHENATED.fullmatch(chunk):
        return (parts[0] + parts[1]).lower()
    return None


_HYPHEN_PAIR = re.compile(r"(?<![\w\-./:])([^\W\d_]+)-([^\W\d_]+)(?![\w\-]|[./:]\w)")
_SPACED_PAIR = re.compile(rf"(?<![\w\-./:])([^\W\d_]+) +({'|'.join(PARTICLES)})\b", re.I)


def close_compounds(text: str, known: Callable[[str], bool] | None = None) -> str:
    """``text`` with hyphenated compounds closed (``send e-mail`` -> ``send email``).

    With ``known``: only where ``known(closed form)``, and a word and particle too
    (``sign off`` -> ``signoff``) unless ``known(word_particle)`` (a name writes
    them apart, ``scroll_down``): a query as the library writes it.
    """

    def closed(m: re.Match[str]) -> str:
        joined = m[1] + m[2]
        hyphen = m[0][len(m[1])] == "-"
        fits = _compound([m[1], m[2]]) if hyphen else True
        if known is not None and not hyphen and known(f"{m[1]}_{m[2]}".lower()):
            return m[0]  # a name writes it apart too (scroll_down): read as typed
        return joined if fits and (known is None or known(joined.lower())) else m[0]

    text = _HYPHEN_PAIR.sub(closed, text)
    return text if known is None else _SPACED_PAIR.sub(closed, text)


def identifier_terms(chunk: str, word: WordFn, plain: WordFn | None = None) -> Analysed:
    """:data:`Analysed` of a chunk without CJK, stopwords kept; written forms by ``plain``.

    The second tuple is the same object as the first when there are no joined forms.
    """
    parts = [p for p in SEPARATORS.split(chunk) if p]  # CJK runs can leave "_get"
    terms: list[str] = []
    forms: list[str] = []  # written forms, aligned with terms
    words: list[str] | None = None  # terms less the joined forms, set once one is added
    as_written = plain or word
    for part in parts:
        if (
            (part.isalpha() and part.islower())
            or not _CASE_OR_DIGIT.search(part)
            or _ACRONYM_PLURAL.fullmatch(part)
        ):
            pieces = [part.lower()]  # one word: "weather", "नोट", "Café"
        else:
            pieces = [p.lower() for p in CAMEL_PIECES.findall(part)] or [part.lower()]
        for piece in pieces:
            found = word(piece)
            terms.extend(found)
            forms.extend(as_written(piece))
            if words is not None:
                words.extend(found)
        if len(pieces) > 1:
            if words is None:
                words = list(terms)
            terms.append(part.lower())  # camelCase whole: "addperson", "v1"
            forms.append(part.lower())
    if len(parts) > 1:
        if words is None:
            words = list(terms)
        joined = "_".join(parts).lower()  # whole identifier: "get_weather"
        terms.append(joined)
        forms.append(joined)
        both = _joined_hyphen(chunk, parts)
        if both is not None:
            terms.extend(word(both))
            forms.extend(as_written(both))
    whole = tuple(terms)
    return (
        whole,
        (whole if words is None else tuple(words)),
        (whole if plain is None else tuple(forms)),
    )


def _one_word(chunk: str, word: WordFn, plain: WordFn | None) -> Analysed | None:
    """:func:`analyse` of a chunk that is one word as it stands, else ``None``."""
    if _PLAIN.fullmatch(chunk) or (
        chunk.isascii()
        and (
            (chunk.isalpha() and (chunk[1:].islower() or chunk.isupper()))  # "Returns", "API"
            or chunk.isdigit()  # "250"
        )
    ):
        lowered = chunk.lower()
        whole = word(lowered)
        return whole, whole, (whole if plain is None else plain(lowered))
    return None


def analyse(chunk: str, word: WordFn, plain: WordFn | None = None) -> Analysed:
    """A chunk's :data:`Analysed`; name-phrase words leave CJK and spaceless runs out.

    ``plain`` (:data:`PLAIN_WORD`) gives the written forms; ``None``: not wanted.
    """
    one = _one_word(chunk, word, plain)
    if one is not None:
        return one
    if chunk.isascii() or not _RUN_CHAR.search(chunk):
        return identifier_terms(chunk, word, plain)
    terms: list[str] = []
    phrase: list[str] = []
    forms: list[str] = []
    for cjk, spaceless, other in _RUNS.findall(chunk):
        if cjk or spaceless:
            found = _pairs(list(cjk)) if cjk else _pairs(_cluster().findall(spaceless))
        else:
            with_joined, without, written = identifier_terms(other, word, plain)
            terms.extend(with_joined)
            phrase.extend(without)
            forms.extend(written)
            continue
        terms.extend(found)
        forms.extend(found)
    whole = tuple(terms)
    return whole, tuple(phrase), (whole if plain is None else tuple(forms))


Entry: TypeAlias = tuple[
    tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]
]
"""A chunk's terms: all, less the stopwords, name-phrase words, all as written, and keys.

Keys align with the terms less the stopwords: the term, or ``term + KEY_SEPARATOR +
written`` where written otherwise. Both are the terms' tuple when no term differs.
"""

KEY_SEPARATOR = "\x00"
"""Between a term and its written form in a key (no term holds it)."""


def make_key(term: str, written: str) -> str:
    """The key of ``term`` written ``written``: the term alone when they are the same."""
    return term if term == written else term + KEY_SEPARATOR + written


def split_key(key: str) -> tuple[str, str]:
    """A key's term and written form (``("star", "starred")``)."""
    term, _, written = key.partition(KEY_SEPARATOR)
    return term, written or term


def entry(analysed: Analysed) -> Entry:
    """The cache entry of an :func:`analyse` result."""
    terms, phrase, written = analysed
    if len(terms) == 1:  # one word (most chunks): no generator
        term = terms[0]
        content: tuple[str, ...] = () if term in STOPWORDS else terms
        if written is terms or term == written[0]:
            return terms, content, phrase, terms, content
        keys: tuple[str, ...] = (term + KEY_SEPARATOR + written[0],) if content else ()
        return terms, content, phrase, written, keys
    if STOPWORDS.isdisjoint(terms):
        content = terms
    else:
        content = tuple(t for t in terms if t not in STOPWORDS)
    if written is terms or written == terms:
        return terms, content, phrase, terms, content
    pairs = zip(terms, written, strict=True)  # make_key's, inline
    keys = tuple(t if t == w else t + KEY_SEPARATOR + w for t, w in pairs if t not in STOPWORDS)
    return terms, content, phrase, written, keys


def chunk_entry(chunk: str, word: WordFn, plain: WordFn | None) -> Entry:
    """``entry(analyse(chunk, word, plain))``, one word and ``snake_case`` without the detour."""
    one = _one_word(chunk, word, plain)
    if one is not None:
        return entry(one)
    parts = SEPARATORS.split(chunk) if _LOWER_SNAKE.fullmatch(chunk) else ()
    if not parts or ("-" in chunk and _joined_hyphen(chunk, parts)):  # not one, or a compound
        return entry(analyse(chunk, word, plain))
    phrase = tuple(chain.from_iterable(map(word, parts)))  # ASCII words: one term each
    joined = "_".join(parts)  # no stopword, written as it is
    terms = (*phrase, joined)
    if STOPWORDS.isdisjoint(phrase):
        content = terms
    else:
        content = (*(t for t in phrase if t not in STOPWORDS), joined)
    said = phrase if plain is None else tuple(chain.from_iterable(map(plain, parts)))
    if said == phrase:
        return terms, content, phrase, terms, content
    pairs = zip(phrase, said, strict=True)
    keys = (t if t == w else t + KEY_SEPARATOR + w for t, w in pairs if t not in STOPWORDS)
    return terms, content, phrase, (*said, joined), (*keys, joined)


def clear_word_caches() -> None:
    """Empty the stem, word and accent-fold caches."""
    _cached_stem.cache_clear()
    STEMMED_WORD.cache_clear()  # type: ignore[attr-defined]
    PLAIN_WORD.cache_clear()  # type: ignore[attr-defined]
    fold_accents.cache_clear()


_CHUNK = re.compile(r"[^\W_]+(?:[_\-./:]+[^\W_]+)*", re.UNICODE)
# _CHUNK on ASCII text, faster: possessive, no backtracking state kept
_ASCII_CHUNK = re.compile(r"[A-Za-z0-9]++(?:[_\-./:]++[A-Za-z0-9]++)*+")

_CACHE_BYTES = 32 << 20  # approximate, both generations
_CACHE_CHUNK_CHARS = 48  # longer chunks are never cached


class _SizedCache:
    """Chunk -> entry, about ``budget`` bytes in two generations, the older dropped whole."""

    def __init__(self, budget: int, word: WordFn, plain: WordFn | None) -> None:
        self.budget = budget
        self.analyse: Callable[[str], Entry] = partial(chunk_entry, word=word, plain=plain)
        self.current: dict[str, Entry] = {}
        self._previous: dict[str, Entry] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def cost(chunk: str, found: Entry) -> int:
        """Approximate bytes of one entry (CPython: dict slot, key, value, strings)."""
        terms, content, phrase, written, _ = found
        extra = (
            (0 if content is terms else 56 + 8 * len(content))
            + (0 if phrase is terms else 56 + 68 * len(phrase))
            + (0 if written is terms else 112 + 76 * len(written))
        )
        return 250 + 2 * len(chunk) + 68 * len(terms) + extra

    def get(self, chunk: str) -> Entry:
        found = self.current.get(chunk)
        if found is not None:
            return found
        if len(chunk) > _CACHE_CHUNK_CHARS:
            return self.analyse(chunk)
        found = self._previous.get(chunk)
        if found is None:
            found = self.analyse(chunk)
        self.current[chunk] = found
        self._bytes += self.cost(chunk, found)
        if self._bytes > self.budget // 2:
            with self._lock:
                if self._bytes > self.budget // 2:
                    self._previous, self.current, self._bytes = self.current, {}, 0
        return found

    def lookup(self, chunks: list[str]) -> list[Entry]:
        """The entries of ``chunks``, in order."""
        found: list[Entry | None] = list(map(self.current.get, chunks))
        if None in found:
            get = self.get
            return [f if f is not None else get(c) for f, c in zip(found, chunks, strict=True)]
        return found  # type: ignore[return-value]

    def clear(self) -> None:
        with self._lock:
            self.current, self._previous, self._bytes = {}, {}, 0

    def held_bytes(self) -> int:
        """Approximate bytes held by both generations."""
        items = list(self.current.items()) + list(self._previous.items())
        return sum(self.cost(k, v) for k, v in items)


_CACHE = _SizedCache(_CACHE_BYTES, STEMMED_WORD, PLAIN_WORD)
_PLAIN_CACHE = _SizedCache(_CACHE_BYTES // 4, PLAIN_WORD, None)  # the stemming stage off
_ALL, _CONTENT, _PHRASE, _ALL_WRITTEN, _KEYS = map(itemgetter, range(5))  # parts of an Entry
_Part: TypeAlias = Callable[[Entry], tuple[str, ...]]


def clear_caches() -> None:
    """Empty the chunk and stemming caches (benchmarks time cold index builds)."""
    _CACHE.clear()
    _PLAIN_CACHE.clear()
    clear_word_caches()


def cache_bytes() -> int:
    """Approximate bytes held by the chunk caches (at most about 32 MiB)."""
    return _CACHE.held_bytes()


def _chunks(text: str) -> list[str]:
    if text.isascii():
        found: list[str] = _ASCII_CHUNK.findall(text)
        return found
    text = unicodedata.normalize("NFKC", text)
    marked: list[str] = (marked_chunk() if _has_marks(text) else _CHUNK).findall(text)
    return marked


def tokenize(text: str, *, keep_stopwords: bool = False, stemmed: bool = True) -> list[str]:
    """Lowercase terms of ``text`` in order, with repeats, less :data:`STOPWORDS` unless kept.

    ``stemmed``: stem ASCII words (the ``stemming`` stage).
    """
    entries = (_CACHE if stemmed else _PLAIN_CACHE).lookup(_chunks(text))
    return list(chain.from_iterable(map(_ALL if keep_stopwords else _CONTENT, entries)))


def tokenize_forms(text: str) -> tuple[list[str], list[str]]:
    """Stemmed terms with stopwords, and the same as written (``starred`` -> star, starred)."""
    entries = _CACHE.lookup(_chunks(text))
    terms = list(chain.from_iterable(map(_ALL, entries)))
    return terms, list(chain.from_iterable(map(_ALL_WRITTEN, entries)))


def tokenize_name(name: str) -> list[str]:
    """Tokenize a tool or parameter name, keeping stopwords (``get_me`` -> ``get``, ``me``)."""
    return tokenize(name, keep_stopwords=True)


def name_phrase(name: str, *, stemmed: bool = True) -> tuple[str, ...]:
    """The words of a name without joined forms or CJK (``getMe_now`` -> get, me, now)."""
    cache = _CACHE if stemmed else _PLAIN_CACHE
    return tuple(chain.from_iterable(map(_PHRASE, cache.lookup(_chunks(name)))))


def name_words(name: str) -> list[str]:
    """A name's words split, lowercased, unstemmed (``getWeather_v2`` -> get, weather, v, 2)."""
    return [
        word.lower()
        for chunk in _CHUNK.findall(name)
        for part in SEPARATORS.split(chunk)
        for word in CAMEL_PIECES.findall(part)
    ]


class _ChunkMemo(dict[str, Entry]):
    """Chunk -> entry for one build: a miss reads the shared cache, else analyses (unshared)."""

    def __init__(self, cache: _SizedCache) -> None:
        super().__init__()
        self._cache = cache

    def __missing__(self, chunk: str) -> Entry:
        found = self[chunk] = self._cache.current.get(chunk) or self._cache.analyse(chunk)
        return found


class BatchTokenizer:
    """The module's tokenizers for one index build, memoising chunks and texts (results shared).

    Terms come as tuples: a tuple of strings leaves the cyclic collector's
    tracking at its first pass, a list would be traversed at every later one.

    Args:
        stemmed: Stem ASCII words (the ``stemming`` stage).
        forms: Also give the terms' forms as written (``exact_forms``).
    """

    __slots__ = (
        "_cache",
        "_chunks",
        "_content",
        "_forms",
        "_keys",
        "_names",
        "_phrases",
        "_texts",
        "_written",
    )

    def __init__(self, *, stemmed: bool = True, forms: bool = False) -> None:
        self._cache = _CACHE if stemmed else _PLAIN_CACHE
        self._forms = forms and stemmed
        self._chunks = _ChunkMemo(self._cache)
        self._content: dict[str, tuple[str, ...]] = {}
        self._keys: dict[str, tuple[str, ...]] = {}
        self._names: dict[str, tuple[str, ...]] = {}
        self._phrases: dict[str, tuple[str, ...]] = {}
        self._written: dict[str, tuple[str, ...]] = {}
        self._texts: dict[str, tuple[Entry, ...]] = {}

    @property
    def forms(self) -> bool:
        """Whether terms as written differ from the terms (stemmed, with ``forms``)."""
        return self._forms

    def _joined(self, memo: dict[str, tuple[str, ...]], text: str, part: _Part) -> tuple[str, ...]:
        found = memo.get(text)
        if found is None:  # a name is read for several parts: chunked once
            entries = self._texts.get(text)
            if entries is None:
                entries = self._texts[text] = tuple(map(self._chunks.__getitem__, _chunks(text)))
            joined = (
                part(entries[0]) if len(entries) == 1 else chain.from_iterable(map(part, entries))
            )
            found = memo[text] = tuple(joined)
        return found

    def _prose(self, memo: dict[str, tuple[str, ...]], text: str, part: _Part) -> tuple[str, ...]:
        found = memo.get(text)
        if found is None:  # prose is read for one part: its entries are not kept
            entries = map(self._chunks.__getitem__, _chunks(text))
            found = memo[text] = tuple(chain.from_iterable(map(part, entries)))
        return found

    def tokenize(self, text: str) -> tuple[str, ...]:
        """``tokenize(text)``: terms without stopwords."""
        return self._prose(self._content, text, _CONTENT)

    def tokenize_name(self, name: str) -> tuple[str, ...]:
        """``tokenize_name(name)``: terms with stopwords."""
        return self._joined(self._names, name, _ALL)

    def keys(self, text: str) -> tuple[str, ...]:
        """:meth:`tokenize`'s terms as keys: ``term`` or ``term + KEY_SEPARATOR + written``."""
        if not self._forms:
            return self.tokenize(text)
        return self._prose(self._keys, text, _KEYS)

    def written_name(self, name: str) -> tuple[str, ...]:
        """The terms of :meth:`tokenize_name` as written, aligned one for one."""
        if not self._forms:
            return self.tokenize_name(name)
        return self._joined(self._written, name, _ALL_WRITTEN)

    def name_phrase(self, name: str) -> tuple[str, ...]:
        """``name_phrase(name)``."""
        return self._joined(self._phrases, name, _PHRASE)


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
# top-level domains of a bare domain ("example.com"); not file extensions (".py", ".md")
_TLD = (
    r"(?:com|org|net|io|dev|ai|app|co|edu|gov|info|biz|xyz|cloud|site|tech|me|tv|us|uk|de"
    r"|fr|jp|cn|ru|in|br|au|ca|es|it|nl|eu|ch|se|kr)"
)
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"  # an IPv4 part, 0-255
_PORT_OR_PATH = r"(?::\d{1,5}(?!\w)|/)"  # what makes a host a URL: ":8080" or "/path" after it

VALUE_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            r"\b(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}"
            rf"|{_MONTH}\.? {_DAY}\b|{_DAY} (?:of )?{_MONTH}\b"
            rf"|today|tomorrow|yesterday|{_WEEKDAY}|next (?:week|month|year))\b",
            re.IGNORECASE,
        ),
    ),
    ("time", re.compile(r"\b\d{1,2}(?::\d{2}\s*(?:[ap]\.?m\.?)?|\s*[ap]\.?m\.?)(?!\w)", re.I)),
    # tried once per run of address characters: a "\b" start would be quadratic on hostile input
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    (
        "url",
        re.compile(
            rf"\bhttps?://\S|\bwww\.[\w-]|(?<![@\w.-])(?:[\w-]+\.)+{_TLD}\b(?![.@]?\w)"
            rf"|(?<![@\w.]){_OCTET}(?:\.{_OCTET}){{3}}{_PORT_OR_PATH}"  # 192.168.0.1:8080
            r"|(?<![\w\])])\[(?:[0-9a-f]{0,4}:){2,7}[0-9a-f.]{0,15}\]"  # IPv6: [::1], not a[::2]
            rf"|(?<![@\w.-])localhost{_PORT_OR_PATH}",
            re.IGNORECASE,
        ),
    ),
)
"""``(parameter word, pattern)`` per typed value, in the order their terms are added.

Dates (month and weekday names, ISO and slashed), clock times, e-mail addresses,
URLs (``http(s)``, bare domains, hosts with a port or path, ``[::1]``); not
versions, decimals, slices, nor a bare host, IPv4 address or ``localhost``.
Linear regular expressions.
"""


def value_terms(query: str, stem: Callable[[str], str], terms: list[str]) -> list[str]:
    """The stemmed parameter words of the typed values in ``query`` that ``terms`` lack.

    ``weather in Paris on April 22nd`` -> ``["date"]``.
    """
    out: list[str] = []
    for word, pattern in VALUE_TYPES:
        term = stem(word)
        if term not in terms and term not in out and pattern.search(query):
            out.append(term)
    return out


def bigram_table(vocab: Iterable[str], shortest: int, longest: int) -> dict[str, list[str]]:
    """The terms of ``shortest`` to ``longest`` ASCII letters by character bigram, in order.

    A term's bigrams are each character and the next of ``^term`` and ``term$``.
    """
    letters = filter(str.isascii, filter(str.isalpha, vocab))
    terms = [t for t in letters if shortest <= len(t) <= longest]
    n = len(terms)
    if not n:
        return {}
    chars = np.zeros((n, longest + 2), dtype=np.uint32)  # "^", the letters, then 0 for "$"
    chars[:, 0] = ord("^")
    chars[:, 1:-1] = np.asarray(terms, dtype=f"U{longest}").view(np.uint32).reshape(n, longest)
    left, right = chars[:, :-1], chars[:, 1:]
    live = left != 0
    codes = (left << 7 | right)[live].astype(np.uint16)  # ASCII: 7 bits a character
    at = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], live.shape)[live]
    order = np.argsort(codes, kind="stable")  # by bigram, terms in order
    codes, at = codes[order], at[order]
    first = np.ones(codes.size, dtype=bool)  # a term once per bigram
    first[1:] = (codes[1:] != codes[:-1]) | (at[1:] != at[:-1])
    codes, at = codes[first], at[first]
    ends = [*(np.flatnonzero(codes[1:] != codes[:-1]) + 1).tolist(), codes.size]
    starts = [0, *ends[:-1]]
    held = np.asarray(terms, dtype=object)[at]
    return {
        chr(c >> 7) + (chr(c & 127) if c & 127 else "$"): held[lo:hi].tolist()
        for lo, hi, c in zip(starts, ends, codes[starts].tolist(), strict=True)
    }


URL_TERM = "\x01url"
"""The term indexed for each tool taking a URL (:func:`takes_url`); no query word gives it."""
_URL_NAMES = frozenset(
    ["url", "urls", "uri", "uris", "link", "links", "href", "website", "websites", "domain"]
)
_URL_TEXT = re.compile(r"\bur[li]s?\b|\bweb address", re.IGNORECASE)


def takes_url(doc: ToolDocument) -> bool:
    """Whether a parameter is named (``page_url``, ``href``) or described as a URL.

    A tool without parameters (a catalog entry) takes one if its description says URL.
    """
    params = doc.parameters
    said = (" ".join(chain.from_iterable(params)) if params else doc.description).lower()
    if not (  # most tools: no regex, no split
        "url" in said
        or "uri" in said
        or "link" in said
        or "href" in said
        or "website" in said
        or "domain" in said
        or "web address" in said
    ):
        return False
    names = [name for name, _ in params]
    texts = [text for _, text in params] if names else [doc.description]
    return any(not _URL_NAMES.isdisjoint(name_words(name)) for name in names) or any(
        _URL_TEXT.search(text) for text in texts
    )
