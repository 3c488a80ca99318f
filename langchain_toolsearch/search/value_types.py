"""Typed values in a query (dates, times, e-mail addresses, URLs): evidence for parameters.

Each value type found in the query adds its parameter word (``date``,
``time``, ``email``, ``url``) as a query term at ``value_type_weight`` (the
``values`` stage), unless the query already says it: ``weather in Sacramento
on April 22nd 2023`` favours the weather tool with a ``date`` parameter.
Recognised: English month and weekday names, ISO and slashed dates, clock
times, e-mail addresses, ``http(s)`` URLs, bare domains (``example.com``),
hosts with a port or path (``192.168.0.1:8080``, ``localhost/api``,
``[::1]``); one linear regular expression per type. Not URLs: version
numbers and decimals, slices (``a[::2]``), and a bare host, IPv4 address or
``localhost`` (as often a ``host`` value as a ``url``).
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

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
"""One part of a dotted IPv4 address, 0-255: ``3.11.7`` has three parts, ``300.1.1.1`` a
part too big, neither is an address."""
_PORT_OR_PATH = r"(?::\d{1,5}(?!\w)|/)"
"""What makes a host by address a URL value: ``:8080`` or ``/path`` right after it."""

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
    # each run of address characters is tried once from its start: a "\b" start at every word
    # would scan the rest of a run without "@" again from each (quadratic on hostile input)
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
