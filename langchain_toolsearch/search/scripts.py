"""Script-specific segmentation: CJK and spaceless-script runs, combining marks.

CJK runs yield character bigrams plus lone characters (Lucene's
``CJKAnalyzer``); Thai, Lao, Khmer and Myanmar the same over grapheme
clusters; combining marks stay with their letter; :func:`fold_accents` gives
a Latin word's unaccented form.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

__all__ = [
    "RUNS",
    "RUN_CHAR",
    "cjk_terms",
    "fold_accents",
    "is_cjk",
    "marked_chunk",
    "spaceless_terms",
]

_CJK_RANGES = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x2FA1F),  # CJK extensions B-F
)
_SPACELESS_RANGES = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0xAA60, 0xAA7F),  # Myanmar extended-A
)


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ranges)


_CJK_CLASS = _char_class(_CJK_RANGES)
_SPACELESS_CLASS = _char_class(_SPACELESS_RANGES)
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
RUN_CHAR = re.compile(f"[{_CJK_CLASS}{_SPACELESS_CLASS}]")
"""One character of a CJK or spaceless-script run."""
RUNS = re.compile(f"([{_CJK_CLASS}]+)|([{_SPACELESS_CLASS}]+)|([^{_CJK_CLASS}{_SPACELESS_CLASS}]+)")
"""A chunk's runs: groups (CJK run, spaceless-script run, anything else)."""


@cache
def _mark_class() -> str:
    """All combining marks (Mn, Mc, Me) as a regex class body (built on first use, ~10 ms)."""
    ranges: list[tuple[int, int]] = []
    for span in (range(0x0300, 0x20000), range(0xE0100, 0xE01F0)):
        categories = map(unicodedata.category, map(chr, span))
        for cp, category in zip(span, categories, strict=True):
            if category[0] != "M":  # Mn, Mc, Me: the only categories starting with M
                continue
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    return _char_class(tuple(ranges))


@cache
def marked_chunk() -> re.Pattern[str]:
    """The tokenizer's chunk pattern keeping combining marks inside words (non-ASCII text)."""
    letter = f"(?:[^\\W_]|[{_mark_class()}])"
    return re.compile(f"{letter}+(?:[_\\-./:]+{letter}+)*", re.UNICODE)


@cache
def _cluster() -> re.Pattern[str]:
    """One grapheme cluster, approximately: a character and the marks after it."""
    return re.compile(f".[{_mark_class()}]*", re.DOTALL)


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK character that is written without spaces."""
    return _CJK_CHAR.match(ch) is not None


def cjk_terms(run: str) -> list[str]:
    """Character bigrams of a CJK run (the character itself for a one-character run)."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def spaceless_terms(run: str) -> list[str]:
    """Bigrams of grapheme clusters (Thai, Lao, Khmer, Myanmar)."""
    clusters: list[str] = _cluster().findall(run)
    if len(clusters) == 1:
        return clusters
    return [clusters[i] + clusters[i + 1] for i in range(len(clusters) - 1)]


@lru_cache(maxsize=4096)
def fold_accents(word: str) -> str | None:
    """The word without diacritics if that leaves plain ASCII letters, else ``None``.

    ``"résumé" -> "resume"``, ``"café" -> "cafe"``; words of scripts whose
    marks are letters of their own (Devanagari, Thai...) and ASCII words give
    ``None``.
    """
    if word.isascii():
        return None
    decomposed = unicodedata.normalize("NFKD", word)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    if folded.isascii() and folded.isalnum():
        return folded.lower()
    return None
