"""Round 5 attacks on the request path's new shared state (no subprocess).

Each test is an attack that was tried; the ones that broke the promise (a
tool runs only for the caller that loaded it; nothing of one request lives on
a shared instance) are pinned here with their fix.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, TypedDict

import pytest
from langchain.agents import create_agent
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.graph import START, StateGraph
from langgraph.store.memory import InMemoryStore
from pydantic import SecretStr

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.config import ToolConfigStore, ToolResolver
from langchain_toolsearch.config.models import ProviderToolInfo
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.mcp.keys import session_key
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search


def user_tool(user: str) -> BaseTool:
    def run(city: str) -> str:
        return f"records of {user}"

    return StructuredTool.from_function(run, name="crm_lookup", description="crm lookup")


class Parent(TypedDict):
    out: list[str]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_nested_runs_of_two_callers_in_one_parent_step_never_share_a_resolution(
    mode: str,
) -> None:
    """A parent node runs the agent for alice then bob, streamed with ``subgraphs=True``.

    LangGraph then gives both nested runs the parent's stream writer and
    control: keyed on those alone, bob's run got alice's resolved tools.
    """
    calls: list[str] = []

    def resolve(config: RunnableConfig) -> list[BaseTool]:
        user = config["configurable"]["user"]
        calls.append(user)
        return [user_tool(user)]

    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=resolve)
    steps = [
        Search("crm lookup"),
        Load("crm_lookup"),
        Call("crm_lookup", {"city": "Oslo"}),
        Answer(),
    ]
    agent = create_agent(ScriptedToolSearchModel(steps=steps), tools=[], middleware=[mw])
    payload = {"messages": [{"role": "user", "content": "crm?"}]}

    def node(state: Parent) -> dict[str, Any]:
        outs = []
        for user in ("alice", "bob"):
            result = agent.invoke(payload, {"configurable": {"user": user}})
            outs.append(result["messages"][-2].text)
        return {"out": outs}

    async def anode(state: Parent) -> dict[str, Any]:
        outs = []
        for user in ("alice", "bob"):
            result = await agent.ainvoke(payload, {"configurable": {"user": user}})
            outs.append(result["messages"][-2].text)
        return {"out": outs}

    graph = StateGraph(Parent)
    graph.add_node("n", node if mode == "sync" else anode)
    graph.add_edge(START, "n")
    parent = graph.compile()
    chunks: list[Any] = []
    if mode == "sync":
        chunks = list(parent.stream({"out": []}, subgraphs=True, stream_mode="values"))
    else:
        chunks = [
            c async for c in parent.astream({"out": []}, subgraphs=True, stream_mode="values")
        ]
    assert chunks[-1] == ((), {"out": ["records of alice", "records of bob"]})
    assert calls == ["alice", "bob"]  # still once per (nested) run


# -- ToolResolver's resolution cache: values whose repr hides what they hold ----------------


class KeyedProvider:
    """Builds ``crm_lookup`` with the caller's CRM key (read from the request context)."""

    def __init__(self) -> None:
        self.calls = 0

    async def list_tools(self) -> list[ProviderToolInfo]:
        return [{"id": "crm_lookup", "name": "crm_lookup", "description": "crm"}]

    async def resolve_tools(
        self, tool_ids: list[str], *, config: RunnableConfig, context: dict[str, Any]
    ) -> list[BaseTool]:
        self.calls += 1
        key = context["crm_key"]
        secret = key.get_secret_value() if isinstance(key, SecretStr) else key.value

        def run(q: str) -> str:
            return f"crm as {secret}"

        return [StructuredTool.from_function(run, name="crm_lookup", description="crm")]


class MaskedCreds:
    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "MaskedCreds(***)"


@dataclass(frozen=True)
class DataCreds:
    value: str = field(repr=False)


@pytest.mark.parametrize("kind", [SecretStr, MaskedCreds, DataCreds])
async def test_a_credential_whose_repr_is_masked_is_never_shared_by_the_resolution_cache(
    kind: Any,
) -> None:
    """A provider reads the caller's key from another context key than the auth token.

    The cache fingerprinted values by ``repr``: every ``SecretStr`` (or any
    value that masks its secret in ``repr``) looked the same, so bob got the
    tools built with alice's key.
    """
    provider = KeyedProvider()
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("a", {"tool_providers": {"crm": {"tools": {"crm_lookup": {}}}}})
    resolver = ToolResolver(store=configs, agent_id="a", tool_providers={"crm": provider})

    async def answer(key: str) -> str:
        resolved = await resolver.aresolve({"configurable": {"crm_key": kind(key)}})
        return str(resolved.tools[0].invoke({"q": "x"}))

    assert await answer("alice-key") == "crm as alice-key"
    assert await answer("bob-key") == "crm as bob-key"
    assert resolver.resolve({"configurable": {"crm_key": kind("bob-key")}}).tools[0].invoke(
        {"q": "x"}
    ) == ("crm as bob-key")
    if kind is MaskedCreds:  # what it holds is unknown: never cached
        assert provider.calls == 3 and resolver.cache_hits == 0
    else:  # fingerprinted by what it holds: an equal value still hits
        assert provider.calls == 2 and resolver.cache_hits == 1


