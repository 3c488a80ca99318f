"""Identifier-aware, word-bounded tokenizing for tool search.

Tool names are identifiers (``snake_case``, ``kebab-case``, ``camelCase``,
``dotted.names``, ``path/like``, digits), descriptions are prose in any script.
:func:`tokenize` splits both into lowercase terms:

* words are runs of letters/digits (Unicode-aware); identifiers are further
  split at ``_ - . / :``, at lower->upper case changes (``addPerson`` ->
  ``add``, ``person``), at acronym ends (``HTTPServer`` -> ``http``,
  ``server``) and between letters and digits (``v1`` -> ``v``, ``1``; the
  joined ``v1`` is kept too);
* a compound identifier also yields its whole lowercase form
  (``get_weather``) so an exact-name query matches strongly;
* combining marks belong to the letter before them, so words of scripts
  written with vowel signs (Devanagari ``नोट``, Tamil, Bengali) stay whole;
* CJK runs (Han, Hiragana, Katakana, Hangul) yield character bigrams plus the
  single characters of one-character runs, so text without spaces still
  produces terms (the usual CJK treatment in Lucene's ``CJKAnalyzer``);
  scripts written without spaces between words (Thai, Lao, Khmer, Myanmar)
  get the same treatment over grapheme clusters (a letter with its marks),
  since a dictionary segmenter (PyThaiNLP: a 22 MB wheel) is too heavy for
  a search dependency: ``อากาศ`` then matches inside ``ดูสภาพอากาศวันนี้``;
* the Snowball English (Porter 2) stemmer folds inflections and common
  derivations (``issues`` -> ``issu``; ``created``, ``creating`` ->
  ``creat``) of ASCII words longer than 3 letters; it is a stage
  (:class:`~langchain_toolsearch.search.stages.SearchStages`, ``stemming``),
  off with ``stemmed=False``. Stopwords are never stemmed, so dropping them
  is a plain filter; first-person pronouns fold to ``me`` (``who am i``
  meets ``get_me``);
* a Latin word with accents also yields its unaccented form (``résumé`` ->
  ``résumé``, ``resume``), and a hyphenated word with a part of one or two
  letters also yields the parts joined (``e-mail`` -> ``e``, ``mail``,
  ``e_mail``, ``email``; ``to-do`` -> ``todo``; ``sign-in`` -> ``signin``).

Speed and memory: text is split into chunks with one regular expression and
each distinct chunk of at most 48 characters is analysed once, for its terms,
its stopword-free terms and its name-phrase words together (a cache bounded
by its total size, about 32 MiB at most), so tokenizing a long query costs
little more than the regular-expression scan, and a stream of distinct long
queries cannot grow memory without bound. An index build tokenizes through a
:class:`BatchTokenizer`, whose memo lives as long as the build: a large
library has more distinct chunks than the shared cache keeps.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
from itertools import chain, compress
from operator import is_, itemgetter
from typing import TypeAlias

import Stemmer  # type: ignore[import-not-found, import-untyped, unused-ignore]

from langchain_toolsearch.search.scripts import (
    RUN_CHAR,
    RUNS,
    cjk_terms,
    fold_accents,
    is_cjk,
    marked_chunk,
    spaceless_terms,
)
from langchain_toolsearch.search.stopwords import STOPWORDS

__all__ = [
    "STOPWORDS",
    "BatchTokenizer",
    "clear_caches",
    "fold_accents",
    "is_cjk",
    "name_phrase",
    "name_words",
    "stem",
    "tokenize",
    "tokenize_name",
]

# An identifier-ish chunk: letters/digits joined by identifier punctuation.
_CHUNK = re.compile(r"[^\W_]+(?:[_\-./:]+[^\W_]+)*", re.UNICODE)
# _CHUNK on ASCII text, faster: plain ranges, and possessive (no backtracking state kept)
_ASCII_CHUNK = re.compile(r"[A-Za-z0-9]++(?:[_\-./:]++[A-Za-z0-9]++)*+")
_SEP = re.compile(r"[_\-./:]+")
# camelCase pieces: case changes count between ASCII letters only, so accented and
# non-Latin words stay whole ("café", "naïveBayes" -> "naïve", "Bayes")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+|[A-Z]+|\d+", re.UNICODE)
_PLAIN = re.compile(r"[a-z]+")  # the common case: one lowercase ASCII word
_LOWER_SNAKE = re.compile(r"[a-z]+(?:[_\-./:]+[a-z]+)*")  # get_weather, list-issues
_HYPHENATED = re.compile(r"[^\W\d_]+-[^\W\d_]+")  # "e-mail", "to-do", "sign-in"
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")  # "PRs", "APIs": one word, not "P" + "Rs"
_CASE_OR_DIGIT = re.compile(r"[A-Z0-9]|\d")  # what camelCase splitting can act on

_CACHE_BYTES = 32 << 20  # chunk-cache budget (approximate bytes, both generations)
_CACHE_CHUNK_CHARS = 48  # longer chunks are analysed each time, never cached
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
    """English stem of a word: the Snowball English (Porter 2) stemmer (PyStemmer, C).

    Only ASCII words longer than 3 characters are touched. Porter 2 folds
    inflections and common derivations alike (``calculate``,
    ``calculation``, ``calculator`` -> ``calcul``), which a light suffix
    stripper did not (measured in ``docs/benchmarks.md``).

    Args:
        word: A lowercase token.

    Returns:
        The stem, e.g. ``"issues" -> "issu"``, ``"created" -> "creat"``,
        ``"listing" -> "list"``.
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


