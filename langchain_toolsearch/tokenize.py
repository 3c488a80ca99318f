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
  produces terms;
* a light suffix stemmer folds plurals and common verb forms (``issues`` ->
  ``issue``, ``created`` -> ``creat``/``create`` share ``creat``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["STOPWORDS", "is_cjk", "name_phrase", "stem", "tokenize", "tokenize_name"]

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
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_a-zA-Z]+", re.UNICODE)


_CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES)
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_CJK_RUNS = re.compile(f"([{_CJK_CLASS}]+)|([^{_CJK_CLASS}]+)")


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK character that is written without spaces."""
    return _CJK_CHAR.match(ch) is not None


_SUFFIXES = ("ies", "sses", "ing", "ed", "es", "s")


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


def _identifier_terms(chunk: str, *, keep_stopwords: bool, compounds: bool = True) -> list[str]:
    parts = [p for p in _SEP.split(chunk) if p]
    terms: list[str] = []
    for part in parts:
        pieces = _CAMEL.findall(part) or [part]
        lowered = [p.lower() for p in pieces]
        for piece in lowered:
            if not keep_stopwords and piece in STOPWORDS:
                continue
            terms.append(stem(piece))
        if compounds and len(lowered) > 1:
            terms.append(part.lower())  # camelCase whole: "addperson", "v1"
    if compounds and len(parts) > 1:
        terms.append("_".join(parts).lower())  # whole identifier: "get_weather"
    return terms


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Split ``text`` into search terms.

    Args:
        text: Any text: a query, a description, a tool or parameter name.
        keep_stopwords: Keep English function words (used for names, where
            ``get_me`` must keep ``me``).

    Returns:
        Lowercase terms in order of appearance, with repeats. Empty only when
        ``text`` has no letters or digits, or (without ``keep_stopwords``)
        holds only stopwords.
    """
    text = unicodedata.normalize("NFKC", text)
    terms: list[str] = []
    for match in _CHUNK.finditer(text):
        chunk = match.group(0)
        if _CJK_CHAR.search(chunk):
            for cjk, other in _CJK_RUNS.findall(chunk):
                if cjk:
                    terms.extend(_cjk_terms(cjk))
                else:
                    terms.extend(_identifier_terms(other, keep_stopwords=keep_stopwords))
        else:
            terms.extend(_identifier_terms(chunk, keep_stopwords=keep_stopwords))
    return terms


def tokenize_name(name: str) -> list[str]:
    """Tokenize a tool or parameter name, keeping stopwords (``get_me`` -> ``get``, ``me``)."""
    return tokenize(name, keep_stopwords=True)


def name_phrase(name: str) -> tuple[str, ...]:
    """The word sequence of a name, without the joined forms (``getMe_now`` -> get, me, now)."""
    text = unicodedata.normalize("NFKC", name)
    terms: list[str] = []
    for match in _CHUNK.finditer(text):
        chunk = match.group(0)
        if _CJK_CHAR.search(chunk):
            continue
        terms.extend(_identifier_terms(chunk, keep_stopwords=True, compounds=False))
    return tuple(terms)
