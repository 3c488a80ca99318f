"""Tokenizing text into search terms, chunk by chunk through a bounded shared cache.

What a chunk yields: :mod:`~langchain_toolsearch.search.analysis`. Chunks of at
most 48 characters are analysed once into a cache of about 32 MiB; an index
build memoises in a :class:`BatchTokenizer` of its own.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from functools import partial
from itertools import chain, compress
from operator import is_, itemgetter
from typing import TypeAlias

from langchain_toolsearch.search.analysis import (
    CAMEL_PIECES,
    PLAIN_WORD,
    SEPARATORS,
    STEMMED_WORD,
    Entry,
    WordFn,
    analyse,
    clear_word_caches,
    entry,
    is_cjk,
    marked_chunk,
    stem,
)
from langchain_toolsearch.search.words import STOPWORDS

__all__ = [
    "STOPWORDS",
    "BatchTokenizer",
    "clear_caches",
    "is_cjk",
    "name_phrase",
    "name_words",
    "stem",
    "tokenize",
    "tokenize_forms",
    "tokenize_name",
]

_CHUNK = re.compile(r"[^\W_]+(?:[_\-./:]+[^\W_]+)*", re.UNICODE)
# _CHUNK on ASCII text, faster: possessive, no backtracking state kept
_ASCII_CHUNK = re.compile(r"[A-Za-z0-9]++(?:[_\-./:]++[A-Za-z0-9]++)*+")

_CACHE_BYTES = 32 << 20  # approximate, both generations
_CACHE_CHUNK_CHARS = 48  # longer chunks are never cached


class _SizedCache:
    """Chunk -> entry, about ``budget`` bytes in two generations, the older dropped whole."""

    def __init__(self, budget: int, word: WordFn, plain: WordFn | None) -> None:
        self.budget = budget
        self.analyse: Callable[[str], Entry] = lambda chunk: entry(analyse(chunk, word, plain))
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
_is_none = partial(is_, None)
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
    marked: list[str] = marked_chunk().findall(text)
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


class BatchTokenizer:
    """The module's tokenizers for one index build, memoising chunks and texts (results shared).

    Args:
        stemmed: Stem ASCII words (the ``stemming`` stage).
        forms: Also give the terms' forms as written (``exact_forms``).
    """

    __slots__ = ("_cache", "_chunks", "_forms", "_keys", "_names", "_phrases", "_prose", "_written")

    def __init__(self, *, stemmed: bool = True, forms: bool = False) -> None:
        self._cache = _CACHE if stemmed else _PLAIN_CACHE
        self._forms = forms and stemmed
        self._chunks: dict[str, Entry] = {}
        self._prose: dict[str, list[str]] = {}
        self._keys: dict[str, list[str]] = {}
        self._names: dict[str, list[str]] = {}
        self._phrases: dict[str, tuple[str, ...]] = {}
        self._written: dict[str, list[str]] = {}

    @property
    def forms(self) -> bool:
        """Whether terms as written differ from the terms (stemmed, with ``forms``)."""
        return self._forms

    def prime(self, prose: Iterable[str], names: Iterable[str]) -> None:
        """Tokenize prose texts and names into the memo, each distinct chunk once."""
        chunks, shared, fresh = self._chunks, self._cache.current.get, self._cache.analyse
        prose_memo, prose_part = (self._keys, _KEYS) if self._forms else (self._prose, _CONTENT)
        for texts, memo, part, name in (
            (prose, prose_memo, prose_part, False),
            (names, self._names, _ALL, True),
        ):
            todo = [t for t in dict.fromkeys(texts) if t not in memo]
            lists = list(map(_chunks, todo))
            distinct = list(dict.fromkeys(chain.from_iterable(lists)))
            for chunk in distinct:
                if chunk not in chunks:
                    chunks[chunk] = shared(chunk) or fresh(chunk)
            terms = self._part_of(distinct, part)
            joined = [list(chain.from_iterable(map(terms, c))) for c in lists]
            memo.update(zip(todo, joined, strict=True))
            if not name:
                continue
            words = self._part_of(distinct, _PHRASE)
            phrases = [tuple(chain.from_iterable(map(words, c))) for c in lists]
            self._phrases.update(zip(todo, phrases, strict=True))
            if self._forms:
                forms = self._part_of(distinct, _ALL_WRITTEN)
                written = [list(chain.from_iterable(map(forms, c))) for c in lists]
                self._written.update(zip(todo, written, strict=True))

    def _part_of(self, chunks: list[str], part: _Part) -> Callable[[str], tuple[str, ...]]:
        """``chunk -> part(entry of chunk)`` for analysed ``chunks``."""
        parts = map(part, map(self._chunks.__getitem__, chunks))
        return dict(zip(chunks, parts, strict=True)).__getitem__

    def _lookup(self, chunks: list[str]) -> list[Entry]:
        memo = self._chunks
        found: list[Entry | None] = list(map(memo.get, chunks))
        if None not in found:
            return found  # type: ignore[return-value]
        shared, fresh = self._cache.current.get, self._cache.analyse
        for chunk in compress(chunks, map(_is_none, found)):
            if chunk not in memo:
                memo[chunk] = shared(chunk) or fresh(chunk)
        return list(map(memo.__getitem__, chunks))

    def _joined(self, memo: dict[str, list[str]], text: str, part: _Part) -> list[str]:
        found = memo.get(text)
        if found is None:
            entries = self._lookup(_chunks(text))
            found = memo[text] = list(chain.from_iterable(map(part, entries)))
        return found

    def tokenize(self, text: str) -> list[str]:
        """``tokenize(text)``: terms without stopwords."""
        return self._joined(self._prose, text, _CONTENT)

    def tokenize_name(self, name: str) -> list[str]:
        """``tokenize_name(name)``: terms with stopwords."""
        return self._joined(self._names, name, _ALL)

    def keys(self, text: str) -> list[str]:
        """:meth:`tokenize`'s terms as keys: ``term`` or ``term + KEY_SEPARATOR + written``."""
        if not self._forms:
            return self.tokenize(text)
        return self._joined(self._keys, text, _KEYS)

    def written_name(self, name: str) -> list[str]:
        """The terms of :meth:`tokenize_name` as written, aligned one for one."""
        if not self._forms:
            return self.tokenize_name(name)
        return self._joined(self._written, name, _ALL_WRITTEN)

    def name_phrase(self, name: str) -> tuple[str, ...]:
        """``name_phrase(name)``."""
        found = self._phrases.get(name)
        if found is None:
            entries = self._lookup(_chunks(name))
            found = self._phrases[name] = tuple(chain.from_iterable(map(_PHRASE, entries)))
        return found
