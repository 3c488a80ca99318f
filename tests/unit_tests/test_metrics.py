"""Counters of searches, loads, refused calls and failures; failure lines name their thread.

Real ``create_agent`` graphs with scripted models and checkpointers; a real
``SqliteStore`` whose connection is closed; OpenTelemetry's SDK with an
``InMemoryMetricReader``. Counters are process-wide: each test compares the
counts before and after its runs.
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.sqlite import SqliteStore
from opentelemetry import metrics
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._support import COUNTERS, SERIES, count, counts
from langchain_toolsearch.types import ToolSearchFilterArgs
from tests.support.example_tools import get_weather, send_email
from tests.support.fakes import ScriptedChatModel, ai, call, tool_messages
from tests.support.paths import REPO_ROOT
from tests.unit_tests.test_started_calls import _run as crash_and_resume

SECRET = "sk-live-THREADSECRET0123456789"


@pytest.fixture(scope="module")
def reader() -> InMemoryMetricReader:
    """The process's MeterProvider, reading into memory (set once per process)."""
    made = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[made]))
    return made


def delta(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """Counts that moved, by how much."""
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}


def run(agent: Any, thread: str, text: str = "go") -> list[Any]:
    config: Any = {"configurable": {"thread_id": thread}}
    return list(agent.invoke({"messages": [("user", text)]}, config)["messages"])


def one_thread_script() -> list[AIMessage]:
    """Search (a hit), search (none), call before loading, load, call, unknown tool."""
    return [
        ai(call("search_tools", {"query": "weather city"})),
        ai(call("search_tools", {"query": "zzqx vvbnm"})),
        ai(call("get_weather", {"city": "Paris"})),
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Paris"})),
        ai(call("no_such_tool", {})),
        ai(content="done"),
    ]


def test_searches_loads_and_refusals_add_up_over_two_threads() -> None:
    model = ScriptedChatModel(steps=[*one_thread_script(), *one_thread_script()])
    mw = ToolSearchMiddleware(tools=[get_weather, send_email])
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    before = counts()
    first = run(agent, "thread-a")
    assert delta(before, counts()) == {
        "toolsearch.search.calls": 2,
        "toolsearch.search.no_hit": 1,
        "toolsearch.load.calls": 1,
        "toolsearch.call.refused{reason=not_loaded}": 1,
        "toolsearch.call.refused{reason=unknown}": 1,
    }
    run(agent, "thread-b")
    moved = delta(before, mw.get_state_stats().counters)
    assert moved == {
        "toolsearch.search.calls": 4,
        "toolsearch.search.no_hit": 2,
        "toolsearch.load.calls": 2,
        "toolsearch.call.refused{reason=not_loaded}": 2,
        "toolsearch.call.refused{reason=unknown}": 2,
    }
    assert [m.status for m in tool_messages(first)][2:] == ["error", "success", "success", "error"]


def test_evicted_and_denied_calls_are_told_apart() -> None:
    denied: set[str] = set()

    def allow(args: ToolSearchFilterArgs) -> bool:
        return args.tool_name not in denied

    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("load_tool", {"tool_name": "send_email"})),
        ai(call("get_weather", {"city": "Paris"})),  # evicted by send_email (max_loaded=1)
        ai(content="done"),
        ai(call("send_email", {"to": "a", "body": "b"})),  # filtered out since
        ai(content="done"),
    ]
    mw = ToolSearchMiddleware(tools=[get_weather, send_email], max_loaded=1, filter=allow)
    agent = create_agent(
        ScriptedChatModel(steps=steps), tools=[], middleware=[mw], checkpointer=InMemorySaver()
    )
    before = counts()
    run(agent, "thread-e")
    denied.add("send_email")
    run(agent, "thread-e")
    moved = delta(before, counts())
    assert moved["toolsearch.call.refused{reason=evicted}"] == 1
    assert moved["toolsearch.call.refused{reason=denied}"] == 1
    assert "toolsearch.call.refused{reason=not_loaded}" not in moved


