"""A ``ttl`` that looks like milliseconds (Mastra's unit) warns.

Mastra's ``ToolSearchProcessor`` takes ``ttl`` in milliseconds; here it is
seconds, so a ported ``60000`` would keep loads 16.7 hours instead of one
minute. A value >= 1,000 that is a whole multiple of 1,000 warns, naming the
unit and the fix; common second values (an hour, two, a day) stay silent, and
a ``timedelta`` never warns.
"""

from __future__ import annotations

import warnings
from datetime import timedelta

import pytest

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch.errors import ToolSearchConfigError, TTLUnitWarning
from tests.support.library_fixtures import library

CLASSES = pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])


@CLASSES
@pytest.mark.parametrize(
    ("ttl", "fix"),
    [
        (60000, "ttl=60 for 60000 ms"),
        (3_600_000.0, "ttl=3600 for 3600000 ms"),
        (5000, "ttl=5 for 5000 ms"),
        (1000, "ttl=1 for 1000 ms"),
        (9000, "ttl=9 for 9000 ms"),
    ],
)
def test_a_ttl_in_milliseconds_warns_with_the_unit_and_the_fix(
    cls: type, ttl: float, fix: str
) -> None:
    with pytest.warns(TTLUnitWarning) as caught:
        built = cls(tools=library(), ttl=ttl)
    message = str(caught[0].message)
    assert "looks like milliseconds" in message
    assert "in seconds here" in message
    assert fix in message and "divide by 1000" in message
    assert f"ttl=timedelta(seconds={int(ttl)})" in message
    assert caught[0].filename == __file__  # points at the constructor's caller
    assert issubclass(TTLUnitWarning, UserWarning)
    assert built.loaded_tool_store.ttl == float(ttl)  # warned, still accepted as given


@CLASSES
@pytest.mark.parametrize("ttl", [None, 0, 10, 500, 999, 3600, 7200, 86400, 10_001, 12_500.5])
def test_a_ttl_in_seconds_does_not_warn(cls: type, ttl: float | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", TTLUnitWarning)
        built = cls(tools=library(), ttl=ttl)
    assert built.loaded_tool_store.ttl == (3600.0 if ttl is None else float(ttl))


@CLASSES
def test_a_ttl_timedelta_is_seconds_and_never_warns(cls: type) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", TTLUnitWarning)
        built = cls(tools=library(), ttl=timedelta(seconds=5000))
        short = cls(tools=library(), ttl=timedelta(minutes=2))
    assert built.loaded_tool_store.ttl == 5000.0
    assert short.loaded_tool_store.ttl == 120.0


@CLASSES
def test_a_negative_ttl_names_seconds(cls: type) -> None:
    with pytest.raises(ToolSearchConfigError, match="ttl must be a number of seconds"):
        cls(tools=library(), ttl=timedelta(seconds=-1))
