"""`langchain_toolsearch.mcp` against real MCP servers over stdio (no mocks).

Covers SPEC section 9: names (same name on two servers, prefix collisions,
``my_db``), schemas that survive, and errors (``isError``
with empty content, slow servers, no session opened by search/load).

Servers are started by the adapter for every listing and every call (one
process each), so the expensive libraries are built once per module.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, ToolException
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_mcp_adapters import sessions as adapter_sessions
from langchain_mcp_adapters import tools as adapter_tools
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, ToolRuntime

from langchain_toolsearch.mcp import (
    MCPLibrary,
    MCPSessionPool,
    MCPToolRoute,
    _pool,
    load_mcp_library,
)
from tests.support.mcp_fixtures import (
    GIT_COMMIT_MESSAGES,
    faulty_server_connection,
    make_git_repo,
    real_connections,
    schema_server_connection,
)
from tests.support.mcp_servers.schema_server import ECHO_SCHEMA, FETCH_PAGE_SCHEMA

# Each call starts a server process: leave room for a loaded 2-core machine.
CALL_TIMEOUT = 20.0


def _by_name(library: MCPLibrary) -> dict[str, BaseTool]:
    return {tool.name: tool for tool in library.tools}


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def _text(message: ToolMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(
        block if isinstance(block, str) else str(block.get("text", "")) for block in message.content
    )


async def _run_tool(tool: BaseTool, args: dict[str, Any], call_id: str = "call-1") -> ToolMessage:
    result = await tool.ainvoke(_call(tool.name, args, call_id))
    assert isinstance(result, ToolMessage)
    return result


def _tool_graph(tools: list[BaseTool]) -> Any:
    """START -> ToolNode -> END, so tools run as they do inside an agent."""
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    return builder.compile()


def _openai_schemas(library: MCPLibrary) -> str:
    return json.dumps([convert_to_openai_tool(tool) for tool in library.tools], sort_keys=False)


def _test_server_connections() -> dict[str, Any]:
    return {
        "schema": schema_server_connection(),
        "mcp_1": faulty_server_connection("mcp_1"),
        "mcp_2": faulty_server_connection("mcp_2"),
        "my_db": faulty_server_connection("my_db", ["execute_sql"]),
    }


@pytest.fixture(scope="module")
def real_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_git_repo(tmp_path_factory.mktemp("git") / "repo")


@pytest.fixture(scope="module")
def real_library(real_repo: Path) -> MCPLibrary:
    """time + git + fetch from the PyPI servers, listed once for the module."""
    client = MultiServerMCPClient(real_connections(real_repo))
    return asyncio.run(load_mcp_library(client))


@pytest.fixture(scope="module")
def test_library() -> MCPLibrary:
    """schema + mcp_1 + mcp_2 + my_db test servers, listed once for the module."""
    client = MultiServerMCPClient(_test_server_connections())
    return asyncio.run(load_mcp_library(client, timeout=CALL_TIMEOUT))


# --- real servers -----------------------------------------------------------


def test_real_servers_load(real_library: MCPLibrary) -> None:
    tools = _by_name(real_library)
    assert real_library.failures == {}
    assert {"get_current_time", "convert_time", "git_log", "git_status", "fetch"} <= set(tools)
    names = [tool.name for tool in real_library.tools]
    assert names == sorted(names)
    assert len(set(names)) == len(names)
    assert set(real_library.routes) == set(names)
    # Unique names keep their names and are routed to their server.
    assert real_library.routes["git_log"] == MCPToolRoute(server="git", tool="git_log")
    assert real_library.routes["fetch"] == MCPToolRoute(server="fetch", tool="fetch")
    time_tool = tools["get_current_time"]
    assert time_tool.metadata is not None
    assert time_tool.metadata["mcp_server"] == "time"
    assert time_tool.metadata["mcp_tool"] == "get_current_time"
    assert time_tool.metadata["readOnlyHint"] is True  # adapter metadata kept
    assert time_tool.response_format == "content_and_artifact"
    assert time_tool.description


async def test_get_current_time_in_tokyo(real_library: MCPLibrary) -> None:
    before = datetime.now(UTC)
    message = await _run_tool(
        _by_name(real_library)["get_current_time"], {"timezone": "Asia/Tokyo"}
    )
    after = datetime.now(UTC)
    assert message.status == "success"
    payload = json.loads(_text(message))
    assert payload["timezone"] == "Asia/Tokyo"
    stamp = datetime.fromisoformat(payload["datetime"])
    assert stamp.utcoffset() is not None and stamp.utcoffset().total_seconds() == 9 * 3600
    assert before.replace(microsecond=0) <= stamp <= after
    # response_format="content_and_artifact" survives the wrapping.
    assert message.artifact == {"structured_content": payload}


async def test_git_log_sees_commits(real_library: MCPLibrary, real_repo: Path) -> None:
    message = await _run_tool(_by_name(real_library)["git_log"], {"repo_path": str(real_repo)})
    assert message.status == "success", _text(message)
    text = _text(message)
    for commit_message in GIT_COMMIT_MESSAGES:
        assert commit_message in text


async def test_failing_servers_are_reported_and_others_load(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = MultiServerMCPClient(
        {
            "schema": schema_server_connection(),
            "missing": {"transport": "stdio", "command": "/nonexistent/mcp-server", "args": []},
            "crash": {
                "transport": "stdio",
                "command": sys.executable,
                "args": ["-c", "import sys; sys.exit(3)"],
            },
            "hang": {
                "transport": "stdio",
                "command": sys.executable,
                "args": ["-c", "import time; time.sleep(120)"],
            },
        }
    )
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.mcp"):
        library = await load_mcp_library(client, timeout=6.0)
    elapsed = time.monotonic() - started

    assert [tool.name for tool in library.tools] == ["echo", "fetch_page"]
    assert set(library.failures) == {"missing", "crash", "hang"}
    assert "FileNotFoundError" in library.failures["missing"]
    assert "/nonexistent/mcp-server" in library.failures["missing"]
    assert "timed out after 6 s" in library.failures["hang"]
    assert library.failures["crash"]
    for server in ("missing", "crash", "hang"):
        assert any(server in record.getMessage() for record in caplog.records)
    # Listing is bounded by the timeout (+ the stdio client's 2 s shutdown grace).
    assert elapsed < 15


async def test_every_server_failing_gives_an_empty_library() -> None:
    client = MultiServerMCPClient(
        {"missing": {"transport": "stdio", "command": "/nonexistent/mcp-server", "args": []}}
    )
    library = await load_mcp_library(client)
    assert library.tools == []
    assert dict(library.routes) == {}
    assert set(library.failures) == {"missing"}


# --- names -------------------------------------------------------------------


async def test_same_tool_on_two_servers_is_namespaced_and_routed(
    test_library: MCPLibrary,
) -> None:
    tools = _by_name(test_library)
    assert "send_email" not in tools
    assert test_library.routes["mcp_1_send_email"] == MCPToolRoute("mcp_1", "send_email")
    assert test_library.routes["mcp_2_send_email"] == MCPToolRoute("mcp_2", "send_email")
    first, second = await asyncio.gather(
        _run_tool(tools["mcp_1_send_email"], {"to": "a@example.com"}, "c1"),
        _run_tool(tools["mcp_2_send_email"], {"to": "b@example.com"}, "c2"),
    )
    assert _text(first) == "mcp_1: sent e-mail to a@example.com"
    assert _text(second) == "mcp_2: sent e-mail to b@example.com"
    # Unique names keep their names.
    assert test_library.routes["echo"] == MCPToolRoute("schema", "echo")


async def test_server_with_underscore_is_routed_by_table(test_library: MCPLibrary) -> None:
    # execute_sql is on mcp_1, mcp_2 and my_db; splitting "my_db_execute_sql" on "_"
    # would give server "my": the stored route must be used instead.
    route = test_library.routes["my_db_execute_sql"]
    assert route == MCPToolRoute(server="my_db", tool="execute_sql")
    message = await _run_tool(_by_name(test_library)["my_db_execute_sql"], {"query": "SELECT 1"})
    assert _text(message) == "my_db: executed SELECT 1"


async def test_tools_named_like_meta_tools_are_namespaced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from langchain_toolsearch import ToolLibrary, ToolSearchMiddleware

    client = MultiServerMCPClient(
        {"docs": faulty_server_connection("docs", ["search_tools", "load_tool", "send_email"])}
    )
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.mcp"):
        library = await load_mcp_library(client)
    assert sorted(library.routes) == ["docs_load_tool", "docs_search_tools", "send_email"]
    assert library.routes["docs_search_tools"] == MCPToolRoute("docs", "search_tools")
    assert "reserved" in caplog.text and "'docs_search_tools'" in caplog.text
    # The library builds, and the middleware adds its own meta tools next to these.
    assert {"docs_search_tools", "docs_load_tool"} <= set(ToolLibrary(library.tools).names)
    ToolSearchMiddleware(tools=library.tools)
    message = await _run_tool(_by_name(library)["docs_search_tools"], {"value": "x"})
    assert _text(message) == 'docs:search_tools {"value": "x"}'


async def test_prefix_collision_is_an_error_at_load() -> None:
    client = MultiServerMCPClient(
        {
            "foo": faulty_server_connection("foo", ["bar_baz"]),
            "foo_bar": faulty_server_connection("foo_bar", ["baz"]),
        }
    )
    # Without collisions, on-collision keeps plain names: nothing to report.
    library = await load_mcp_library(client)
    assert sorted(library.routes) == ["bar_baz", "baz"]

    with pytest.raises(ValueError) as excinfo:
        await load_mcp_library(client, namespace="always")
    message = str(excinfo.value)
    for part in ("foo_bar_baz", "'foo'", "'bar_baz'", "'foo_bar'", "'baz'", "Rename"):
        assert part in message


async def test_namespaced_name_colliding_with_a_plain_name_is_an_error() -> None:
    client = MultiServerMCPClient(
        {
            "foo": faulty_server_connection("foo", ["bar_baz"]),
            "zed": faulty_server_connection("zed", ["bar_baz", "foo_bar_baz"]),
        }
    )
    with pytest.raises(ValueError, match="foo_bar_baz"):
        await load_mcp_library(client)


async def test_listing_order_does_not_change_the_library(test_library: MCPLibrary) -> None:
    reversed_connections = dict(reversed(list(_test_server_connections().items())))
    client = MultiServerMCPClient(reversed_connections)
    other = await load_mcp_library(client, timeout=CALL_TIMEOUT)
    assert [tool.name for tool in other.tools] == [tool.name for tool in test_library.tools]
    assert dict(other.routes) == dict(test_library.routes)
    assert _openai_schemas(other).encode() == _openai_schemas(test_library).encode()


# --- schemas -----------------------------------------------------------------


async def test_schema_survives(test_library: MCPLibrary) -> None:
    tools = _by_name(test_library)
    fetch_page = tools["fetch_page"]
    assert fetch_page.args_schema == FETCH_PAGE_SCHEMA
    assert set(fetch_page.args) == {"page", "mode", "cursor", "extra"}  # what an index reads

    # langchain-core inlines `$ref`s and drops `$defs` when formatting a JSON-schema
    # tool for a provider; what must survive is the nested `required`.
    function = convert_to_openai_tool(fetch_page)["function"]
    assert function["name"] == "fetch_page"
    parameters = function["parameters"]
    assert "$ref" not in json.dumps(parameters)
    assert parameters["properties"]["page"] == {
        "type": "object",
        "properties": FETCH_PAGE_SCHEMA["$defs"]["Page"]["properties"],
        "required": ["n"],
    }
    assert parameters["properties"]["mode"]["enum"] == [0, 1, 3]
    assert parameters["properties"]["cursor"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert parameters["properties"]["extra"] is True
    assert parameters["required"] == ["page", "mode"]
    json.dumps(parameters)  # serialisable for a provider request

    echo_parameters = convert_to_openai_tool(tools["echo"])["function"]["parameters"]
    assert echo_parameters["properties"] == ECHO_SCHEMA["properties"]
    assert echo_parameters["required"] == ["text"]

    page, echo = await asyncio.gather(
        _run_tool(fetch_page, {"page": {"n": 2}, "mode": 3, "cursor": None, "extra": [1]}, "c1"),
        _run_tool(tools["echo"], {"text": "still fine"}, "c2"),
    )
    assert page.status == "success", _text(page)
    assert json.loads(_text(page).removeprefix("fetch_page ")) == {
        "page": {"n": 2},
        "mode": 3,
        "cursor": None,
        "extra": [1],
    }
    assert _text(echo) == "echo: still fine"


# --- errors, timeouts, sessions -----------------------------------------------


async def test_is_error_with_empty_content_becomes_error_tool_message(
    test_library: MCPLibrary,
) -> None:
    tools = _by_name(test_library)
    graph = _tool_graph([tools["mcp_1_fail_silently"], tools["echo"]])
    ai = AIMessage(
        content="",
        tool_calls=[
            _call("mcp_1_fail_silently", {}, "c1"),
            _call("echo", {"text": "after the failure"}, "c2"),
        ],
    )
    result = await graph.ainvoke({"messages": [ai]})
    failed, echoed = result["messages"][1:]
    assert isinstance(failed, ToolMessage) and failed.tool_call_id == "c1"
    assert failed.status == "error"
    assert _text(failed).strip()
    assert "fail_silently" in _text(failed) and "mcp_1" in _text(failed)
    assert echoed.status == "success"
    assert _text(echoed) == "echo: after the failure"


async def test_tool_node_injects_runtime_into_adapter_interceptors() -> None:
    seen: list[MCPToolCallRequest] = []

    async def record(
        request: MCPToolCallRequest,
        handler: Callable[[MCPToolCallRequest], Awaitable[Any]],
    ) -> Any:
        seen.append(request)
        return await handler(request)

    client = MultiServerMCPClient(
        {"my_db": faulty_server_connection("my_db", ["execute_sql"])},
        tool_name_prefix=True,
        tool_interceptors=[record],
    )
    library = await load_mcp_library(client, timeout=CALL_TIMEOUT)
    ai = AIMessage(content="", tool_calls=[_call("my_db_execute_sql", {"query": "SELECT 3"}, "c7")])
    # tool_name_prefix=True on the client: always namespaced, original name routed.
    assert dict(library.routes) == {"my_db_execute_sql": MCPToolRoute("my_db", "execute_sql")}
    result = await _tool_graph(library.tools).ainvoke({"messages": [ai]})
    assert _text(result["messages"][-1]) == "my_db: executed SELECT 3"
    (request,) = seen
    assert (request.server_name, request.name, request.args) == (
        "my_db",
        "execute_sql",
        {"query": "SELECT 3"},
    )
    assert isinstance(request.runtime, ToolRuntime)
    assert request.runtime.tool_call_id == "c7"


async def test_client_without_error_handling_raises() -> None:
    client = MultiServerMCPClient(
        {"mcp_1": faulty_server_connection("mcp_1", ["fail_silently"])},
        handle_tool_errors=False,
    )
    library = await load_mcp_library(client)
    with pytest.raises(ToolException, match="reported an error with no message"):
        await library.tools[0].ainvoke({})


async def test_slow_tool_times_out_while_other_calls_complete(test_library: MCPLibrary) -> None:
    client = MultiServerMCPClient({"mcp_1": faulty_server_connection("mcp_1", ["slow"])})
    slow_library = await load_mcp_library(client, timeout=1.0, list_timeout=CALL_TIMEOUT)
    assert [tool.name for tool in slow_library.tools] == ["slow"]
    tools = {**_by_name(test_library), "slow": slow_library.tools[0]}
    started = time.monotonic()
    finished: dict[str, float] = {}

    async def timed(name: str, args: dict[str, Any], call_id: str) -> ToolMessage:
        message = await _run_tool(tools[name], args, call_id)
        finished[name] = time.monotonic() - started
        return message

    slow, echo = await asyncio.gather(
        timed("slow", {"seconds": 60}, "c1"),
        timed("echo", {"text": "meanwhile"}, "c2"),
    )
    assert slow.status == "error"
    assert "did not answer within 1 s" in _text(slow)
    # 1 s timeout (+ up to the stdio client's 2 s shutdown grace), not 60 s.
    assert finished["slow"] < 8
    assert echo.status == "success"
    assert _text(echo) == "echo: meanwhile"
    assert finished["echo"] < 8


@pytest.fixture
def session_counter(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Record every MCP session the adapter opens for tool listing or calls."""
    opened: list[str] = []
    real_create_session = adapter_sessions.create_session

    def counting_create_session(connection: Any, **kwargs: Any) -> Any:
        opened.append(" ".join(connection.get("args", [])))
        return real_create_session(connection, **kwargs)

    real_open_session = _pool.open_session

    def counting_open_session(connection: Any, tail: Any) -> Any:
        if tail is not None:  # stdio: opened by the pool itself (its stderr redacted)
            opened.append(" ".join(connection.get("args", [])))
        return real_open_session(connection, tail)

    # the adapter's own per-call sessions, and the pool's long-lived ones
    monkeypatch.setattr(adapter_tools, "create_session", counting_create_session)
    monkeypatch.setattr(adapter_sessions, "create_session", counting_create_session)
    monkeypatch.setattr(_pool, "open_session", counting_open_session)
    yield opened


