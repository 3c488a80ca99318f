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
* CJK runs (Han, Hiragana, Katakana, Hangul) yield character bigrams plus the
  single characters of one-character runs, so text without spaces still
  produces terms (the usual CJK treatment in Lucene's ``CJKAnalyzer``);
* a light suffix stemmer folds plurals and common verb forms (``issues`` ->
  ``issue``, ``created`` -> ``creat``/``create`` share ``creat``); stopwords
  are never stemmed, so dropping them is a plain filter.

Speed: text is split into chunks with one regular expression and each
distinct chunk is analysed once (an LRU cache), so indexing 10,000 tools or
tokenizing a long query costs little more than the regular-expression scan.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import chain

__all__ = [
    "STOPWORDS",
    "clear_caches",
    "is_cjk",
    "name_phrase",
    "stem",
    "tokenize",
    "tokenize_name",
]

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "should",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "us",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
"""English function words dropped from queries and documents (but never from names)."""

_CJK_RANGES = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x2FA1F),  # CJK extensions B-F
)

# An identifier-ish chunk: letters/digits joined by identifier punctuation.
_CHUNK = re.compile(r"[^\W_]+(?:[_\-./:]+[^\W_]+)*", re.UNICODE)
_SEP = re.compile(r"[_\-./:]+")
# camelCase pieces: case changes count between ASCII letters only, so accented and
# non-Latin words stay whole ("café", "naïveBayes" -> "naïve", "Bayes")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+|[A-Z]+|\d+", re.UNICODE)
_PLAIN = re.compile(r"[a-z]+")  # the common case: one lowercase ASCII word

_CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES)
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_CJK_RUNS = re.compile(f"([{_CJK_CLASS}]+)|([^{_CJK_CLASS}]+)")

_CHUNK_CACHE = 1 << 18  # distinct chunks remembered (about 40 MB when full)


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK character that is written without spaces."""
    return _CJK_CHAR.match(ch) is not None


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Fold common English inflections: a small suffix stripper (not Porter).

    Only ASCII words longer than 3 characters are touched; the result keeps at
    least 3 characters.

    Args:
        word: A lowercase token.

    Returns:
        The stem, e.g. ``"issues" -> "issue"``, ``"created" -> "creat"``,
        ``"creates" -> "creat"``, ``"listing" -> "list"``.
    """
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ss") or word.endswith("us") or word.endswith("is"):
        return word
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if len(base) >= 2 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # "stopped" -> "stop"
            return base.rstrip("e") if base.endswith("e") and len(base) > 3 else base
    if word.endswith("es") and len(word) > 4 and word[-3] in "sxz":
        return word[:-2]
    if word.endswith("s") and len(word) > 3:
        word = word[:-1]
    # "create"/"created"/"creating" all fold to "creat"
    if word.endswith("e") and len(word) > 4:
        return word[:-1]
    return word


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _identifier_terms(chunk: str, *, compounds: bool) -> list[str]:
    """Terms of a chunk without CJK characters; stopwords kept, unstemmed."""
    parts = [p for p in _SEP.split(chunk) if p]  # CJK runs can leave "_get"
    terms: list[str] = []
    for part in parts:
        if part.isalpha() and part.islower():
            terms.append(part if part in STOPWORDS else stem(part))
            continue
        lowered = [p.lower() for p in _CAMEL.findall(part)] or [part.lower()]
        terms.extend(p if p in STOPWORDS else stem(p) for p in lowered)
        if compounds and len(lowered) > 1:
            terms.append(part.lower())  # camelCase whole: "addperson", "v1"
    if compounds and len(parts) > 1:
        terms.append("_".join(parts).lower())  # whole identifier: "get_weather"
    return terms


@lru_cache(maxsize=_CHUNK_CACHE)
def _chunk_terms(chunk: str, compounds: bool = True) -> tuple[str, ...]:
    """All terms of one chunk (stopwords kept), analysed once per distinct chunk."""
    if _PLAIN.fullmatch(chunk):
        return (chunk if chunk in STOPWORDS else stem(chunk),)
    if not _CJK_CHAR.search(chunk):
        return tuple(_identifier_terms(chunk, compounds=compounds))
    terms: list[str] = []
    for cjk, other in _CJK_RUNS.findall(chunk):
        if cjk:
            if compounds:
                terms.extend(_cjk_terms(cjk))
        else:
            terms.extend(_identifier_terms(other, compounds=compounds))
    return tuple(terms)


def clear_caches() -> None:
    """Empty the chunk and stemming caches (benchmarks time cold index builds)."""
    _chunk_terms.cache_clear()
    stem.cache_clear()


def _chunks(text: str) -> list[str]:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    found: list[str] = _CHUNK.findall(text)
    return found


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Split ``text`` into search terms.

    Args:
        text: Any text: a query, a description, a tool or parameter name.
        keep_stopwords: Keep English function words (used for names, where
            ``get_me`` must keep ``me``).

    Returns:
        Lowercase terms in order of appearance, with repeats. Without
        ``keep_stopwords`` the result is exactly the ``keep_stopwords``
        result less the :data:`STOPWORDS`. Empty only when ``text`` has no
        letters or digits, or (without ``keep_stopwords``) holds only
        stopwords.
    """
    terms = chain.from_iterable(map(_chunk_terms, _chunks(text)))
    if keep_stopwords:
        return list(terms)
    return [t for t in terms if t not in STOPWORDS]


def tokenize_name(name: str) -> list[str]:
    """Tokenize a tool or parameter name, keeping stopwords (``get_me`` -> ``get``, ``me``)."""
    return tokenize(name, keep_stopwords=True)


def name_phrase(name: str) -> tuple[str, ...]:
    """The word sequence of a name, without the joined forms (``getMe_now`` -> get, me, now).

    CJK characters are left out: a CJK name is matched through its bigrams.
    """
    return tuple(chain.from_iterable(_chunk_terms(c, False) for c in _chunks(name)))
