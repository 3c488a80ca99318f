"""Issue 18 point 2: resolution cached by what it depends on, a run's steps resolve once.

`ToolResolver` reuses a resolved tool set while its inputs are unchanged
(agent version, the context values its rules read, the credential) and sees a
publish within ``refresh_interval`` seconds; the tool search resolves once per
run, builds no library for an unchanged tool set and forces no garbage
collection on the request path.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.config import ToolConfigStore, ToolResolver
from langchain_toolsearch.config.models import ProviderToolInfo
from langchain_toolsearch.testing import ScriptedToolSearchModel
from tests.support.fakes import ai, call
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param, tool_msgs


def make_tool(name: str, text: str = "") -> BaseTool:
    def run(city: str) -> str:
        return f"{name}: {text or city}"

    return StructuredTool.from_function(run, name=name, description=f"{name} for a city")


WEATHER = make_tool("get_weather", "Sunny")
REPORT = make_tool("get_report")
ISSUE = make_tool("github_create_issue")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountingProvider:
    def __init__(self) -> None:
        self.calls = 0

    async def list_tools(self) -> Sequence[ProviderToolInfo]:
        return [{"id": "get_report", "name": "get_report", "description": "report"}]

    async def resolve_tools(
        self, tool_ids: list[str], *, config: RunnableConfig, context: dict[str, Any]
    ) -> list[BaseTool]:
        self.calls += 1
        return [REPORT]


PRO_RULES = {
    "operator": "AND",
    "conditions": [{"field": "plan", "operator": "equals", "value": "pro"}],
}


def configs_with(agent: dict[str, Any]) -> ToolConfigStore:
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("support", agent)
    configs.agents.publish("support")
    return configs


def conditional_agent() -> dict[str, Any]:
    return {
        "tools": [
            {"value": {"get_weather": {}}},
            {"value": {"github_create_issue": {}}, "rules": PRO_RULES},
        ]
    }


def resolver_for(configs: ToolConfigStore, clock: Clock, **kw: Any) -> ToolResolver:
    return ToolResolver(
        store=configs,
        agent_id="support",
        version="published",
        registry={"get_weather": WEATHER, "github_create_issue": ISSUE},
        clock=clock,
        **kw,
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_same_inputs_hit_and_a_changed_rule_value_or_credential_misses(mode: str) -> None:
    clock = Clock()
    resolver = resolver_for(configs_with(conditional_agent()), clock)

    async def resolve(**configurable: Any) -> list[str]:
        config: RunnableConfig = {"configurable": configurable}
        if mode == "sync":
            return resolver.resolve(config).names
        return (await resolver.aresolve(config)).names

    assert await resolve(plan="free", thread_id="a") == ["get_weather"]
    first = resolver.resolve({"configurable": {"plan": "free", "thread_id": "a"}})
    # a field no rule reads (thread_id) does not matter: same resolved set, same objects
    assert await resolve(plan="free", thread_id="b") == ["get_weather"]
    assert resolver.resolve({"configurable": {"plan": "free", "thread_id": "c"}}) is first
    assert (resolver.cache_hits, resolver.cache_misses) == (3, 1)
    # a value a rule reads does
    assert await resolve(plan="pro") == ["get_weather", "github_create_issue"]
    assert resolver.cache_misses == 2
    # so does the credential (only its salted fingerprint is kept)
    assert await resolve(plan="pro", toolsearch_auth_token="tok-one") == [
        "get_weather",
        "github_create_issue",
    ]
    assert resolver.cache_misses == 3
    await resolve(plan="pro", toolsearch_auth_token="tok-two")
    assert resolver.cache_misses == 4
    await resolve(plan="pro", toolsearch_auth_token="tok-one")
    assert resolver.cache_misses == 4


async def test_a_provider_sees_the_whole_context_so_any_change_misses() -> None:
    provider = CountingProvider()
    configs = configs_with({"tool_providers": {"reports": {"tools": {"get_report": {}}}}})
    resolver = ToolResolver(
        store=configs, agent_id="support", version="published", tool_providers={"reports": provider}
    )
    for _ in range(3):
        assert (await resolver.aresolve({"configurable": {"user_id": "u1"}})).names == [
            "get_report"
        ]
    assert provider.calls == 1
    await resolver.aresolve({"configurable": {"user_id": "u2"}})
    assert provider.calls == 2


async def test_a_publish_is_seen_within_the_refresh_interval_and_not_read_before() -> None:
    clock = Clock()
    reads: list[int] = []

    class CountingStore(InMemoryStore):
        def batch(self, ops: Any) -> Any:
            ops = list(ops)
            reads.append(len(ops))
            return super().batch(ops)

    store = CountingStore()
    configs = ToolConfigStore(store)
    configs.agents.save("support", {"tools": {"get_weather": {}}})
    configs.agents.publish("support")
    resolver = resolver_for(configs, clock, refresh_interval=5.0)
    assert resolver.resolve().names == ["get_weather"]
    cold_reads = len(reads)
    assert resolver.resolve().names == ["get_weather"]
    assert len(reads) == cold_reads  # within the interval: no store read at all

    # another writer (another process, another ToolConfigStore over the same store)
    other = ToolConfigStore(store)
    other.agents.save("support", {"tools": {"get_weather": {}, "github_create_issue": {}}})
    other.agents.publish("support")
    clock.now += 4.9
    assert resolver.resolve().names == ["get_weather"]  # inside the documented bound
    clock.now += 0.2
    assert resolver.resolve().names == ["get_weather", "github_create_issue"]
    assert resolver.resolve().version is not None
    assert resolver.resolve().version.version == 2  # type: ignore[union-attr]


async def test_a_publish_through_the_resolvers_own_config_store_is_seen_at_once() -> None:
    clock = Clock()
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("support", {"tools": {"get_weather": {}}})
    configs.agents.publish("support")
    resolver = resolver_for(configs, clock, refresh_interval=5.0)
    assert resolver.resolve().names == ["get_weather"]
    configs.agents.save("support", {"tools": {"get_weather": {}, "github_create_issue": {}}})
    configs.agents.publish("support")
    # no time passed: a write through the same ToolConfigStore re-reads the head
    assert resolver.resolve().names == ["get_weather", "github_create_issue"]
    await configs.agents.asave("support", {"tools": {"github_create_issue": {}}}, publish=True)
    assert (await resolver.aresolve()).names == ["github_create_issue"]


async def test_cache_ttl_zero_resolves_every_time_and_failures_are_kept_briefly() -> None:
    clock = Clock()
    provider = CountingProvider()
    configs = configs_with({"tool_providers": {"reports": {"tools": {"get_report": {}}}}})
    off = ToolResolver(
        store=configs, tool_providers={"reports": provider}, agent_id="support", cache_ttl=0
    )
    await off.aresolve({})
    await off.aresolve({})
    assert provider.calls == 2

    class Down(CountingProvider):
        async def resolve_tools(self, *args: Any, **kwargs: Any) -> list[BaseTool]:
            self.calls += 1
            raise ConnectionError("reports backend down")

    down = Down()
    failing = ToolResolver(
        store=configs,
        agent_id="support",
        tool_providers={"reports": down},
        clock=clock,
        refresh_interval=2.0,
    )
    first = await failing.aresolve({})
    assert first.failures and first.errors[0].kind == "provider"
    await failing.aresolve({})
    assert down.calls == 1  # reused within refresh_interval ...
    clock.now += 2.5
    await failing.aresolve({})
    assert down.calls == 2  # ... and tried again after it (cache_ttl is 60 s)


def test_bad_cache_options_raise() -> None:
    for kwargs in ({"refresh_interval": -1}, {"cache_ttl": -0.5}, {"cache_size": 0}):
        with pytest.raises(ValueError, match=r"refresh_interval|cache_ttl|cache_size"):
            ToolResolver(**kwargs)


# -- the tool search: a run's steps resolve once ---------------------------------------------


def counting_resolver() -> tuple[list[RunnableConfig], Any]:
    calls: list[RunnableConfig] = []

    def resolve(config: RunnableConfig) -> list[BaseTool]:
        calls.append(config)
        return [WEATHER]

    return calls, resolve


def agent_with(mw: ToolSearchMiddleware) -> Any:
    model = ScriptedToolSearchModel.search_load_call(
        query="weather", tool="get_weather", args={"city": "Oslo"}
    )
    return create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_runs_steps_resolve_once_and_build_one_library(mode: str) -> None:
    calls, resolve = counting_resolver()
    mw = ToolSearchMiddleware(tools=[ISSUE], include_resolved_tools=True, resolve_tools=resolve)
    agent = agent_with(mw)
    config: RunnableConfig = {"configurable": {"thread_id": "t1"}}
    payload = {"messages": [{"role": "user", "content": "weather in Oslo?"}]}
    out = agent.invoke(payload, config) if mode == "sync" else await agent.ainvoke(payload, config)
    assert out["messages"][-2].text == "get_weather: Sunny"  # 4 model + 3 tool steps ran
    assert len(calls) == 1
    assert mw._engine.scopes.library_builds == 1
    # a new run (same thread) resolves again; equal tools are not re-indexed
    out = agent.invoke(payload, config) if mode == "sync" else await agent.ainvoke(payload, config)
    assert len(calls) == 2 and mw._engine.scopes.index_builds == 1
    # outside a run (the search helper) there is no run to share: each call resolves
    mw.search("weather")
    mw.search("weather")
    assert len(calls) == 4


async def test_two_concurrent_runs_never_share_a_resolution() -> None:
    import asyncio

    seen: list[str] = []

    async def per_user(config: RunnableConfig) -> list[BaseTool]:
        user = config["configurable"]["user"]
        seen.append(user)
        await asyncio.sleep(0.01)
        return [make_tool("get_weather", f"for {user}")]

    mw = ToolSearchMiddleware(tools=[ISSUE], include_resolved_tools=True, resolve_tools=per_user)
    agent = agent_with(mw)
    payload = {"messages": [{"role": "user", "content": "weather?"}]}
    outs = await asyncio.gather(
        *(
            agent.ainvoke(payload, {"configurable": {"thread_id": f"t-{u}", "user": u}})
            for u in ("alice", "bob", "alice", "bob")
        )
    )
    assert [o["messages"][-2].text for o in outs] == [
        "get_weather: for alice",
        "get_weather: for bob",
        "get_weather: for alice",
        "get_weather: for bob",
    ]
    assert sorted(seen) == ["alice", "alice", "bob", "bob"]  # one resolution per run


def test_no_forced_collection_on_the_request_path(monkeypatch: pytest.MonkeyPatch) -> None:
    calls, resolve = counting_resolver()
    mw = ToolSearchMiddleware(tools=[ISSUE], include_resolved_tools=True, resolve_tools=resolve)
    agent = agent_with(mw)
    payload = {"messages": [{"role": "user", "content": "weather?"}]}
    agent.invoke(payload, {"configurable": {"thread_id": "warm"}})
    forced: list[tuple[Any, ...]] = []
    real = gc.collect

    def counting_collect(*args: Any) -> int:
        forced.append(args)
        return real(*args)

    monkeypatch.setattr(gc, "collect", counting_collect)
    agent.invoke(payload, {"configurable": {"thread_id": "t2"}})
    assert forced == []
    assert len(calls) == 2


@form_param
@mode_param
async def test_a_runs_steps_resolve_once_in_both_forms(form: str, mode: str) -> None:
    calls: list[RunnableConfig] = []
    crm = make_tool("crm_lookup", "acme")

    def resolve(config: RunnableConfig) -> list[BaseTool]:
        calls.append(config)
        return [crm]

    steps = [
        ai(call("search_tools", {"query": "crm lookup"})),
        ai(call("load_tool", {"tool_name": "crm_lookup"})),
        ai(call("crm_lookup", {"city": "Oslo"})),
        ai(content="done"),
    ]
    h = build(form, steps, include_resolved_tools=True, resolve_tools=resolve)
    out = await h.run("weather?", cfg("t-forms"), mode)
    assert tool_msgs(out, "crm_lookup")[0].text == "crm_lookup: acme"
    assert len(calls) == 1
