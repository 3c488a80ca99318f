"""Typed values in a query (dates, times, e-mail addresses, URLs): evidence for parameters.

A request carries the values of the call: ``the weather in Sacramento on
April 22nd 2023`` needs a tool that can take a date, and of the catalog's
weather tools the one with a ``date`` parameter is the one that can answer
it. The words of a value (``april``, ``22nd``) say nothing of that; its type
does. Like a typed slot in a semantic parser, each value type recognised in
the query adds the parameter word of that type (``date``, ``time``,
``email``, ``url``) as a related query term at reduced weight
(``value_type_weight`` of a written term, the ``values`` stage of
:class:`~langchain_toolsearch.search.stages.SearchStages`), so among tools
the query's words rank alike, those that take the value rank first, and a
tool matching the query's own words still ranks above one that merely takes
a date.

Only the patterns below are recognised (English month and weekday names,
ISO and slashed dates, clock times, e-mail addresses, ``http(s)`` URLs and
bare domains such as ``example.com`` or ``www.python.org``);
the scan is one regular expression per type, linear in the query's length,
and a type whose word the query already says (``what date is ...``) adds
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["VALUE_TYPES", "value_terms"]

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
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    (
        "url",
        re.compile(
            rf"\bhttps?://\S|\bwww\.[\w-]|(?<![@\w.-])(?:[\w-]+\.)+{_TLD}\b(?![.@]?\w)",
            re.IGNORECASE,
        ),
    ),
)
"""``(parameter word, pattern)`` per value type, in the order their terms are added."""


def value_terms(query: str, stem: Callable[[str], str], terms: list[str]) -> list[str]:
    """The stemmed parameter words of the value types found in ``query``, not in ``terms``.

    ``value_terms("weather in Paris on April 22nd", stem, [...]) == ["date"]``.
    """
    out: list[str] = []
    for word, pattern in VALUE_TYPES:
        term = stem(word)
        if term not in terms and term not in out and pattern.search(query):
            out.append(term)
    return out
