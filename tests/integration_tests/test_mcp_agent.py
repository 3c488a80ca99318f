"""MCP tools through real agents: SPEC section 9 end to end: stable bound
bytes, names across servers, schemas, errors and slow servers.

Every test drives ``create_agent(ScriptedChatModel, middleware=[ToolSearchMiddleware])``
(or, once, a hand-built ``StateGraph`` with ``ToolSearchNode``) with ``ainvoke``,
thread ids and an ``InMemorySaver``, over real MCP servers on stdio. Nothing is
mocked; the adapter's session factory is only wrapped to count sessions.

The scripted model follows a per-prompt plan, so several threads can share one
agent (and run concurrently): the step taken is the number of AI messages since
the thread's last human message. Steps may read the conversation, e.g. to load
the hits of the previous ``search_tools`` call.

Module-level tests of ``load_mcp_library`` live in ``tests/integration_tests/test_mcp.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_mcp_adapters import client as adapter_client
from langchain_mcp_adapters import server_info as adapter_server_info
from langchain_mcp_adapters import sessions as adapter_sessions
from langchain_mcp_adapters import tools as adapter_tools
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode, ToolSearchState
from langchain_toolsearch.mcp import MCPLibrary, MCPToolRoute, _pool, load_mcp_library
from langchain_toolsearch.mcp._session import PooledSession
from tests.support.fakes import ScriptedChatModel, ai, call
from tests.support.mcp_fixtures import (
    faulty_server_connection,
    schema_server_connection,
    servers_bin,
)
from tests.support.node_graph import wire_node_graph

# Each call starts a server process: leave room for a loaded 2-core machine.
CALL_TIMEOUT = 20.0
LIST_TIMEOUT = 30.0
META = ["search_tools", "load_tool"]
MISSING_COMMAND = "/nonexistent/bin/mcp-server-broken"

Step = AIMessage | Callable[[list[BaseMessage]], AIMessage]
_ids = itertools.count()


# --- servers and libraries ------------------------------------------------------------


def _test_connections(*, reverse: bool = False) -> dict[str, Any]:
    """schema + mcp_1 + mcp_2 + my_db; ``reverse`` flips server and tool listing order."""
    faulty_tools = ["fail_silently", "slow", "send_email", "execute_sql"]
    if reverse:
        faulty_tools.reverse()
    connections = {
        "schema": schema_server_connection(),
        "mcp_1": faulty_server_connection("mcp_1", faulty_tools),
        "mcp_2": faulty_server_connection("mcp_2", faulty_tools),
        "my_db": faulty_server_connection("my_db", ["execute_sql"]),
    }
    if reverse:
        connections = dict(reversed(list(connections.items())))
    return connections


def _time_connections() -> dict[str, Any]:
    """A server that cannot start, listed before the real ``mcp-server-time``."""
    return {
        "broken": {"transport": "stdio", "command": MISSING_COMMAND, "args": []},
        "time": {
            "transport": "stdio",
            "command": str(servers_bin() / "mcp-server-time"),
            "args": ["--local-timezone", "UTC"],
        },
    }


@dataclass(frozen=True)
class Libraries:
    main: MCPLibrary  # _test_connections(), timeout CALL_TIMEOUT
    reordered: MCPLibrary  # _test_connections(reverse=True)
    slow: MCPLibrary  # mcp_1 with only ``slow``, timeout 1 s
    time: MCPLibrary  # broken + time


@pytest.fixture(scope="module")
def libs() -> Libraries:
    """All listings of the module, done once and concurrently."""

    async def build() -> Libraries:
        main, reordered, slow, time_library = await asyncio.gather(
            load_mcp_library(
                MultiServerMCPClient(_test_connections()),
                timeout=CALL_TIMEOUT,
                list_timeout=LIST_TIMEOUT,
            ),
            load_mcp_library(
                MultiServerMCPClient(_test_connections(reverse=True)),
                timeout=CALL_TIMEOUT,
                list_timeout=LIST_TIMEOUT,
            ),
            load_mcp_library(
                MultiServerMCPClient({"mcp_1": faulty_server_connection("mcp_1", ["slow"])}),
                timeout=1,
                list_timeout=LIST_TIMEOUT,
            ),
            load_mcp_library(
                MultiServerMCPClient(_time_connections()),
                timeout=CALL_TIMEOUT,
                list_timeout=LIST_TIMEOUT,
            ),
        )
        return Libraries(main=main, reordered=reordered, slow=slow, time=time_library)

    built = asyncio.run(build())
    for library in (built.main, built.reordered, built.slow):
        assert dict(library.failures) == {}, library.failures
    return built


# --- the scripted model ---------------------------------------------------------------


class OrderedJSONModel(ScriptedChatModel):
    """Also records the bound schemas serialized in bound order, keys unsorted.

    A provider request keeps key order, so prompt-cache stability needs these
    bytes to match too, not only the ``sort_keys`` form in ``bound_json``.
    """

    bound_raw: list[str] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, BaseMessage]:
        self.bound_raw.append(json.dumps([convert_to_openai_tool(t) for t in tools]))
        return super().bind_tools(tools, **kwargs)


def planned_model(
    plans: Mapping[str, Sequence[Step]], cls: type[ScriptedChatModel] = ScriptedChatModel
) -> ScriptedChatModel:
    """A scripted model that plays ``plans[prompt]`` on each thread independently."""

    def respond(messages: list[BaseMessage]) -> AIMessage:
        start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        turn = sum(isinstance(m, AIMessage) for m in messages[start:])
        steps = plans[messages[start].text]
        if turn >= len(steps):
            return AIMessage(content="the plan is finished")
        step = steps[turn]
        message = step(messages) if callable(step) else step
        # fresh ids: a plan replayed on another thread never reuses a tool-call id
        calls = [{**c, "id": f"call_{next(_ids)}"} for c in message.tool_calls]
        return AIMessage(content=message.content, tool_calls=calls)

    return cls(steps=[respond] * 200)


def search(query: str) -> AIMessage:
    return ai(call("search_tools", {"query": query}))


def load(*names: str) -> AIMessage:
    return ai(call("load_tool", {"tool_names": list(names)}))


def use(*calls: tuple[str, dict[str, Any]]) -> AIMessage:
    return ai(*(call(name, args) for name, args in calls))


def search_hits(messages: Sequence[BaseMessage]) -> list[str]:
    """Tool names in the artifact of the last ``search_tools`` result."""
    found = [m for m in messages if isinstance(m, ToolMessage) and m.name == "search_tools"]
    assert found, "no search_tools result in the conversation"
    artifact = found[-1].artifact
    assert isinstance(artifact, dict), found[-1]
    return [hit["name"] for hit in artifact["results"]]


def load_hits(pick: Callable[[str], bool]) -> Step:
    """Load the hits of the last search that ``pick`` accepts."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        return load(*(name for name in search_hits(messages) if pick(name)))

    return step


