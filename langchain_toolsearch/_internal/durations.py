"""Durations given by developers: seconds or ``timedelta``, and millisecond-looking values.

Durations are seconds; a number ported from Mastra's milliseconds warns
(`DurationUnitWarning`); a ``timedelta`` never does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import timedelta

__all__ = [
    "as_seconds",
    "converted_from_milliseconds",
    "looks_like_ms_timeout",
    "looks_like_ms_ttl",
    "ms_conversion_active",
    "seconds_of",
]


def as_seconds(value: object) -> object:
    """``value`` in seconds (a float) if it is a ``timedelta``, else ``value`` unchanged."""
    return value.total_seconds() if isinstance(value, timedelta) else value


def seconds_of(value: float | timedelta) -> float:
    """``value`` in seconds, as a float."""
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def looks_like_ms_ttl(seconds: float) -> bool:
    """A ``ttl`` that is a whole multiple of 1,000 from 1,000 up (3600, 86400 are not)."""
    return seconds >= 1000 and seconds % 1000 == 0


def looks_like_ms_timeout(seconds: float) -> bool:
    """Looks like ms: a multiple of 1,000, or 100-999 in steps of 50 but not whole minutes."""
    if looks_like_ms_ttl(seconds):
        return True
    return 100 <= seconds < 1000 and seconds % 50 == 0 and seconds % 60 != 0


_CONVERTED: ContextVar[bool] = ContextVar("toolsearch_ms_converted", default=False)


@contextlib.contextmanager
def converted_from_milliseconds() -> Iterator[None]:
    """Within it, durations were converted from milliseconds: none warns (``from_mastra``)."""
    token = _CONVERTED.set(True)
    try:
        yield
    finally:
        _CONVERTED.reset(token)


def ms_conversion_active() -> bool:
    """Whether the durations being validated were converted from milliseconds."""
    return _CONVERTED.get()