class Liar(str):
    """A rule value whose ``==`` says yes to everything."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        return True


async def test_a_rule_value_whose_eq_lies_does_not_key_as_the_plain_string() -> None:
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save(
        "a",
        {
            "tools": [
                {"value": {"get_weather": {}}},
                {
                    "value": {"get_weather": {}, "crm_lookup": {}},
                    "rules": {
                        "operator": "AND",
                        "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}],
                    },
                },
            ]
        },
    )
    weather = StructuredTool.from_function(
        lambda city: city, name="get_weather", description="weather"
    )
    resolver = ToolResolver(
        store=configs, agent_id="a", registry={"get_weather": weather, "crm_lookup": user_tool("x")}
    )
    liar = (await resolver.aresolve({"configurable": {"plan": Liar("free")}})).names
    plain = (await resolver.aresolve({"configurable": {"plan": "free"}})).names
    assert plain == ["get_weather"]
    assert resolver.cache_hits == 0, liar


# -- failure messages: secrets nested, as SecretStr, in URL query strings ---------------------

NESTED = "nst-zq81Kp0wL3mN"
WRAPPED = "sec-Hq72Lm0vT5xR"
QUERY = "qry-Pw93Nx1bK7yZ"


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_failing_resolvers_message_shows_no_secret_nested_wrapped_or_in_a_url(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The secrets sit under a non-credential key, in a ``SecretStr``, in a query string.

    Only top-level credential-named keys with plain strings were redacted, and
    ``?key=`` / ``?auth=`` / ``%3D`` forms were not recognised.
    """

    def failing(config: RunnableConfig) -> list[BaseTool]:
        tenant = config["configurable"]["tenant"]
        key = config["configurable"]["crm_key"].get_secret_value()
        raise RuntimeError(
            f"upstream refused {tenant['profile']['api_token']} and {key}; "
            f"401 for url 'https://crm.example/mcp?key={QUERY}&auth={QUERY}' "
            f"(retry token%3D{QUERY}, Bearer%20{QUERY})"
        )

    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=failing)
    steps = [Search("crm lookup"), Answer()]
    agent = create_agent(ScriptedToolSearchModel(steps=steps), tools=[], middleware=[mw])
    config: RunnableConfig = {
        "configurable": {
            "tenant": {"profile": {"api_token": NESTED}},
            "crm_key": SecretStr(WRAPPED),
        }
    }
    payload = {"messages": [{"role": "user", "content": "crm?"}]}
    with caplog.at_level(logging.DEBUG, logger="langchain_toolsearch"):
        if mode == "sync":
            agent.invoke(payload, config)
        else:
            await agent.ainvoke(payload, config)
    (failure,) = mw.get_state_stats().source_failures
    assert "upstream refused" in failure.message and "crm.example" in failure.message
    for secret in (NESTED, WRAPPED, QUERY):
        assert secret not in failure.message
        assert secret not in caplog.text


# -- stored config writes: hostile if_version and ids ------------------------------------------


@pytest.mark.parametrize(
    "if_version",
    [10**100, 10**5000, -(10**5000), 2**63, -1, True, 1.0, "1"],
    ids=["1e100", "1e5000", "-1e5000", "2**63", "-1", "True", "1.0", "str"],
)
@pytest.mark.parametrize("op", ["save", "publish", "delete"])
def test_a_hostile_if_version_is_a_config_error_with_a_short_message(
    if_version: Any, op: str
) -> None:
    """``10**5000`` raised a bare ValueError (an int too long to print in the message)."""
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("a", {"tools": {}})
    with pytest.raises(ToolSearchConfigError, match="if_version must be") as raised:
        if op == "save":
            configs.agents.save("a", {"tools": {}}, if_version=if_version)
        elif op == "publish":
            configs.agents.publish("a", if_version=if_version)
        else:
            configs.agents.delete("a", if_version=if_version)
    assert len(str(raised.value)) < 200
    assert configs.agents.get_version("a").info.version == 1  # nothing written


def test_an_id_or_server_name_with_a_trailing_newline_is_refused_and_long_ones_not_echoed() -> None:
    """``$`` matched before a trailing newline: ``"a\\n"`` was saved beside ``"a"``."""
    configs = ToolConfigStore(InMemoryStore())
    server = {"command": "python", "args": ["-c", "pass"]}
    for bad in ("a\n", "a" * 100_000):
        with pytest.raises(ToolSearchConfigError) as raised:
            configs.agents.save(bad, {"tools": {}})
        assert len(str(raised.value)) < 300
        with pytest.raises(ToolSearchConfigError) as raised:
            configs.mcp_clients.save("c", {"servers": {bad: server}})
        assert len(str(raised.value)) < 300
    assert configs.agents.list_records() == []


# -- MCP session pool keys ---------------------------------------------------------------------


def test_headers_whose_names_differ_by_case_never_collapse_into_one_session_key() -> None:
    """A service token in the connection and the caller's token set by an interceptor.

    Header names are case-insensitive (RFC 9110): ``{"Authorization": A,
    "authorization": B}`` is sent as one header, ``B`` (the later value), so its
    session is the session of a caller who sends ``B`` alone, and never the
    session of ``A``.
    """
    http = {"transport": "streamable_http", "url": "https://mcp.example/mcp"}
    with_service = {**http, "headers": {"Authorization": "Bearer A", "authorization": "Bearer B"}}
    caller_only = {**http, "headers": {"authorization": "Bearer B"}}
    service_only = {**http, "headers": {"Authorization": "Bearer A"}}
    first = session_key(with_service, server="docs", scope="c")
    assert first == session_key(caller_only, server="docs", scope="c")
    assert first != session_key(service_only, server="docs", scope="c")
    assert "Bearer" not in repr(first)
    # the same token under a name in another case is still the same session
    assert session_key(
        {**http, "headers": {"Authorization": "Bearer B"}}, server="docs", scope="c"
    ) == session_key(caller_only, server="docs", scope="c")