def call_loaded(args: dict[str, Any]) -> Step:
    """Call every tool named in the ``load_tool`` receipts so far, with ``args``."""

    def step(messages: list[BaseMessage]) -> AIMessage:
        return use(*((name, args) for name in loaded_by(messages)))

    return step


def text_of(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(
        block if isinstance(block, str) else str(block.get("text", "")) for block in message.content
    )


def answer(messages: list[BaseMessage]) -> AIMessage:
    """Final answer quoting every non-meta tool result of the current request."""
    start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    results = [
        f"{m.name} [{m.status}]: {text_of(m)}"
        for m in messages[start:]
        if isinstance(m, ToolMessage) and m.name not in META
    ]
    return AIMessage(content="Answer. " + " | ".join(results))


# --- running ----------------------------------------------------------------------------


def agent_for(tools: Sequence[Any], model: ScriptedChatModel) -> Any:
    return create_agent(
        model,
        tools=[],
        middleware=[ToolSearchMiddleware(tools=list(tools))],
        checkpointer=InMemorySaver(),
    )


async def run(graph: Any, prompt: str, thread: str, **configurable: Any) -> list[BaseMessage]:
    result = await graph.ainvoke(
        {"messages": [HumanMessage(prompt)]},
        {"configurable": {"thread_id": thread, **configurable}},
    )
    messages: list[BaseMessage] = result["messages"]
    # Every tool call got exactly one ToolMessage, and the run ended with an answer.
    asked = [c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    answered = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
    assert sorted(asked) == sorted(answered)
    final = messages[-1]
    assert isinstance(final, AIMessage) and not final.tool_calls, final
    return messages


def results_of(messages: Sequence[BaseMessage], name: str) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage) and m.name == name]


