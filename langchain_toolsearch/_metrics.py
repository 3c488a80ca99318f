"""Counters of what the tool search did and what failed, process-wide.

Read in-process with :func:`counts` (``StateStats.counters``); exported as OpenTelemetry
counters of the meter ``"langchain_toolsearch"`` when ``opentelemetry-api`` is installed
(whichever ``MeterProvider`` the application sets, even after the first count). Without
it, counting stays in-process only.

Attributes are bounded: server names, exception class names and fixed reasons, at most
`SERIES` sets per counter; never a thread id, a message or a credential.
docs/deploying.md lists the counters.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

METER_NAME = "langchain_toolsearch"

COUNTERS: dict[str, str] = {
    "toolsearch.search.calls": "search_tools calls",
    "toolsearch.search.no_hit": "search_tools calls that found nothing",
    "toolsearch.load.calls": "load_tool calls",
    "toolsearch.call.refused": "tool calls refused by the guard, by reason",
    "toolsearch.source.failures": "failed tool sources (resolver, MCP, provider, filter), by kind",
    "toolsearch.mcp.call_failures": "MCP tool calls without an answer, by server and cause",
    "toolsearch.mcp.list_failures": "failed listings of an MCP server's tools",
    "toolsearch.mcp.session_failures": "open MCP sessions lost on their own",
    "toolsearch.store.errors": "failed loaded-tool store operations, by operation and cause",
    "toolsearch.run.reruns": "tool calls found started before (a re-run after a crash)",
}
"""Every counter's name and description (the OpenTelemetry instruments)."""

_ATTRIBUTE_CHARS = 80
SERIES = 200
"""Most attribute sets one counter keeps (and exports); more count as ``other``."""

_lock = threading.Lock()
_counts: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()
_series: dict[str, int] = {}
_instruments: dict[str, Any] = {}
_meter: list[Any] = []
"""The OpenTelemetry meter, ``None`` without ``opentelemetry-api``; empty until first used."""


def _otel_meter() -> Any:
    """The meter ``"langchain_toolsearch"``, or ``None`` without ``opentelemetry-api``."""
    if not _meter:
        try:
            from opentelemetry import metrics  # the extra [otel]
        except ImportError:
            _meter.append(None)
        else:
            _meter.append(metrics.get_meter(METER_NAME))
    return _meter[0]


def count(name: str, **attributes: str) -> None:
    """Add one to counter ``name`` (a key of `COUNTERS`) with ``attributes``.

    A counter keeps at most `SERIES` attribute sets (server names are chosen by whoever
    configures a server); later new sets count under ``other`` for every attribute.
    """
    description = COUNTERS[name]  # a name not declared fails with or without OpenTelemetry
    attrs = tuple(sorted((key, str(value)[:_ATTRIBUTE_CHARS]) for key, value in attributes.items()))
    with _lock:
        if (name, attrs) not in _counts:
            _series[name] = seen = _series.get(name, 0) + 1
            if seen > SERIES:
                attrs = tuple((key, "other") for key, _ in attrs)
        _counts[(name, attrs)] += 1
        instrument = _instruments.get(name)
        if name not in _instruments:
            meter = _otel_meter()
            _instruments[name] = instrument = (
                None
                if meter is None
                else meter.create_counter(name, unit="1", description=description)
            )
    if instrument is not None:
        instrument.add(1, dict(attrs))


def counts() -> dict[str, int]:
    """Every count so far, keyed ``name`` or ``name{key=value,...}`` (attributes sorted)."""
    with _lock:
        items = sorted(_counts.items())
    return {
        name + ("{" + ",".join(f"{k}={v}" for k, v in attrs) + "}" if attrs else ""): value
        for (name, attrs), value in items
    }
