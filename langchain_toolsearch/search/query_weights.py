"""How much each query term counts: request phrasing and the values of the call count less.

Values (``443``, ``April``) and request phrasing (``could you help me``) are
rare in a catalog and get a high IDF; they keep only a share of their weight
(the ``values`` and ``request_words`` stages; Bendersky & Croft 2008).
:func:`weak_terms` gives ``content_match`` the terms that cannot make a hit
alone. English, ASCII word lists.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_toolsearch.search.stages import SearchStages
from langchain_toolsearch.search.stopwords import FUNCTION_WORDS
from langchain_toolsearch.search.tokenize import stem

__all__ = ["DATE_WORDS", "REQUEST_WORDS", "is_weak", "weak_terms", "weights"]

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

# as query terms: stemmed (the stemming stage on) and as written (off)
_REQUEST_TERMS = (frozenset(map(stem, REQUEST_WORDS)), frozenset(REQUEST_WORDS))
_DATE_TERMS = (frozenset(map(stem, DATE_WORDS)), frozenset(DATE_WORDS))
_WEAK_TERMS = (
    _REQUEST_TERMS[0] | _DATE_TERMS[0] | frozenset(map(stem, FUNCTION_WORDS)),
    _REQUEST_TERMS[1] | _DATE_TERMS[1] | FUNCTION_WORDS,
)


def weights(terms: Sequence[str], stages: SearchStages) -> list[float] | None:
    """The weight of each query term, or ``None`` when every term counts 1.

    With the default stages, ``weights(["multipli", "443", "349"], ...) ==
    [1.0, 0.2, 0.2]``; ``["help", "weather"]`` -> ``[0.25, 1.0]``;
    ``["weather", "april"]`` -> ``[1.0, 0.2]``.

    Args:
        terms: Query terms, stemmed when ``stages.stemming`` is on.
        stages: Which stages are on, and their weights.
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
    """Per query term, whether it cannot make a hit alone (the ``content_match`` stage).

    Weak: a day or month word, a request word or an English function word (a
    number may name what a tool is about: ``HTTP 404``). ``None`` when the
    stage is off or the query has no weak term or no content term (``tell me
    more`` keeps every hit). With the default stages,
    ``weak_terms(["more", "about", "jazz"], ...) == [True, True, False]``.

    Args:
        terms: Query terms, stemmed when ``stages.stemming`` is on.
        stages: Which stages are on.
    """
    if not stages.content_match:
        return None
    weak = _WEAK_TERMS[0 if stages.stemming else 1]
    flags = [t in weak for t in terms]
    return flags if any(flags) and not all(flags) else None


def is_weak(word: str) -> bool:
    """Whether a lowercase, unstemmed word is a request, date or English function word."""
    return word in _WEAK_TERMS[1]
