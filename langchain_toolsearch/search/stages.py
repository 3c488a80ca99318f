"""The query-analysis stages on top of the BM25F core: which are on, and every weight, in one place.

Each stage of :class:`SearchStages` stays only because it helps on data it
was not tuned on (``docs/benchmarks.md``):

* ``stemming``: Snowball English on ASCII words over 3 letters.
* ``exact_forms``: words as written also match as written, at ``exact_weight``
  (Lucene's ``KeywordRepeatFilter``), for stems the library writes several ways.
* ``request_words``: words framing a request (``could``, ``help``) count
  ``request_weight`` (Bendersky & Croft 2008).
* ``values``: numbers, day and month words count ``number_weight``; a typed
  value (date, time, e-mail, URL) adds its parameter word at
  ``value_type_weight`` (:mod:`~langchain_toolsearch.search.value_types`).
* ``content_match``: with a content word in the query, weak words (request,
  date, function words) never make a hit alone
  (:mod:`~langchain_toolsearch.search.content_match`).
* ``name_words``: the exact words ending a tool's name close ``name_words_lift``
  of the gap to the exact-name floor.
* ``spelling``: when nothing is found, unknown words are joined, split or
  corrected (:mod:`~langchain_toolsearch.search.spelling`), at ``spelling_weight``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from langchain_toolsearch.errors import ToolSearchConfigError

__all__ = ["STAGE_NAMES", "SearchStages"]

STAGE_NAMES: tuple[str, ...] = (
    "stemming",
    "exact_forms",
    "request_words",
    "values",
    "content_match",
    "name_words",
    "spelling",
)
"""The switchable stages, in the order they act on a query."""


@dataclass(frozen=True)
class SearchStages:
    """Which query-analysis stages run, and their weights (module docstring).

    Weights are shares of a written query term's weight (``[0, 1]``).

    Raises:
        ToolSearchConfigError: If a weight is outside ``[0, 1]``.
    """

    stemming: bool = True
    """Snowball English stemmer on ASCII words."""
    exact_forms: bool = True
    """Words as written also match words as written (with ``stemming`` on)."""
    request_words: bool = True
    """English request phrasing counts less."""
    values: bool = True
    """Numbers and day/month words count less; typed values add their parameter word."""
    content_match: bool = True
    """A tool matching only function words, request words or date words of the query is no hit."""
    name_words: bool = True
    """A query that is the words ending a tool's name lifts that tool."""
    spelling: bool = True
    """Correct or split/join unknown words when the ranking finds nothing."""

    exact_weight: float = 0.25
    """Weight of a word matched as written, on top of its stem's match."""
    request_weight: float = 0.25
    """Weight of a request word (``could``, ``help``, ``looking``)."""
    number_weight: float = 0.2
    """Weight of a number, or of a day or month word."""
    value_type_weight: float = 0.5
    """Weight of a typed value's parameter word (``date`` for ``April 22nd``)."""
    name_words_lift: float = 0.5
    """Share of the gap to the exact-name floor closed for the name said word for word."""
    spelling_weight: float = 0.7
    """Weight of a corrected or split/joined word (a correct word always outweighs it)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                msg = f"SearchStages.{f.name} must be in [0, 1], got {value!r}"
                raise ToolSearchConfigError(msg)

    @classmethod
    def core(cls) -> SearchStages:
        """Every stage off: plain BM25F with exact names (the core)."""
        return cls(**dict.fromkeys(STAGE_NAMES, False))

    def without(self, *names: str) -> SearchStages:
        """A copy with the named stages off.

        Raises:
            ToolSearchConfigError: If a name is not one of :data:`STAGE_NAMES`.
        """
        return replace(self, **dict.fromkeys(_known(names), False))

    def only(self, *names: str) -> SearchStages:
        """A copy with only the named stages on.

        Raises:
            ToolSearchConfigError: If a name is not one of :data:`STAGE_NAMES`.
        """
        return self.without(*STAGE_NAMES).with_(*names)

    def with_(self, *names: str) -> SearchStages:
        """A copy with the named stages on.

        Raises:
            ToolSearchConfigError: If a name is not one of :data:`STAGE_NAMES`.
        """
        return replace(self, **dict.fromkeys(_known(names), True))


def _known(names: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [n for n in names if n not in STAGE_NAMES]
    if unknown:
        msg = f"unknown search stages {unknown}; the stages are {list(STAGE_NAMES)}"
        raise ToolSearchConfigError(msg)
    return names