def test_a_failing_filter_warns_once_naming_the_first_thread_and_debugs_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(args: ToolSearchFilterArgs) -> bool:
        raise RuntimeError(f"policy service down token={SECRET}")

    steps = [ai(call("search_tools", {"query": "weather"})), ai(content="done")] * 2
    mw = ToolSearchMiddleware(tools=[get_weather], filter=broken)
    agent = create_agent(
        ScriptedChatModel(steps=steps), tools=[], middleware=[mw], checkpointer=InMemorySaver()
    )
    before = counts()
    caplog.set_level(logging.DEBUG, logger="langchain_toolsearch")
    run(agent, "thread-first")
    run(agent, f"thread-{SECRET}")
    lines = [
        (r.levelno, r.getMessage()) for r in caplog.records if "RuntimeError" in r.getMessage()
    ]
    warnings = [text for level, text in lines if level == logging.WARNING]
    debugs = [text for level, text in lines if level == logging.DEBUG]
    assert len(warnings) == 1 and warnings[0].endswith("(first in thread thread-first)")
    assert debugs and all("(in thread thread-" in text for text in debugs)
    assert debugs == [
        warnings[0].replace("(first in thread thread-first)", "(in thread thread-[redacted])")
    ]
    assert not [r for r in caplog.records if SECRET in r.getMessage()]
    moved = delta(before, counts())
    key = "toolsearch.source.failures{cause=RuntimeError,kind=filter}"
    assert moved[key] == sum(1 for _ in lines)  # each failure counted, logged or not
    assert not [k for k in counts() if SECRET in k or "thread-" in k]


@pytest.fixture
def closed_store(tmp_path: Path) -> Iterator[SqliteStore]:
    conn = sqlite3.connect(tmp_path / "store.db", check_same_thread=False, isolation_level=None)
    store = SqliteStore(conn)
    store.setup()
    conn.close()  # every operation now fails: "Cannot operate on a closed database."
    yield store


