"""Tool names in a query: exact keys, names as written, words ending a name, stopword pairs."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from itertools import pairwise

from langchain_toolsearch.search.protocol import ToolDocument, name_key, searchable_names
from langchain_toolsearch.search.tokenize import STOPWORDS, BatchTokenizer

__all__ = ["NameMatcher"]

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
        self._name_keys: dict[str, list[int]] = {}
        self._literal_names: dict[str, list[int]] = {}
        self._endings: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        pairs: set[tuple[str, str]] = set()
        self._words: list[tuple[str, ...]] = []  # name words per doc
        name_keys, literal_names = self._name_keys, self._literal_names
        for i, doc in enumerate(documents):
            all_names = list(dict.fromkeys((doc.name, *doc.aliases))) if doc.aliases else [doc.name]
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
                    self._endings.setdefault(phrase[-1], []).append((i, phrase))
            for key in dict.fromkeys(map(name_key, all_names)):
                if key:
                    name_keys.setdefault(key, []).append(i)
            for written in dict.fromkeys(map(literal, all_names)):
                literal_names.setdefault(written, []).append(i)
            self._words.append(words)
        for ending in self._endings.values():  # longest first: a search stops at shorter ones
            ending.sort(key=lambda hit: -len(hit[1]))
        self._name_pairs = frozenset(pairs)

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
                bare = tuple(w for w in phrase if w not in STOPWORDS)
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
                if sorted(phrase[-size:]) == asked:
                    found.append(i)
        return found

    def exact_docs(self, query: str) -> list[int]:
        """Docs named by the whole query, by an identifier in it, or by a word of a short query."""
        if not self._name_keys:
            return []
        chunks = [c for c in _QUERY_CHUNKS.split(query) if c]
        keys = [name_key(query)]
        keys.extend(name_key(c) for c in chunks if _IDENTIFIER.search(c))
        hits: dict[int, None] = {}
        for key in dict.fromkeys(keys):
            found = self._name_keys.get(key)
            if found:
                hits.update(dict.fromkeys(found))
        return list(hits)

    def literal_docs(self, query: str) -> list[int] | None:
        """Docs with a name exactly as ``query`` is written (case and surrounding space aside)."""
        return self._literal_names.get(literal(query))
