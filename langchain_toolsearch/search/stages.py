"""The query-analysis stages on the BM25F core: switches, weights, and the terms they weigh.

* ``stemming``: Snowball English on ASCII words over 3 letters.
* ``exact_forms``: words as written also match as written, at ``exact_weight``
  (Lucene's ``KeywordRepeatFilter``).
* ``request_words``: request framing (``could``, ``help``) counts ``request_weight``
  (Bendersky & Croft 2008).
* ``values``: numbers, day and month words count ``number_weight``; a typed value
  adds its parameter word at ``value_type_weight`` (:func:`value_terms`).
* ``content_match``: with a content word in the query, weak words (request, date,
  function words) never make a hit alone (:func:`weak_terms`).
* ``name_words``: the words ending a tool's name close ``name_words_lift`` of the
  gap to the exact-name floor.
* ``spelling``: when nothing is found, unknown words are joined, split or corrected
  (:mod:`~langchain_toolsearch.search.spelling`), at ``spelling_weight``.

Each stays because it helps on data it was not tuned on (``docs/benchmarks.md``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search.analysis import stem
from langchain_toolsearch.search.words import DATE_WORDS, FUNCTION_WORDS, REQUEST_WORDS

__all__ = [
    "STAGE_NAMES",
    "VALUE_TYPES",
    "SearchStages",
    "is_weak",
    "value_terms",
    "weak_terms",
    "weights",
]


@dataclass(frozen=True)
class SearchStages:
    """Which query-analysis stages run (module doc), and their weights in ``[0, 1]``.

    Weights are shares of a written query term's weight.

    Raises:
        ToolSearchConfigError: If a weight is outside ``[0, 1]``.
    """

    stemming: bool = True
    exact_forms: bool = True
    request_words: bool = True
    values: bool = True
    content_match: bool = True
    name_words: bool = True
    spelling: bool = True

    exact_weight: float = 0.25
    """A word matched as written, on top of its stem's match."""
    request_weight: float = 0.25
    """A request word (``could``, ``help``, ``looking``)."""
    number_weight: float = 0.2
    """A number, or a day or month word."""
    value_type_weight: float = 0.5
    """A typed value's parameter word (``date`` for ``April 22nd``)."""
    name_words_lift: float = 0.5
    """Share of the gap to the exact-name floor closed for a name said word for word."""
    spelling_weight: float = 0.7
    """A corrected, split or joined word (a correct word always outweighs it)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                msg = f"SearchStages.{f.name} must be in [0, 1], got {value!r}"
                raise ToolSearchConfigError(msg)

    @classmethod
    def core(cls) -> SearchStages:
        """Every stage off: plain BM25F with exact names."""
        return cls(**dict.fromkeys(STAGE_NAMES, False))

    def without(self, *names: str) -> SearchStages:
        """A copy with the named stages off; ``ToolSearchConfigError`` for an unknown name."""
        return replace(self, **dict.fromkeys(_known(names), False))

    def only(self, *names: str) -> SearchStages:
        """A copy with only the named stages on; ``ToolSearchConfigError`` for an unknown name."""
        return self.without(*STAGE_NAMES).with_(*names)

    def with_(self, *names: str) -> SearchStages:
        """A copy with the named stages on; ``ToolSearchConfigError`` for an unknown name."""
        return replace(self, **dict.fromkeys(_known(names), True))


STAGE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SearchStages) if f.type == "bool")
"""The switchable stages, in the order they act on a query."""


def _known(names: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [n for n in names if n not in STAGE_NAMES]
    if unknown:
        msg = f"unknown search stages {unknown}; the stages are {list(STAGE_NAMES)}"
        raise ToolSearchConfigError(msg)
    return names


# as query terms: stemmed (the stemming stage on) and as written (off)
_REQUEST_TERMS = (frozenset(map(stem, REQUEST_WORDS)), frozenset(REQUEST_WORDS))
_DATE_TERMS = (frozenset(map(stem, DATE_WORDS)), frozenset(DATE_WORDS))
_WEAK_TERMS = (
    _REQUEST_TERMS[0] | _DATE_TERMS[0] | frozenset(map(stem, FUNCTION_WORDS)),
    _REQUEST_TERMS[1] | _DATE_TERMS[1] | FUNCTION_WORDS,
)


def weights(terms: Sequence[str], stages: SearchStages) -> list[float] | None:
    """Each query term's weight (terms stemmed with ``stemming`` on); ``None`` when all are 1.

    ``["multipli", "443"]`` -> ``[1.0, 0.2]``; ``["help", "weather"]`` -> ``[0.25, 1.0]``.
    """
    form = 0 if stages.stemming else 1
    dates = _DATE_TERMS[form] if stages.values else frozenset()
    requests = _REQUEST_TERMS[form] if stages.request_words else frozenset()
    number = stages.number_weight if stages.values else 1.0
    out = [
        number
        if (number != 1.0 and t.isdigit()) or t in dates
        else stages.request_weight
        if t in requests
        else 1.0
        for t in terms
    ]
    return out if any(w != 1.0 for w in out) else None


def weak_terms(terms: Sequence[str], stages: SearchStages) -> list[bool] | None:
    """Per query term, whether it cannot make a hit alone (``content_match``).

    Weak: a day or month, request or function word (not a number: ``HTTP 404``).
    ``None`` with the stage off, or no weak or no content term (``tell me more``).
    ``["more", "about", "jazz"]`` -> ``[True, True, False]``.
    """
    if not stages.content_match:
        return None
    weak = _WEAK_TERMS[0 if stages.stemming else 1]
    flags = [t in weak for t in terms]
    return flags if any(flags) and not all(flags) else None


def is_weak(word: str) -> bool:
    """Whether a lowercase, unstemmed word is a request, date or function word."""
    return word in _WEAK_TERMS[1]


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