def test_a_failing_store_is_logged_once_and_counted_each_time(
    closed_store: SqliteStore, caplog: pytest.LogCaptureFixture
) -> None:
    steps = [ai(call("search_tools", {"query": "weather"})), ai(content="done")] * 2
    mw = ToolSearchMiddleware(tools=[get_weather], storage="store")
    agent = create_agent(
        ScriptedChatModel(steps=steps),
        tools=[],
        middleware=[mw],
        checkpointer=InMemorySaver(),
        store=closed_store,
    )
    before = counts()
    caplog.set_level(logging.DEBUG, logger="langchain_toolsearch.storage")
    for thread in ("store-a", "store-b"):
        with pytest.raises(Exception, match="the loaded-tool store failed: ProgrammingError"):
            run(agent, thread)  # the model step cannot read the thread's loads
    moved = delta(before, counts())
    assert moved == {"toolsearch.store.errors{cause=ProgrammingError,operation=get}": 2}
    lines = [r for r in caplog.records if "the loaded-tool store failed" in r.getMessage()]
    warnings = [r.getMessage() for r in lines if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "(first in thread store-a)" in warnings[0], warnings
    assert any("(in thread store-b)" in r.getMessage() for r in lines if r.levelno == logging.DEBUG)


@pytest.mark.parametrize(("storage", "records"), [("store", "store"), ("in-memory", "process")])
@pytest.mark.parametrize(("idempotent", "outcome"), [(None, "run"), (False, "refused")])
def test_a_rerun_after_a_crash_is_counted(
    storage: str, records: str, idempotent: bool | None, outcome: str
) -> None:
    before = counts()
    runs, _ = crash_and_resume(idempotent, storage)
    assert runs == ([3, 3] if outcome == "run" else [3])
    moved = delta(before, counts())
    assert {k: v for k, v in moved.items() if k.startswith("toolsearch.run.")} == {
        f"toolsearch.run.reruns{{outcome={outcome},records={records}}}": 1
    }


def _points(reader: InMemoryMetricReader, name: str) -> dict[tuple[tuple[str, Any], ...], int]:
    data = reader.get_metrics_data()
    found: dict[tuple[tuple[str, Any], ...], int] = {}
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            if scope.scope.name != "langchain_toolsearch":
                continue
            for metric in scope.metrics:
                if metric.name == name:
                    for point in metric.data.data_points:
                        assert isinstance(point, NumberDataPoint)  # a counter's
                        found[tuple(sorted((point.attributes or {}).items()))] = int(point.value)
    return found


def test_the_counts_are_exported_as_opentelemetry_counters(reader: InMemoryMetricReader) -> None:
    model = ScriptedChatModel(steps=[*one_thread_script(), *one_thread_script()])
    agent = create_agent(
        model,
        tools=[],
        middleware=[ToolSearchMiddleware(tools=[get_weather])],
        checkpointer=InMemorySaver(),
    )
    run(agent, "otel")  # counters exist once used: at least one run first
    searches, refused = (
        _points(reader, "toolsearch.search.calls"),
        _points(reader, "toolsearch.call.refused"),
    )
    run(agent, "otel-2")
    assert _points(reader, "toolsearch.search.calls") == {(): searches[()] + 2}
    after = _points(reader, "toolsearch.call.refused")
    for reason in ("not_loaded", "unknown"):
        key = (("reason", reason),)
        assert after[key] == refused.get(key, 0) + 1
    names = {
        m.name
        for r in reader.get_metrics_data().resource_metrics  # type: ignore[union-attr]
        for s in r.scope_metrics
        for m in s.metrics
    }
    assert names <= set(COUNTERS) and {"toolsearch.load.calls"} <= names


def test_without_opentelemetry_counting_still_works() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["opentelemetry"] = None  # as if opentelemetry-api were not installed
        from langchain.agents import create_agent
        from langgraph.checkpoint.memory import InMemorySaver
        from langchain_toolsearch import ToolSearchMiddleware
        from tests.support.example_tools import get_weather
        from tests.support.fakes import ScriptedChatModel, ai, call

        steps = [ai(call("search_tools", {"query": "weather"})), ai(call("nope", {}))]
        mw = ToolSearchMiddleware(tools=[get_weather])
        agent = create_agent(
            ScriptedChatModel(steps=steps), tools=[], middleware=[mw],
            checkpointer=InMemorySaver(),
        )
        agent.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "t"}})
        print(sorted(mw.get_state_stats().counters.items()))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(
        [("toolsearch.call.refused{reason=unknown}", 1), ("toolsearch.search.calls", 1)]
    )


def test_attributes_are_bounded() -> None:
    from langchain_toolsearch import _support

    before = counts()
    _support.count("toolsearch.store.errors", operation="get", cause="E" * 500)
    keys: Sequence[str] = list(delta(before, counts()))
    assert keys == ["toolsearch.store.errors{cause=" + "E" * 80 + ",operation=get}"]


def test_a_counter_keeps_a_bounded_number_of_attribute_sets() -> None:
    """Names chosen by whoever configures a server cannot grow the counters without bound."""
    for i in range(SERIES + 50):
        count("toolsearch.mcp.list_failures", server=f"bounded-{i}", cause="OSError")
    kept = [k for k in counts() if k.startswith("toolsearch.mcp.list_failures{")]
    assert len(kept) <= SERIES + 1
    assert counts()["toolsearch.mcp.list_failures{cause=other,server=other}"] >= 50


def test_a_thread_id_reaches_the_log_without_escape_sequences(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(args: ToolSearchFilterArgs) -> bool:
        raise RuntimeError("policy service down \x1b[2J")

    steps = [ai(call("search_tools", {"query": "weather"})), ai(content="done")]
    mw = ToolSearchMiddleware(tools=[get_weather], filter=broken)
    agent = create_agent(
        ScriptedChatModel(steps=steps), tools=[], middleware=[mw], checkpointer=InMemorySaver()
    )
    caplog.set_level(logging.DEBUG, logger="langchain_toolsearch")
    run(agent, "t-\x1b[31mred\x1b]0;title\x07\r\nFAKE LINE")
    lines = [r.getMessage() for r in caplog.records if "RuntimeError" in r.getMessage()]
    assert lines and "(first in thread t-" in lines[0]
    assert not [line for line in lines if "\x1b" in line or "\x07" in line or "\n" in line]
