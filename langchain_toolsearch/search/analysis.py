"""What one chunk of text yields: its terms, their forms as written, its name-phrase words.

A chunk is a run of letters and digits joined by identifier punctuation
(:mod:`~langchain_toolsearch.search.tokenize` caches :func:`analyse` per
chunk): identifier pieces (``addPerson`` -> add, person; ``HTTPServer`` ->
http, server; ``v1`` -> v, 1, v1), the joined form (``get_weather``), CJK and
spaceless-script bigrams, Snowball stems, unaccented Latin forms, and short
hyphen parts joined (``e-mail`` -> email). Each term comes with its word as
written (the ``exact_forms`` stage), from the same pass.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from functools import lru_cache, partial
from itertools import chain
from typing import TypeAlias

import Stemmer  # type: ignore[import-not-found, import-untyped, unused-ignore]

from langchain_toolsearch.search.scripts import (
    RUN_CHAR,
    RUNS,
    cjk_terms,
    fold_accents,
    spaceless_terms,
)
from langchain_toolsearch.search.stopwords import STOPWORDS

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
    "identifier_terms",
    "make_key",
    "split_key",
    "stem",
]

SEPARATORS = re.compile(r"[_\-./:]+")
"""Identifier punctuation between the words of a name."""
# camelCase pieces: case changes count between ASCII letters only, so accented and
# non-Latin words stay whole ("café", "naïveBayes" -> "naïve", "Bayes")
CAMEL_PIECES = re.compile(r"[A-Z]+(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+|[A-Z]+|\d+", re.UNICODE)
"""The camelCase pieces of an identifier part (``addPerson`` -> ``add``, ``Person``)."""
_PLAIN = re.compile(r"[a-z]+")  # the common case: one lowercase ASCII word
_LOWER_SNAKE = re.compile(r"[a-z]+(?:[_\-./:]+[a-z]+)*")  # get_weather, list-issues
_HYPHENATED = re.compile(r"[^\W\d_]+-[^\W\d_]+")  # "e-mail", "to-do", "sign-in"
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")  # "PRs", "APIs": one word, not "P" + "Rs"
_CASE_OR_DIGIT = re.compile(r"[A-Z0-9]|\d")  # what camelCase splitting can act on

_STEM_CACHE_CHARS = 32
_SNOWBALL = threading.local()
_PRONOUNS = {"i": "me", "my": "me", "myself": "me"}


def _stem(word: str) -> str:
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    stemmer = getattr(_SNOWBALL, "stemmer", None)
    if stemmer is None:  # a Snowball stemmer keeps state while it works: one per thread
        stemmer = _SNOWBALL.stemmer = Stemmer.Stemmer("english")
    stemmed: str = stemmer.stemWord(word)
    return stemmed


_cached_stem = lru_cache(maxsize=65536)(_stem)


def stem(word: str) -> str:
    """Snowball English (Porter 2) stem of a lowercase ASCII word over 3 letters, else the word.

    ``"issues" -> "issu"``, ``"created" -> "creat"``.
    """
    return _cached_stem(word) if len(word) <= _STEM_CACHE_CHARS else _stem(word)


def _analyse_word(word: str, stemmed: bool = True) -> tuple[str, ...]:
    """The terms of one lowercase word: its stem (or itself) and its accent fold."""
    if word in _PRONOUNS:
        return (_PRONOUNS[word],)
    if word in STOPWORDS:
        return (word,)
    out: tuple[str, ...] = (
        _stem(word) if stemmed else word,
    )  # not the stem cache: cached whole below
    if word.isascii():  # nothing to fold (fold_accents gives None), and no cache entry spent
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
"""A word's terms as written: aligned with :data:`STEMMED_WORD`'s, one for one."""

Analysed: TypeAlias = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
"""A chunk's terms (with joined forms), its words (without them), and the terms' written forms.

The third tuple is aligned with the first, one written form per term; it is
the first tuple itself when the analysis was asked for no written forms.
"""


def _snake_terms(chunk: str, word: WordFn, plain: WordFn | None) -> Analysed:
    """:func:`identifier_terms` of lowercase ASCII words joined by separators, faster.

    The common form of tool names (``get_weather``, ``list-issues``): no case
    or digit splitting, so the terms are the words' terms, then the joined form.
    """
    parts = SEPARATORS.split(chunk)
    words = tuple(chain.from_iterable(map(word, parts)))
    written = words if plain is None else tuple(chain.from_iterable(map(plain, parts)))
    if len(parts) == 1:
        return words, words, written
    joined = "_".join(parts)
    terms, forms = [*words, joined], [*written, joined]
    if len(parts) == 2 and min(map(len, parts)) <= 2 and _HYPHENATED.fullmatch(chunk):
        both = parts[0] + parts[1]  # "e-mail" -> "email"
        terms.extend(word(both))
        forms.extend((plain or word)(both))
    return tuple(terms), words, (tuple(terms) if plain is None else tuple(forms))


def identifier_terms(chunk: str, word: WordFn, plain: WordFn | None = None) -> Analysed:
    """Terms of a chunk without CJK characters, with and without the joined forms.

    Stopwords kept. The second tuple is the first less the joined forms
    (``get_weather``, ``addperson``, ``email`` of ``e-mail``), and is the
    same object when there are none. The third is the terms' written forms
    by ``plain`` (the terms themselves when ``plain`` is ``None``).
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
        if len(parts) == 2 and min(map(len, parts)) <= 2 and _HYPHENATED.fullmatch(chunk):
            both = (parts[0] + parts[1]).lower()  # "e-mail" -> "email"
            terms.extend(word(both))
            forms.extend(as_written(both))
    whole = tuple(terms)
    return (
        whole,
        (whole if words is None else tuple(words)),
        (whole if plain is None else tuple(forms)),
    )


def analyse(chunk: str, word: WordFn, plain: WordFn | None = None) -> Analysed:
    """A chunk's terms with the joined forms (for text), without (name phrases), and as written.

    Name phrases also leave CJK and spaceless-script runs out. ``plain``
    gives the written forms (:data:`PLAIN_WORD`); ``None`` when they are
    not wanted (the third tuple is then the first).
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
    if chunk.isascii() or not RUN_CHAR.search(chunk):  # ASCII has no script runs
        return identifier_terms(chunk, word, plain)
    terms: list[str] = []
    phrase: list[str] = []
    forms: list[str] = []
    for cjk, spaceless, other in RUNS.findall(chunk):
        if cjk:
            found = cjk_terms(cjk)
        elif spaceless:
            found = spaceless_terms(spaceless)
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
"""A chunk's terms: all, less the stopwords, its name-phrase words, all as written, and keys.

The written forms are aligned with the terms one for one; the keys with the
terms less the stopwords, each its term or, where the word is written
otherwise, ``term + KEY_SEPARATOR + written`` (:func:`split_key`). Both are
the same tuple objects as the terms when no term differs from its written form.
"""

KEY_SEPARATOR = "\x00"
"""Between a term and its written form in a key (no term holds it)."""


def make_key(term: str, written: str) -> str:
    """The key of ``term`` written ``written``: the term alone when they are the same."""
    return term if term == written else term + KEY_SEPARATOR + written


def split_key(key: str) -> tuple[str, str]:
    """A key's term and written form (``("star", "starred")`` for ``star`` written ``starred``)."""
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
    """Empty the stem and word caches."""
    _cached_stem.cache_clear()
    STEMMED_WORD.cache_clear()  # type: ignore[attr-defined]
    PLAIN_WORD.cache_clear()  # type: ignore[attr-defined]