_WordFn: TypeAlias = Callable[[str], tuple[str, ...]]
_STEMMED_WORD = lru_cache(maxsize=65536)(_analyse_word)
_PLAIN_WORD = lru_cache(maxsize=65536)(partial(_analyse_word, stemmed=False))


def _snake_terms(chunk: str, word: _WordFn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`_identifier_terms` of lowercase ASCII words joined by separators, faster.

    The common form of tool names (``get_weather``, ``list-issues``): no case
    or digit splitting, so the terms are the words' terms, then the joined form.
    """
    parts = _SEP.split(chunk)
    plain = tuple(chain.from_iterable(map(word, parts)))
    if len(parts) == 1:
        return plain, plain
    terms = [*plain, "_".join(parts)]
    if len(parts) == 2 and min(map(len, parts)) <= 2 and _HYPHENATED.fullmatch(chunk):
        terms.extend(word(parts[0] + parts[1]))  # "e-mail" -> "email"
    return tuple(terms), plain


def _identifier_terms(chunk: str, word: _WordFn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Terms of a chunk without CJK characters, with and without the joined forms.

    Stopwords kept, unstemmed. The second tuple is the first less the joined
    forms (``get_weather``, ``addperson``, ``email`` of ``e-mail``), and is
    the same object when there are none.
    """
    if _LOWER_SNAKE.fullmatch(chunk):
        return _snake_terms(chunk, word)
    return _mixed_terms(chunk, word)


def _mixed_terms(chunk: str, word: _WordFn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`_identifier_terms` of a chunk that is not lowercase ``snake_case``."""
    parts = [p for p in _SEP.split(chunk) if p]  # CJK runs can leave "_get"
    terms: list[str] = []
    plain: list[str] | None = None  # set once a joined form is added
    for part in parts:
        if (
            (part.isalpha() and part.islower())
            or not _CASE_OR_DIGIT.search(part)
            or _ACRONYM_PLURAL.fullmatch(part)
        ):
            found = word(part.lower())  # one word: "weather", "नोट", "Café"
            terms.extend(found)
            if plain is not None:
                plain.extend(found)
            continue
        lowered = [p.lower() for p in _CAMEL.findall(part)] or [part.lower()]
        for piece in lowered:
            found = word(piece)
            terms.extend(found)
            if plain is not None:
                plain.extend(found)
        if len(lowered) > 1:
            if plain is None:
                plain = list(terms)
            terms.append(part.lower())  # camelCase whole: "addperson", "v1"
    if len(parts) > 1:
        if plain is None:
            plain = list(terms)
        terms.append("_".join(parts).lower())  # whole identifier: "get_weather"
        if len(parts) == 2 and min(map(len, parts)) <= 2 and _HYPHENATED.fullmatch(chunk):
            terms.extend(word((parts[0] + parts[1]).lower()))  # "e-mail" -> "email"
    whole = tuple(terms)
    return whole, (whole if plain is None else tuple(plain))


def _analyse(chunk: str, word: _WordFn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A chunk's terms with the joined forms (for text) and without (name phrases).

    Name phrases also leave CJK and spaceless-script runs out.
    """
    if _PLAIN.fullmatch(chunk) or (
        chunk.isascii()
        and (
            (chunk.isalpha() and (chunk[1:].islower() or chunk.isupper()))  # "Returns", "API"
            or chunk.isdigit()  # "250"
        )
    ):
        whole = word(chunk.lower())
        return whole, whole
    if chunk.isascii() or not RUN_CHAR.search(chunk):  # ASCII has no script runs
        return _identifier_terms(chunk, word)
    terms: list[str] = []
    plain: list[str] = []
    for cjk, spaceless, other in RUNS.findall(chunk):
        if cjk:
            terms.extend(cjk_terms(cjk))
        elif spaceless:
            terms.extend(spaceless_terms(spaceless))
        else:
            with_joined, without = _identifier_terms(other, word)
            terms.extend(with_joined)
            plain.extend(without)
    return tuple(terms), tuple(plain)


_Entry: TypeAlias = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
"""A chunk's terms: all of them, the same less the stopwords, and its name-phrase words."""


def _entry(analysed: tuple[tuple[str, ...], tuple[str, ...]]) -> _Entry:
    terms, phrase = analysed
    if STOPWORDS.isdisjoint(terms):
        return terms, terms, phrase
    return terms, tuple(t for t in terms if t not in STOPWORDS), phrase


class _SizedCache:
    """Chunk -> terms, bounded by approximate bytes: two generations, the older dropped whole.

    Lookups hit the current generation, then the previous one (moving the
    entry forward). When the current generation passes half the budget it
    becomes the previous one, so at most about ``budget`` bytes are held.
    Dict operations are atomic under the GIL; the byte count is approximate
    (a lost update under a race only shifts the next swap a little).
    Keys are the chunks themselves, so a tokenizer looks a whole text's
    chunks up with one C-level ``map``.
    """

    def __init__(self, budget: int, word: _WordFn) -> None:
        self.budget = budget
        self.word = word
        self.current: dict[str, _Entry] = {}
        self._previous: dict[str, _Entry] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def cost(chunk: str, entry: _Entry) -> int:
        """Approximate bytes of one entry (CPython: dict slot, key, value, strings)."""
        terms, content, phrase = entry
        extra = (0 if content is terms else 56 + 8 * len(content)) + (
            0 if phrase is terms else 56 + 68 * len(phrase)
        )
        return 250 + 2 * len(chunk) + 68 * len(terms) + extra

    def get(self, chunk: str) -> _Entry:
        found = self.current.get(chunk)
        if found is not None:
            return found
        if len(chunk) > _CACHE_CHUNK_CHARS:  # analysed each time, never cached
            return _entry(_analyse(chunk, self.word))
        found = self._previous.get(chunk)
        if found is None:
            found = _entry(_analyse(chunk, self.word))
        self.current[chunk] = found
        self._bytes += self.cost(chunk, found)
        if self._bytes > self.budget // 2:
            with self._lock:
                if self._bytes > self.budget // 2:
                    self._previous, self.current, self._bytes = self.current, {}, 0
        return found

    def lookup(self, chunks: list[str]) -> list[_Entry]:
        """The entries of ``chunks``, in order (cached ones without a Python call each)."""
        found: list[_Entry | None] = list(map(self.current.get, chunks))
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


_CACHE = _SizedCache(_CACHE_BYTES, _STEMMED_WORD)
_PLAIN_CACHE = _SizedCache(_CACHE_BYTES // 4, _PLAIN_WORD)  # the stemming stage off
_ALL = itemgetter(0)
_is_none = partial(is_, None)
_CONTENT = itemgetter(1)
_PHRASE = itemgetter(2)


def clear_caches() -> None:
    """Empty the chunk and stemming caches (benchmarks time cold index builds)."""
    _CACHE.clear()
    _PLAIN_CACHE.clear()
    _cached_stem.cache_clear()
    _STEMMED_WORD.cache_clear()
    _PLAIN_WORD.cache_clear()
    fold_accents.cache_clear()


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
    """Split ``text`` into search terms.

    Args:
        text: Any text: a query, a description, a tool or parameter name.
        keep_stopwords: Keep English function words (used for names, where
            ``get_me`` must keep ``me``).
        stemmed: Stem ASCII words (the ``stemming`` stage).

    Returns:
        Lowercase terms in order of appearance, with repeats. Without
        ``keep_stopwords`` the result is exactly the ``keep_stopwords``
        result less the :data:`STOPWORDS`. Empty only when ``text`` has no
        letters or digits, or (without ``keep_stopwords``) holds only
        stopwords.
    """
    entries = (_CACHE if stemmed else _PLAIN_CACHE).lookup(_chunks(text))
    return list(chain.from_iterable(map(_ALL if keep_stopwords else _CONTENT, entries)))


def tokenize_name(name: str) -> list[str]:
    """Tokenize a tool or parameter name, keeping stopwords (``get_me`` -> ``get``, ``me``)."""
    return tokenize(name, keep_stopwords=True)


def name_phrase(name: str, *, stemmed: bool = True) -> tuple[str, ...]:
    """The word sequence of a name, without the joined forms (``getMe_now`` -> get, me, now).

    CJK characters are left out: a CJK name is matched through its bigrams.
    ``stemmed`` stems ASCII words (the ``stemming`` stage).
    """
    cache = _CACHE if stemmed else _PLAIN_CACHE
    return tuple(chain.from_iterable(map(_PHRASE, cache.lookup(_chunks(name)))))


def name_words(name: str) -> list[str]:
    """The words of a name as written: split, lowercased, not stemmed (for embedding).

    ``name_words("getWeather_v2") == ["get", "weather", "v", "2"]``;
    ``name_words("mutation_type.find") == ["mutation", "type", "find"]``.
    """
    return [
        word.lower()
        for chunk in _CHUNK.findall(name)
        for part in _SEP.split(chunk)
        for word in _CAMEL.findall(part)
    ]


class BatchTokenizer:
    """:func:`tokenize`, :func:`tokenize_name` and :func:`name_phrase` for one index build.

    Chunks are analysed once per build in a memo of their own, released
    with the object: a library has more distinct chunks than the shared,
    bounded cache holds (about 37,000 at 10,000 tools), which would make
    every build churn it. Whole texts are memoised too, since parameter
    names and descriptions repeat across tools. Results are shared between
    calls: do not mutate them. Same terms as the module functions.
    """

    __slots__ = ("_cache", "_chunks", "_names", "_phrases", "_prose")

    def __init__(self, *, stemmed: bool = True) -> None:
        """A memo for one build.

        Args:
            stemmed: Stem ASCII words (the ``stemming`` stage).
        """
        self._cache = _CACHE if stemmed else _PLAIN_CACHE
        self._chunks: dict[str, _Entry] = {}
        self._prose: dict[str, list[str]] = {}
        self._names: dict[str, list[str]] = {}
        self._phrases: dict[str, tuple[str, ...]] = {}

    def prime(self, prose: Iterable[str], names: Iterable[str]) -> None:
        """Tokenize many texts at once, as :meth:`tokenize` and :meth:`tokenize_name` would.

        Later calls for these texts (and :meth:`name_phrase` for ``names``)
        are answered from the memo. In bulk, each distinct chunk is analysed
        once and each text is joined from them at C speed: a good part of a
        build's time was the per-text calls.
        """
        chunks, shared, word = self._chunks, self._cache.current.get, self._cache.word
        for texts, memo, part in ((prose, self._prose, _CONTENT), (names, self._names, _ALL)):
            todo = [t for t in dict.fromkeys(texts) if t not in memo]
            lists = list(map(_chunks, todo))
            distinct = list(dict.fromkeys(chain.from_iterable(lists)))
            for chunk in distinct:  # each distinct chunk analysed once
                if chunk not in chunks:
                    chunks[chunk] = shared(chunk) or _entry(_analyse(chunk, word))
            terms = self._part_of(distinct, part)
            joined = [list(chain.from_iterable(map(terms, c))) for c in lists]
            memo.update(zip(todo, joined, strict=True))
            if part is _ALL:
                words = self._part_of(distinct, _PHRASE)
                phrases = [tuple(chain.from_iterable(map(words, c))) for c in lists]
                self._phrases.update(zip(todo, phrases, strict=True))

    def _part_of(
        self, chunks: list[str], part: Callable[[_Entry], tuple[str, ...]]
    ) -> Callable[[str], tuple[str, ...]]:
        """``chunk -> part(entry of chunk)`` for analysed ``chunks`` (a dict lookup)."""
        parts = map(part, map(self._chunks.__getitem__, chunks))
        return dict(zip(chunks, parts, strict=True)).__getitem__

    def _lookup(self, chunks: list[str]) -> list[_Entry]:
        memo = self._chunks
        found: list[_Entry | None] = list(map(memo.get, chunks))
        if None not in found:
            return found  # type: ignore[return-value]
        shared, word = self._cache.current.get, self._cache.word
        for chunk in compress(chunks, map(_is_none, found)):
            if chunk not in memo:
                memo[chunk] = shared(chunk) or _entry(_analyse(chunk, word))
        return list(map(memo.__getitem__, chunks))

    def tokenize(self, text: str) -> list[str]:
        """``tokenize(text)``: terms without stopwords."""
        found = self._prose.get(text)
        if found is None:
            entries = self._lookup(_chunks(text))
            found = self._prose[text] = list(chain.from_iterable(map(_CONTENT, entries)))
        return found

    def tokenize_name(self, name: str) -> list[str]:
        """``tokenize_name(name)``: terms with stopwords."""
        found = self._names.get(name)
        if found is None:
            entries = self._lookup(_chunks(name))
            found = self._names[name] = list(chain.from_iterable(map(_ALL, entries)))
        return found

    def name_phrase(self, name: str) -> tuple[str, ...]:
        """``name_phrase(name)``."""
        found = self._phrases.get(name)
        if found is None:
            entries = self._lookup(_chunks(name))
            found = self._phrases[name] = tuple(chain.from_iterable(map(_PHRASE, entries)))
        return found