async def test_listing_opens_the_one_session_that_calls_reuse(session_counter: list[str]) -> None:
    client = MultiServerMCPClient({"schema": schema_server_connection()})
    async with MCPSessionPool() as pool:
        library = await load_mcp_library(client, pool=pool)
        assert len(session_counter) == 1  # the listing
        await _listing_opens_the_one_session_that_calls_reuse(library, session_counter)


async def _listing_opens_the_one_session_that_calls_reuse(
    library: MCPLibrary, session_counter: list[str]
) -> None:
    # What search/load/bind do with a tool: read names, schemas, copy, rename.
    for tool in library.tools:
        convert_to_openai_tool(tool)
        _ = (tool.args, tool.tool_call_schema, tool.description, tool.metadata)
    renamed = _by_name(library)["echo"].model_copy(update={"name": "renamed_echo"})
    assert len(session_counter) == 1

    # A renamed copy (model_copy) still calls the server under the original name.
    message = await _run_tool(renamed, {"text": "copied"})
    assert message.name == "renamed_echo"
    assert _text(message) == "echo: copied"
    assert len(session_counter) == 1  # the call went through the pooled session


async def test_sync_invoke_works_from_a_worker_thread(test_library: MCPLibrary) -> None:
    echo = _by_name(test_library)["echo"]
    message = await asyncio.to_thread(echo.invoke, _call("echo", {"text": "sync"}, "c1"))
    assert isinstance(message, ToolMessage)
    assert _text(message) == "echo: sync"
    # From a thread that runs an event loop (blocks it; runs on a helper thread).
    message = echo.invoke(_call("echo", {"text": "sync in loop"}, "c2"))
    assert _text(message) == "echo: sync in loop"


async def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="namespace"):
        await load_mcp_library(MultiServerMCPClient({}), namespace="sometimes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout"):
        await load_mcp_library(MultiServerMCPClient({}), timeout=0)
    with pytest.raises(ValueError, match="list_timeout"):
        await load_mcp_library(MultiServerMCPClient({}), list_timeout=-1)
    library = await load_mcp_library(MultiServerMCPClient({}))
    assert library == MCPLibrary(tools=[], routes={}, failures={})
