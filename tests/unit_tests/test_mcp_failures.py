"""`MCPFailures` logs each MCP failure once per cause with secrets redacted,
and counts every one. No server runs (the real failures are in
``tests/integration_tests/test_mcp_failure_logs.py``)."""

from __future__ import annotations

import logging

import pytest

from langchain_toolsearch.mcp import MCPSessionPool
from langchain_toolsearch.mcp._pool import MCPFailures

LOGGER = "langchain_toolsearch.mcp._pool"


def lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == level]


def test_a_cause_is_a_warning_once_then_debug_and_always_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    failures = MCPFailures()
    for _ in range(3):
        failures.record("call", ConnectionError("lost"), server="p", tool="sleep")
    failures.record("call", ConnectionError("lost"), server="p", tool="echo")  # another tool
    failures.record("call", ConnectionError("lost"), server="q", tool="sleep")  # another server
    failures.record("listing", OSError("no such file"), server="p")
    failures.record("listing", OSError("no such file"), server="x", log=False)  # counted only
    warnings = lines(caplog, logging.WARNING)
    assert len(warnings) == 4 and len(lines(caplog, logging.DEBUG)) == 2
    assert warnings[0] == (
        "tool search: MCP call to tool 'sleep' on server 'p' failed (ConnectionError): lost; "
        "the model got an error message"
    )
    assert failures.counts() == {"call_failures": 5, "list_failures": 2, "session_failures": 0}


def test_secrets_are_redacted_and_the_cause_words_kept(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    failures = MCPFailures()
    failures.record(
        "session",
        ConnectionError("refused with Authorization: Bearer tok-SECRET-123 at gateway"),
        server="h",
    )
    (line,) = lines(caplog, logging.WARNING)
    assert "tok-SECRET-123" not in line
    assert "MCP session to server 'h' was lost (ConnectionError): refused" in line


def test_exception_groups_are_logged_by_their_leaf(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    MCPFailures().record(
        "call", ExceptionGroup("tg", [BrokenPipeError("pipe closed")]), server="p", tool="t"
    )
    (line,) = lines(caplog, logging.WARNING)
    assert "(BrokenPipeError): pipe closed" in line


def test_names_with_percent_signs_do_not_break_the_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    MCPFailures().record("call", TimeoutError("late"), server="a%sb", tool="100%")
    (line,) = lines(caplog, logging.WARNING)
    assert "tool '100%' on server 'a%sb'" in line


def test_the_pool_shows_the_counts() -> None:
    with MCPSessionPool() as pool:
        pool.failures.record("call", TimeoutError("late"), server="p", tool="t", log=False)
        stats = pool.stats()
    assert (stats.call_failures, stats.list_failures, stats.session_failures) == (1, 0, 0)