def loaded_by(messages: Sequence[BaseMessage]) -> list[str]:
    """Names reported loaded by successful ``load_tool`` receipts."""
    names: list[str] = []
    for receipt in results_of(messages, "load_tool"):
        assert receipt.status == "success", text_of(receipt)
        assert isinstance(receipt.artifact, dict)
        names += receipt.artifact["loaded"]
    return names


def bound_function(bound_json: str, name: str) -> dict[str, Any]:
    """The ``function`` entry for ``name`` in one serialized bound tool list."""
    (function,) = [t["function"] for t in json.loads(bound_json) if t["function"]["name"] == name]
    return function  # type: ignore[no-any-return]


def resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/...``) if the bound schema kept one."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    target: Any = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return target  # type: ignore[no-any-return]


class SessionCounter:
    """Counts MCP sessions and stdio server process starts made by the adapter, and
    requests sent through pooled sessions."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sessions: list[str] = []
        self.processes: list[str] = []
        self.requests: list[str] = []
        real_call_tool = PooledSession.call_tool
        real_listing = PooledSession.listing

        async def counting_call_tool(pooled: Any, name: str, *args: Any, **kwargs: Any) -> Any:
            self.requests.append(f"{pooled.key.server} call {name}")
            return await real_call_tool(pooled, name, *args, **kwargs)

        async def counting_listing(pooled: Any) -> Any:
            self.requests.append(f"{pooled.key.server} list")
            return await real_listing(pooled)

        monkeypatch.setattr(PooledSession, "call_tool", counting_call_tool)
        monkeypatch.setattr(PooledSession, "listing", counting_listing)
        real_create_session = adapter_sessions.create_session
        real_stdio_client = adapter_sessions.stdio_client

        def counting_create_session(connection: Any, *args: Any, **kwargs: Any) -> Any:
            self.sessions.append(" ".join(connection.get("args", [])))
            return real_create_session(connection, *args, **kwargs)

        def counting_stdio_client(server: Any, *args: Any, **kwargs: Any) -> Any:
            self.processes.append(f"{server.command} {' '.join(server.args)}")
            return real_stdio_client(server, *args, **kwargs)

        # create_session is imported by name into each module that opens sessions.
        for module in (adapter_sessions, adapter_tools, adapter_client, adapter_server_info):
            monkeypatch.setattr(module, "create_session", counting_create_session)
        monkeypatch.setattr(adapter_sessions, "stdio_client", counting_stdio_client)
        real_open_session = _pool.open_session

        def counting_open_session(connection: Any, tail: Any) -> Any:
            if tail is not None:  # a stdio server the pool starts itself (stderr redacted)
                self.processes.append(f"{connection['command']} {' '.join(connection['args'])}")
            return real_open_session(connection, tail)

        monkeypatch.setattr(_pool, "open_session", counting_open_session)
        monkeypatch.setattr(
            MultiServerMCPClient,
            "session",
            self._counting(MultiServerMCPClient.session),
        )

    def _counting(self, method: Any) -> Any:
        def session(client: Any, server_name: str, *args: Any, **kwargs: Any) -> Any:
            self.sessions.append(f"client.session({server_name})")
            return method(client, server_name, *args, **kwargs)

        return session

    @property
    def total(self) -> int:
        return len(self.sessions) + len(self.processes) + len(self.requests)


# --- same tool name on two servers, my_db --------------------------------------------------


async def test_same_tool_on_two_servers_through_the_agent(libs: Libraries) -> None:
    library = libs.main
    prompt = "Mail a@example.com and b@example.com from each server, then query my_db."
    model = planned_model(
        {
            prompt: [
                search("send email"),
                load_hits(lambda name: name.endswith("send_email")),
                search("run a sql query against the database"),
                load_hits(lambda name: library.routes[name].server == "my_db"),
                use(
                    ("mcp_1_send_email", {"to": "a@example.com"}),
                    ("mcp_2_send_email", {"to": "b@example.com"}),
                    ("my_db_execute_sql", {"query": "SELECT 1"}),
                ),
                answer,
            ]
        }
    )
    messages = await run(agent_for(library.tools, model), prompt, "c12")

    first_search, sql_search = results_of(messages, "search_tools")
    hits = search_hits([first_search])
    assert {"mcp_1_send_email", "mcp_2_send_email"} <= set(hits)
    assert "send_email" not in hits  # nothing silently kept under the plain name
    assert "my_db_execute_sql" in search_hits([sql_search])
    assert loaded_by(messages) == ["mcp_1_send_email", "mcp_2_send_email", "my_db_execute_sql"]

    # Bound from the step after loading, in load order, after the meta tools.
    assert model.bound[0] == META
    assert model.bound[-2] == [*META, "mcp_1_send_email", "mcp_2_send_email", "my_db_execute_sql"]

    outputs = {m.name: m for m in messages if isinstance(m, ToolMessage) and m.name not in META}
    assert {name: m.status for name, m in outputs.items()} == {
        "mcp_1_send_email": "success",
        "mcp_2_send_email": "success",
        "my_db_execute_sql": "success",
    }
    # Each call reached its own server (the faulty server answers with its --name).
    assert text_of(outputs["mcp_1_send_email"]) == "mcp_1: sent e-mail to a@example.com"
    assert text_of(outputs["mcp_2_send_email"]) == "mcp_2: sent e-mail to b@example.com"
    assert text_of(outputs["my_db_execute_sql"]) == "my_db: executed SELECT 1"
    final = messages[-1].text
    for expected in ("mcp_1: sent e-mail", "mcp_2: sent e-mail", "my_db: executed SELECT 1"):
        assert expected in final
    assert library.routes["my_db_execute_sql"] == MCPToolRoute("my_db", "execute_sql")


# --- schemas survive --------------------------------------------------------------------


async def test_awkward_schema_is_found_loaded_bound_and_called(libs: Libraries) -> None:
    prompt = "Fetch page 2 as html, then echo hello."
    page_args = {"page": {"n": 2, "size": 10}, "mode": 3, "cursor": None, "extra": [1]}
    model = planned_model(
        {
            prompt: [
                search("fetch one page of a paginated listing"),
                load_hits(lambda name: name == "fetch_page"),
                search("echo text back"),
                load_hits(lambda name: name == "echo"),
                use(("fetch_page", page_args), ("echo", {"text": "hello"})),
                answer,
            ]
        }
    )
    messages = await run(agent_for(libs.main.tools, model), prompt, "c13")

    first_search, echo_search = results_of(messages, "search_tools")
    assert search_hits([first_search])[0] == "fetch_page"
    assert "echo" in search_hits([echo_search])
    assert loaded_by(messages) == ["fetch_page", "echo"]

    # The model call after loading fetch_page binds it with its schema intact.
    after_load = model.bound.index([*META, "fetch_page"])
    for bound_json in (model.bound_json[after_load], model.bound_json[-2]):
        parameters = bound_function(bound_json, "fetch_page")["parameters"]
        properties = parameters["properties"]
        page = resolve(properties["page"], parameters)
        assert page["type"] == "object"
        assert page["required"] == ["n"]
        assert page["properties"]["n"]["type"] == "integer"
        assert properties["mode"]["enum"] == [0, 1, 3]
        assert properties["mode"]["type"] == "integer"
        assert properties["cursor"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
        assert properties["extra"] is True
        assert parameters["required"] == ["page", "mode"]
    echo_parameters = bound_function(model.bound_json[-2], "echo")["parameters"]
    assert echo_parameters["required"] == ["text"]

    (page_result,) = results_of(messages, "fetch_page")
    (echo_result,) = results_of(messages, "echo")
    assert page_result.status == "success", text_of(page_result)
    assert json.loads(text_of(page_result).removeprefix("fetch_page ")) == page_args
    assert echo_result.status == "success", text_of(echo_result)
    assert text_of(echo_result) == "echo: hello"
    assert "echo: hello" in messages[-1].text


# --- errors, slow servers, no sessions for search and load --------------------------------


async def test_silent_mcp_error_becomes_error_message_and_search_load_open_no_session(
    libs: Libraries, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = SessionCounter(monkeypatch)
    sessions_before_call: list[int] = []

    def call_after_counting(messages: list[BaseMessage]) -> AIMessage:
        sessions_before_call.append(counter.total)
        return use(("mcp_1_fail_silently", {}))

    prompt = "Run the tool that fails silently, then tell me what happened."
    model = planned_model(
        {
            prompt: [
                search("always fails silently"),
                load_hits(lambda name: name == "mcp_1_fail_silently"),
                call_after_counting,
                answer,
            ]
        }
    )
    agent = agent_for(libs.main.tools, model)

    # Search and load only: no MCP session, no server process.
    search_only = "Find and load the silent failure tool, do not call it."
    model_search_only = {
        search_only: [
            search("always fails silently"),
            load("mcp_1_fail_silently", "fetch_page", "my_db_execute_sql"),
            answer,
        ]
    }
    other = agent_for(libs.main.tools, planned_model(model_search_only))
    loaded_only = await run(other, search_only, "c14-no-session")
    assert loaded_by(loaded_only) == ["mcp_1_fail_silently", "fetch_page", "my_db_execute_sql"]
    assert counter.total == 0

    messages = await run(agent, prompt, "c14-silent")
    assert "mcp_1_fail_silently" in search_hits(messages)
    assert loaded_by(messages) == ["mcp_1_fail_silently"]
    assert sessions_before_call == [0]  # searching, loading and binding opened nothing
    (failed,) = results_of(messages, "mcp_1_fail_silently")
    assert failed.status == "error"
    assert text_of(failed).strip()
    assert "fail_silently" in text_of(failed) and "mcp_1" in text_of(failed)
    # The run went on to a final answer that saw the error.
    assert "mcp_1_fail_silently [error]" in messages[-1].text
    # The call itself went to the server, through the session pooled when listing.
    assert counter.requests == ["mcp_1 call fail_silently"]


async def test_slow_tool_times_out_while_another_thread_completes(libs: Libraries) -> None:
    (slow_tool,) = libs.slow.tools
    assert slow_tool.name == "slow"
    slow_prompt = "Sleep for 30 seconds."
    echo_prompt = "Echo 'meanwhile'."
    model = planned_model(
        {
            slow_prompt: [
                search("sleep for the given number of seconds"),
                load("slow"),
                use(("slow", {"seconds": 30})),
                answer,
            ],
            echo_prompt: [
                search("echo text back"),
                load_hits(lambda name: name == "echo"),
                use(("echo", {"text": "meanwhile"})),
                answer,
            ],
        }
    )
    # The 1 s tool next to the 20 s tools of the main library, in one agent.
    agent = agent_for([*libs.main.tools, slow_tool], model)
    started = time.monotonic()
    finished: dict[str, float] = {}

    async def timed(prompt: str, thread: str) -> list[BaseMessage]:
        messages = await run(agent, prompt, thread)
        finished[thread] = time.monotonic() - started
        return messages

    slow_messages, echo_messages = await asyncio.gather(
        timed(slow_prompt, "c14-slow"), timed(echo_prompt, "c14-echo")
    )

    assert "slow" in search_hits(slow_messages)
    (slow_result,) = results_of(slow_messages, "slow")
    assert slow_result.status == "error"
    assert "did not answer within 1 s" in text_of(slow_result)
    assert "slow [error]" in slow_messages[-1].text  # the run continued to an answer
    assert finished["c14-slow"] < 15, finished  # the server would sleep 30 s

    (echo_result,) = results_of(echo_messages, "echo")
    assert echo_result.status == "success", text_of(echo_result)
    assert text_of(echo_result) == "echo: meanwhile"
    assert "echo: meanwhile" in echo_messages[-1].text
    # Threads keep their own loads.
    assert loaded_by(slow_messages) == ["slow"]
    assert loaded_by(echo_messages) == ["echo"]


# --- a failing server next to a working one ----------------------------------------------


def _tokyo_time_model(prompt: str, query: str) -> ScriptedChatModel:
    """Answers ``prompt``: search ``query``, load get_current_time, call it for Tokyo."""
    return planned_model(
        {
            prompt: [
                search(query),
                load_hits(lambda name: name == "get_current_time"),
                use(("get_current_time", {"timezone": "Asia/Tokyo"})),
                answer,
            ]
        }
    )


def _assert_tokyo(result: ToolMessage) -> None:
    assert result.status == "success", text_of(result)
    assert "Asia/Tokyo" in text_of(result)
    assert json.loads(text_of(result))["timezone"] == "Asia/Tokyo"


async def test_failing_server_does_not_stop_the_agent(libs: Libraries) -> None:
    library = libs.time
    assert set(library.failures) == {"broken"}
    assert MISSING_COMMAND in library.failures["broken"]
    assert {route.server for route in library.routes.values()} == {"time"}
    assert "get_current_time" in library.routes

    prompt = "What time is it in Tokyo?"
    model = _tokyo_time_model(prompt, "current time in a timezone")
    messages = await run(agent_for(library.tools, model), prompt, "broken-and-time")
    assert search_hits(messages)[0] == "get_current_time"
    assert loaded_by(messages) == ["get_current_time"]
    assert model.bound[-2] == [*META, "get_current_time"]
    (result,) = results_of(messages, "get_current_time")
    _assert_tokyo(result)
    assert "Asia/Tokyo" in messages[-1].text


# --- listing order does not change the bound bytes ---------------------------------


async def test_listing_order_gives_identical_bound_bytes(libs: Libraries) -> None:
    assert [t.name for t in libs.main.tools] == [t.name for t in libs.reordered.tools]
    prompt = "Load the mail tools and the page fetcher."
    plan: list[Step] = [
        search("send email"),
        load("mcp_2_send_email", "fetch_page", "mcp_1_send_email"),
        load("my_db_execute_sql", "fetch_page"),  # a repeat only appends the new tool
        answer,
    ]
    runs = []
    for library in (libs.main, libs.reordered):
        model = planned_model({prompt: plan}, cls=OrderedJSONModel)
        messages = await run(agent_for(library.tools, model), prompt, "c9")
        runs.append((model, messages))
    (first, first_messages), (second, second_messages) = runs
    assert isinstance(first, OrderedJSONModel) and isinstance(second, OrderedJSONModel)

    loaded = ["mcp_2_send_email", "fetch_page", "mcp_1_send_email"]
    assert (
        first.bound
        == second.bound
        == [
            META,
            META,
            [*META, *loaded],
            [*META, *loaded, "my_db_execute_sql"],
        ]
    )
    assert first.bound_json == second.bound_json  # byte-identical, every model call
    assert first.bound_raw == second.bound_raw  # also with keys in sent order
    # The bytes bound before the last load are a prefix of the bytes after it.
    before, after = first.bound_raw[2], first.bound_raw[3]
    assert after.startswith(before.removesuffix("]"))
    # Same search results, same receipts.
    assert [text_of(m) for m in results_of(first_messages, "search_tools")] == [
        text_of(m) for m in results_of(second_messages, "search_tools")
    ]


# --- the ToolSearchNode form --------------------------------------------------------------


async def test_tool_search_node_graph_calls_real_time_server(libs: Libraries) -> None:
    prompt = "What time is it in Tokyo? (graph)"
    model = _tokyo_time_model(prompt, "get current time")
    node = ToolSearchNode(tools=libs.time.tools)

    async def call_model(state: ToolSearchState) -> dict[str, Any]:
        bound = model.bind_tools(node.tools_for(state))
        messages = [SystemMessage(node.system_prompt_hint), *state["messages"]]
        return {"messages": [await bound.ainvoke(messages)]}

    graph = wire_node_graph(node, call_model, saver=InMemorySaver())

    messages = await run(graph, prompt, "node-time")
    assert "get_current_time" in search_hits(messages)
    assert loaded_by(messages) == ["get_current_time"]
    assert model.bound == [META, META, [*META, "get_current_time"], [*META, "get_current_time"]]
    (result,) = results_of(messages, "get_current_time")
    _assert_tokyo(result)
    assert "Asia/Tokyo" in messages[-1].text

    state = await graph.aget_state({"configurable": {"thread_id": "node-time"}})
    assert node.loaded_names(state.values) == ["get_current_time"]


# --- SPEC 8 x 9: provider-unsafe MCP names, config reaching the adapter ---------------


async def test_unsafe_mcp_names_are_bound_safely_and_reach_the_server() -> None:
    seen: list[tuple[str, str, str | None, Any]] = []

    async def record(request: Any, handler: Callable[[Any], Any]) -> Any:
        runtime = request.runtime
        user = runtime.config["configurable"].get("user")
        seen.append((request.server_name, request.name, runtime.tool_call_id, user))
        return await handler(request)

    long_name = "x" * 70
    client = MultiServerMCPClient(
        {
            "files": faulty_server_connection("files", ["files.read", "list files", long_name]),
            "other": faulty_server_connection("other", ["files.read"]),
        },
        tool_interceptors=[record],
    )
    library = await load_mcp_library(client, timeout=CALL_TIMEOUT, list_timeout=LIST_TIMEOUT)
    assert sorted(library.routes) == [
        "files_files.read",
        "list files",
        "other_files.read",
        long_name,
    ]

    prompt = "Read the files on both servers, list them, and run the long one."
    model = planned_model(
        {
            prompt: [
                search("files.read"),  # search matches the original names
                load_hits(lambda name: "files_read" in name),
                search("list files"),
                load_hits(lambda name: name.startswith("list_files")),
                search(long_name),
                load_hits(lambda name: name.startswith("xxxx")),
                call_loaded({"value": "v"}),
                answer,
            ]
        }
    )
    messages = await run(agent_for(library.tools, model), prompt, "unsafe", user="alice")

    safe = loaded_by(messages)
    assert len(safe) == len(set(safe)) == 4
    assert model.bound[-2] == [*META, *safe]
    for name in model.bound[-2]:
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name), name
    outputs = sorted(text_of(m) for m in messages if isinstance(m, ToolMessage) and m.name in safe)
    assert outputs == sorted(
        [
            'files:files.read {"value": "v"}',
            'other:files.read {"value": "v"}',
            'files:list files {"value": "v"}',
            f'files:{long_name} {{"value": "v"}}',
        ]
    )
    # The adapter got the original names, the agent's tool-call ids and the run's config.
    made = {
        c["id"]
        for m in messages
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if c["name"] in safe
    }
    assert sorted((server, tool, user) for server, tool, _, user in seen) == sorted(
        [
            ("files", "files.read", "alice"),
            ("other", "files.read", "alice"),
            ("files", "list files", "alice"),
            ("files", long_name, "alice"),
        ]
    )
    assert {tool_call_id for _, _, tool_call_id, _ in seen} == made
