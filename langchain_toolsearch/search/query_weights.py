"""How much each query term counts: argument values and request phrasing count less.

A request to an agent carries more than the tool's intent: the values of the
call (``443``, ``2023``, ``10``) and the phrasing of a request (``could you
help me``, ``I want to know``, ``I'm looking for``). In a catalog these words
are rare, so plain BM25 gives them a high IDF and they pull in unrelated
tools (``help_me``, a tool whose description mentions ``2023``). Following
the usual query-term weighting of verbose queries (Bendersky & Croft 2008,
"Discovering key concepts in verbose queries"), such terms keep a share of
their weight, so a tool that matches them still ranks above one that does
not, but a tool matching the intent words ranks first:

* a term made only of digits, or a word naming a day or month
  (:data:`DATE_WORDS`: ``april``, ``friday``, ``tomorrow``), counts
  :data:`NUMBER_WEIGHT`: both are values of the call (the value's type
  counts instead, see :mod:`~langchain_toolsearch.search.value_types`);
* a request word (:data:`REQUEST_WORDS`: verbs and greetings that frame a
  request to an assistant rather than name an operation) counts
  :data:`REQUEST_WEIGHT`.

Every other term counts 1. The request words are English conversational
framing as found in the user turns of public tool-use data (BFCL's queries,
the GitHub MCP and ToolSDK task sets): none of them names what a tool does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = [
    "DATE_WORDS",
    "NUMBER_WEIGHT",
    "REQUEST_WEIGHT",
    "REQUEST_WORDS",
    "build_request_terms",
    "weights",
]

NUMBER_WEIGHT = 0.2
"""Weight of a digits-only query term (a value of the call, rarely the tool's intent)."""

REQUEST_WEIGHT = 0.25
"""Weight of a request word (phrasing of the request, not its intent)."""

REQUEST_WORDS: tuple[str, ...] = (
    "could",
    "help",
    "want",
    "need",
    "like",
    "tell",
    "know",
    "let",
    "hi",
    "hello",
    "hey",
    "thanks",
    "just",
    "also",
    "some",
    "have",
    "going",
    "looking",
    "trying",
    "wondering",
    "curious",
    "interested",
    "me",
)
"""Words that frame a request to an assistant (stemmed like every term when loaded).

``me`` stands for every first-person pronoun (``i``, ``my``, ``myself`` fold to it);
it is a query term only next to a name word (``get me`` for ``get_me``)."""

DATE_WORDS: tuple[str, ...] = (
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "today",
    "tomorrow",
    "yesterday",
)
"""Words naming a day or month: values of a call, weighted like numbers (``may`` is left out:
it is a modal verb as often)."""

_REQUEST_TERMS: set[str] = set()
_DATE_TERMS: set[str] = set()


def build_request_terms(stem: Callable[[str], str]) -> None:
    """Fill the stemmed request-word and date-word sets (called once by the tokenizer at import)."""
    _REQUEST_TERMS.update(stem(w) for w in REQUEST_WORDS)
    _DATE_TERMS.update(stem(w) for w in DATE_WORDS)


def weights(terms: Sequence[str]) -> list[float] | None:
    """The weight of each query term, or ``None`` when every term counts 1.

    ``weights(["multipli", "443", "349"]) == [1.0, 0.2, 0.2]``;
    ``weights(["help", "weather"]) == [0.25, 1.0]``;
    ``weights(["weather", "april"]) == [1.0, 0.2]``.
    """
    out = [
        NUMBER_WEIGHT
        if t.isdigit() or t in _DATE_TERMS
        else REQUEST_WEIGHT
        if t in _REQUEST_TERMS
        else 1.0
        for t in terms
    ]
    return out if any(w != 1.0 for w in out) else None
