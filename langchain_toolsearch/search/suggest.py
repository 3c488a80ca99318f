"""Bounded "did you mean" suggestions for tool names the model got wrong.

Every step is capped: well under a millisecond at 100,000 tools.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Iterable, Sequence
from itertools import islice
from operator import itemgetter

__all__ = ["MAX_NAME_CHARS", "NameSuggester", "fold_name", "name_words"]

MAX_NAME_CHARS = 128
"""Longer asked names get no suggestions."""

_SEPARATORS = re.compile(r"[\s_\-./:]+")
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")
_MAX_WORDS = 6  # words of the asked name used
_MAX_SCAN = 5_000  # names of the rarest word checked for the other words
_NEIGHBOURS = 6  # names compared on each side of the asked one, in each sort order
_MIN_RATIO = 0.8  # difflib ratio of a near spelling


def fold_name(name: str) -> str:
    """Lowercase without separators: ``Create-Issue``, ``createIssue`` -> ``createissue``."""
    plain = name.replace("_", "").replace("-", "")
    if plain.isascii() and plain.isalnum():  # most names: no regex
        return plain.lower()
    return _SEPARATORS.sub("", name.strip().lower())


def name_words(name: str) -> list[str]:
    """Lowercase words of a name: ``getWeather_now`` -> ``get``, ``weather``, ``now``."""
    plain = name.replace("_", "").replace("-", "").replace(".", "")
    if plain.isascii() and plain.isalpha() and plain.islower():  # most names: no regex
        return [w for w in name.replace("-", "_").replace(".", "_").split("_") if w]
    return [w.lower() for w in _WORDS.findall(name)]


class NameSuggester:
    """Suggestions over a fixed set of names, from maps and sorted lists built once.

    Args:
        names: ``(name to suggest, other spellings of it)`` pairs (a provider-safe
            name with the original).
    """

    def __init__(self, names: Iterable[tuple[str, Sequence[str]]]) -> None:
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
            for near in order[max(at - _NEIGHBOURS, 0) : at + _NEIGHBOURS]:
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
        words = list(dict.fromkeys(name_words(name)))[:_MAX_WORDS]
        hits = dict.fromkeys(self._folded.get(needle, []))
        hits.update(dict.fromkeys(self._containing(needle, words, limit)))
        hits.update(dict.fromkeys(self._prefixed(needle, limit)))
        hits.update(dict.fromkeys(self._contained(words)))
        first = sorted(hits)[:limit]
        if len(first) < limit:
            first.extend(n for n in self._near(needle) if n not in hits)
        return first[:limit]
