"""The query-analysis stages on top of the BM25F core: which are on, and every weight, in one place.

:class:`~langchain_toolsearch.search.index.BM25ToolIndex` is BM25F over a
tool's fields (the core: tokenizing, field weights, ``k1``, ``b``, exact
names). Each addition is a named stage, switched by one :class:`SearchStages`
value (``BM25ToolIndex.build(docs, stages=SearchStages(stemming=False))``),
with its weights declared here and nowhere else. A stage stays only because
it helps on data it was not tuned on (``docs/benchmarks.md`` shows each
stage's on/off effect on the tuning and validation sets; ``make bench``
prints it). The store-backed index's own ranking (vector similarity) has no
lexical stages; with ``fuse_bm25`` its in-process BM25 side has them all.

* ``stemming``: the Snowball English (Porter 2) stemmer on ASCII words of
  more than 3 letters (``issues`` -> ``issu``); other scripts are untouched.
* ``exact_forms``: with ``stemming`` on, the query's words as written also
  match the tools' words as written, at :attr:`SearchStages.exact_weight`
  on top of their stems' match, so ``star the repository`` ranks
  ``star_repository`` above ``list_starred_repositories``: the usual pairing
  of a stemmed field with an exact one (Elasticsearch's "mixing exact search
  with stemming"; Lucene's ``KeywordRepeatFilter``). One tokenizing pass
  gives both forms, sharing the stems' postings
  (:class:`~langchain_toolsearch.search.postings.Postings`); only words whose
  stem the library writes in more than one way count as written.
* ``request_words``: English words that frame a request to an assistant
  (``could``, ``help``, ``want``, ``looking``) count
  :attr:`SearchStages.request_weight` (Bendersky & Croft 2008, "Discovering
  key concepts in verbose queries"; ASCII words only).
* ``values``: a number or an English day or month word counts
  :attr:`SearchStages.number_weight`, and a typed value (a date, a clock
  time, an e-mail address, a URL or a bare domain) adds its parameter word
  (``date``, ``url``...) at :attr:`SearchStages.value_type_weight`
  (:mod:`~langchain_toolsearch.search.value_types`).
* ``content_match``: when the query has a content word, a tool is a hit only
  if it matches one: day and month words, request words and English function
  words (``about``, ``more``, ``any``: the rest of the Snowball English stop
  list) still score but never make a hit alone, so a tool with a long
  boilerplate description ("details and information about any ID, and
  more") is not the first hit of every chatty request (Lucene's
  minimum-should-match over the content terms;
  :mod:`~langchain_toolsearch.search.content_match`).
* ``name_words``: a query made of the exact words that end a tool's name
  (``create issue`` for ``github__create_issue``) closes
  :attr:`SearchStages.name_words_lift` of the gap to the exact-name floor,
  so the name said word for word beats longer siblings
  (``github__create_issue_comment``); 2 to 4 words also in another order
  (``create issue`` for ``jira.issue.create`` over ``jira.issue.create.meta``).
* ``spelling``: when the ranking finds nothing (under ``content_match``: no
  tool matches a content word) for a query with words the library does not
  know, those words are matched to a tool name written run together
  (``addissueocmment``), split or joined (``websearch``, ``web search``) or
  corrected within Lucene's automatic edit distance, scored at
  :attr:`SearchStages.spelling_weight` (:mod:`~langchain_toolsearch.search.spelling`).
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
