"""What one chunk of text yields: its terms, their forms as written, its name-phrase words.

A chunk is letters and digits joined by ``_ - . / :``. It yields identifier
pieces (``addPerson`` -> add, person; ``HTTPServer`` -> http, server; ``v1``
-> v, 1, v1), the joined form (``get_weather``), short hyphen parts joined
(``e-mail`` -> email), Snowball stems, unaccented Latin forms, and for CJK
runs character bigrams plus lone characters (Lucene's ``CJKAnalyzer``), for
Thai, Lao, Khmer and Myanmar bigrams of grapheme clusters.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache, partial
from itertools import chain, pairwise
from typing import TypeAlias

import Stemmer  # type: ignore[import-not-found, import-untyped, unused-ignore]

from langchain_toolsearch.search.words import STOPWORDS

__all__ = [
    "CAMEL_PIECES",
    "KEY_SEPARATOR",
    "PLAIN_WORD",
    "SEPARATORS",
    "STEMMED_WORD",
    "Analysed",
    "Entry",
    "WordFn",
    "analyse",
    "clear_word_caches",
    "entry",
    "fold_accents",
    "identifier_terms",
    "is_cjk",
    "make_key",
    "marked_chunk",
    "split_key",
    "stem",
]

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
def _mark_class() -> str:
    """All combining marks (Mn, Mc, Me) as a regex class body (built on first use, ~10 ms)."""
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
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ranges)


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
        stemmer = _SNOWBALL.stemmer = Stemmer.Stemmer("english")
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


def _joined_hyphen(chunk: str, parts: list[str]) -> str | None:
    """``email`` of ``e-mail``: two hyphen parts, one of at most 2 letters, run together."""
    if len(parts) == 2 and min(map(len, parts)) <= 2 and _HYPHENATED.fullmatch(chunk):
        return (parts[0] + parts[1]).lower()
    return None


def _snake_terms(chunk: str, word: WordFn, plain: WordFn | None) -> Analysed:
    """:func:`identifier_terms` of lowercase ASCII words joined by separators, faster."""
    parts = SEPARATORS.split(chunk)
    words = tuple(chain.from_iterable(map(word, parts)))
    written = words if plain is None else tuple(chain.from_iterable(map(plain, parts)))
    if len(parts) == 1:
        return words, words, written
    joined = "_".join(parts)
    terms, forms = [*words, joined], [*written, joined]
    both = _joined_hyphen(chunk, parts)
    if both is not None:
        terms.extend(word(both))
        forms.extend((plain or word)(both))
    return tuple(terms), words, (tuple(terms) if plain is None else tuple(forms))


def identifier_terms(chunk: str, word: WordFn, plain: WordFn | None = None) -> Analysed:
    """:data:`Analysed` of a chunk without CJK, stopwords kept; written forms by ``plain``.

    The second tuple is the same object as the first when there are no joined forms.
    """
    if _LOWER_SNAKE.fullmatch(chunk):
        return _snake_terms(chunk, word, plain)
    return _mixed_terms(chunk, word, plain)


def _mixed_terms(chunk: str, word: WordFn, plain: WordFn | None) -> Analysed:
    """:func:`identifier_terms` of a chunk that is not lowercase ``snake_case``."""
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


def analyse(chunk: str, word: WordFn, plain: WordFn | None = None) -> Analysed:
    """A chunk's :data:`Analysed`; name-phrase words leave CJK and spaceless runs out.

    ``plain`` (:data:`PLAIN_WORD`) gives the written forms; ``None``: not wanted.
    """
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
    if STOPWORDS.isdisjoint(terms):
        content = terms
    else:
        content = tuple(t for t in terms if t not in STOPWORDS)
    if written is terms or written == terms:
        return terms, content, phrase, terms, content
    keys = tuple(make_key(t, w) for t, w in zip(terms, written, strict=True) if t not in STOPWORDS)
    return terms, content, phrase, written, keys


def clear_word_caches() -> None:
    """Empty the stem, word and accent-fold caches."""
    _cached_stem.cache_clear()
    STEMMED_WORD.cache_clear()  # type: ignore[attr-defined]
    PLAIN_WORD.cache_clear()  # type: ignore[attr-defined]
    fold_accents.cache_clear()
