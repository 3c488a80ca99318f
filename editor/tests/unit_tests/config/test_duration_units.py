"""Durations are seconds or ``timedelta``; millisecond-looking seconds warn.

The seed system (Mastra) takes milliseconds: a saved MCP ``timeout: 500`` there
is half a second, here 500 seconds. Plain numbers that look like milliseconds
warn (`TimeoutUnitWarning`) from the model validator, so
``MCPClientConfig.model_validate`` warns too; ``from_mastra`` converts and never
warns; a ``timedelta`` is explicit and never warns.
"""

from __future__ import annotations

import warnings
from datetime import timedelta

import pytest

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._access import ToolPolicy, positive_seconds
from langchain_toolsearch._options import TTLUnitWarning
from langchain_toolsearch.errors import DurationUnitWarning, ToolSearchConfigError
from langchain_toolsearch_editor import MCPClientConfig, parse_mcp_client
from langchain_toolsearch_editor.errors import TimeoutUnitWarning, ToolConfigError
from tests.support.library_fixtures import library

WARNS = [500, 100, 150, 250, 950, 1000, 5000, 9000, 30000, 60000.0]
SILENT = [0.5, 1, 5, 30, 60, 99, 120, 300, 600, 720, 999, 999.5, 1001, 3600, 7200, 86400]


def _client(timeout: object) -> dict[str, object]:
    return {"servers": {"s": {"command": "x", "timeout": timeout}}}


@pytest.mark.parametrize("timeout", WARNS)
def test_a_millisecond_looking_timeout_warns_naming_seconds(timeout: float) -> None:
    with pytest.warns(TimeoutUnitWarning) as caught:
        client = MCPClientConfig.model_validate(_client(timeout))
    assert client.servers["s"].timeout == timeout  # accepted as given
    message = str(caught[0].message)
    assert f"servers.s.timeout: {timeout:g} seconds" in message
    assert "looks like milliseconds" in message and f"timedelta(seconds={timeout:g})" in message
    assert issubclass(TimeoutUnitWarning, DurationUnitWarning)
    assert issubclass(TTLUnitWarning, DurationUnitWarning)
    assert issubclass(DurationUnitWarning, UserWarning)


@pytest.mark.parametrize("timeout", SILENT)
def test_a_timeout_in_seconds_does_not_warn(timeout: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DurationUnitWarning)
        assert parse_mcp_client(_client(timeout)).servers["s"].timeout == timeout


def test_a_timeout_timedelta_is_seconds_and_never_warns() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DurationUnitWarning)
        client = MCPClientConfig.model_validate(_client(timedelta(seconds=500)))
        short = MCPClientConfig.model_validate(_client(timedelta(milliseconds=1500)))
    assert client.servers["s"].timeout == 500.0 and short.servers["s"].timeout == 1.5
    assert client.to_json()["servers"]["s"]["timeout"] == 500.0  # JSON stays seconds


@pytest.mark.parametrize("ms", [500, 500_000, 5000, 300_000, 1_000_000])
def test_from_mastra_round_trip_never_warns(ms: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DurationUnitWarning)
        client = MCPClientConfig.from_mastra(_client(ms))
        again = MCPClientConfig.from_mastra(client.to_mastra())
    assert client.servers["s"].timeout == ms / 1000
    assert again == client and client.to_mastra()["servers"]["s"]["timeout"] == ms


def test_a_bad_timeout_names_seconds() -> None:
    with pytest.raises(ToolConfigError, match=r"at least 0\.001 seconds"):
        parse_mcp_client(_client(timedelta(0)))
    with pytest.raises(ToolConfigError, match="a number of seconds"):
        parse_mcp_client(_client("30s"))
    with pytest.raises(ToolConfigError, match="at most 31536000 seconds"):
        parse_mcp_client(_client(timedelta(days=400)))


def test_positive_seconds_takes_a_timedelta_and_names_seconds() -> None:
    assert positive_seconds("filter_timeout", timedelta(minutes=1)) == 60.0
    assert ToolPolicy(timeout=timedelta(seconds=2)).timeout == 2.0
    with pytest.raises(ToolSearchConfigError, match="number of seconds > 0") as caught:
        positive_seconds("resolve_timeout", timedelta(seconds=-1))
    assert "timedelta" in str(caught.value)


def test_option_timeouts_take_a_timedelta() -> None:
    built = ToolSearchMiddleware(
        tools=library(),
        filter_timeout=timedelta(seconds=3),
        resolve_timeout=timedelta(minutes=1),
    )
    assert built.options.filter_timeout == 3.0 and built.options.resolve_timeout == 60.0
