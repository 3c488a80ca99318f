"""The English word lists of the analysis and the stages: stopwords, function, request, date words.

ASCII, lowercase, unstemmed.
"""

from __future__ import annotations

__all__ = ["DATE_WORDS", "FUNCTION_WORDS", "REQUEST_WORDS", "STOPWORDS"]

STOPWORDS = frozenset(
    (  # noqa: SIM905 (word lists as text)
        "a am an and are as at be by can do does for from how i if in into is it its me my of on "
        "or our please should so that the their then there these this to us was we what when where "
        "which who will with would you your"
    ).split()
)
"""Dropped from queries and documents, never from names (``get_me`` keeps ``me``)."""

FUNCTION_WORDS = frozenset(
    (  # noqa: SIM905 (word lists as text)
        "about above after again against all any because been before being below between both but "
        "d did doing down during each few further had has having he her here hers herself him "
        "himself his itself ll m more most myself no nor not off once only other ought ours "
        "ourselves out over own re s same she such t than theirs them themselves they those "
        "through too under until up ve very were while whom why yours yourself yourselves"
    ).split()
)
"""The Snowball English stop list (snowballstem.org/algorithms/english/stop.txt) less
:data:`STOPWORDS` and :data:`REQUEST_WORDS`, plus contraction parts (``i'm`` -> ``m``).
Query terms that score but never make a hit alone (``content_match``)."""

REQUEST_WORDS: tuple[str, ...] = tuple(
    (  # noqa: SIM905 (word lists as text)
        "could help want need like tell know let hi hello hey thanks just also some have going "
        "looking trying wondering curious interested me"
    ).split()
)
"""Words framing a request (Bendersky & Croft 2008); ``me`` stands for ``i``, ``my``, ``myself``."""

DATE_WORDS: tuple[str, ...] = tuple(
    (  # noqa: SIM905 (word lists as text)
        "january february march april june july august september october november december monday "
        "tuesday wednesday thursday friday saturday sunday today tomorrow yesterday"
    ).split()
)
"""Day and month words, weighted like numbers (not ``may``: as often a modal verb)."""
