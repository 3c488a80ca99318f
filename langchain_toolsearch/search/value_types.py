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
ISO and slashed dates, clock times, e-mail addresses, ``http(s)`` URLs, bare
domains such as ``example.com`` or ``www.python.org``, and hosts by address:
``192.168.0.1:8080``, ``10.0.0.5/admin``, ``localhost:3000``,
``localhost/api``, bracketed IPv6 such as ``[::1]`` or ``[::1]:8080``, and
any of them after ``http(s)://``); the scan is one regular expression per
type, linear in the query's length (every repeat is bounded or stops at a
character it cannot take), and a type whose word the query already says
(``what date is ...``) adds nothing.

Not URLs: version numbers and decimals (``3.11.7``, ``1.2.3``, ``3.14``:
an address has four parts of at most 255), dates, Python slices
(``a[::2]``: a subscript follows a name), and a host alone, an IPv4
address or ``localhost`` without a port, path or scheme: that is the value
of a ``host`` parameter as often as of a ``url`` one ("ping 10.0.0.1",
"runs on localhost", BFCL's "add a Postgres server, host '192.168.0.10'"),
so the ``url`` word would be false evidence. A port or a path makes it an address
a URL-taking tool reads; brackets are URL syntax for IPv6 (RFC 3986), and
the dot and top-level domain of ``example.com`` name a site.
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
