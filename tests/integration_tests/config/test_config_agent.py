"""End to end: a ``create_agent`` agent whose searchable library is resolved from a
stored tool config per request, so it changes with the caller's plan (conditional
variants), including a saved HTTP MCP client that receives the caller's token."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.config import AUTH_TOKEN_KEY, ToolConfigStore, ToolResolver
from tests.support.fakes import ScriptedChatModel, ai, call, tool_messages
from tests.support.library_fixtures import (
    CALLS,
    get_weather,
    github_create_issue,
    github_list_repos,
    send_email,
    slack_post_message,
)

PAID = {
    "operator": "OR",
    "conditions": [
        {"field": "plan", "operator": "in", "value": ["pro", "enterprise"]},
        {
            "operator": "AND",
            "conditions": [
                {"field": "trial.active", "operator": "equals", "value": True},
                {"field": "trial.days_left", "operator": "greater_than", "value": 0},
            ],
        },
    ],
}

SUPPORT_AGENT: dict[str, Any] = {
    "tools": [
        {"value": {"get_weather": {}, "send_email": {}}},
        {"value": {"github_create_issue": {}, "github_list_repos": {}}, "rules": PAID},
    ],
    "mcp_clients": [
        {
            "value": {
                "remote": {
                    "tools": {
                        "web_whoami": {
                            "description": "Tell which account the caller is signed in as."
                        }
                    }
                }
            },
            "rules": PAID,
        }
    ],
}

QUERY = "create an issue in a github repository"


def _setup(configs: ToolConfigStore, url: str) -> ToolResolver:
    configs.mcp_clients.create("remote", {"servers": {"web": {"url": url}}})
    configs.mcp_clients.publish("remote")  # a published agent uses published clients
    configs.agents.save("support", SUPPORT_AGENT)
    configs.agents.publish("support")
    return ToolResolver(
        store=configs,
        agent_id="support",
        version="published",
        registry={
            t.name: t
            for t in (
                get_weather,
                send_email,
                github_create_issue,
                github_list_repos,
                slack_post_message,
            )
        },
        mcp_timeout=20,
    )


def _agent(tools: list[Any], model: ScriptedChatModel) -> Any:
    return create_agent(
        model,
        tools=[],
        middleware=[ToolSearchMiddleware(tools=tools)],
        checkpointer=InMemorySaver(),
    )


def _artifacts(messages: list[Any], name: str) -> list[dict[str, Any]]:
    return [m.artifact for m in tool_messages(messages) if m.name == name]


def _text(message: ToolMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in message.content)


async def test_the_searchable_library_follows_the_callers_plan(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    resolver = _setup(configs, http_mcp_url)
    CALLS.clear()

    # -- a pro caller: finds, loads and calls the pro tool and the MCP tool ----------
    pro: RunnableConfig = {
        "configurable": {"thread_id": "pro-1", "plan": "pro", AUTH_TOKEN_KEY: "pro-token"}
    }
    resolved = await resolver.aresolve(pro)
    assert resolved.failures == {}
    assert resolved.names == [
        "get_weather",
        "send_email",
        "github_create_issue",
        "github_list_repos",
        "web_whoami",
    ]
    model = ScriptedChatModel(
        steps=[
            ai(call("search_tools", {"query": QUERY})),
            ai(call("load_tool", {"tool_names": ["github_create_issue", "web_whoami"]})),
            ai(
                call("github_create_issue", {"repo": "acme/app", "title": "Flaky test"}),
                call("web_whoami", {}),
            ),
            AIMessage(content="Opened the issue."),
        ]
    )
    out = await _agent(resolved.tools, model).ainvoke(
        {"messages": [HumanMessage("open an issue about the flaky test")]}, pro
    )
    (search,) = _artifacts(out["messages"], "search_tools")
    assert search["results"][0]["name"] == "github_create_issue"
    (load,) = _artifacts(out["messages"], "load_tool")
    assert load["success"] and load["loaded"] == ["github_create_issue", "web_whoami"]
    answers = {m.name: _text(m) for m in tool_messages(out["messages"])}
    assert answers["github_create_issue"] == "issue #1"
    assert answers["web_whoami"] == "Bearer pro-token"  # the caller's token reached the server
    assert ("github_create_issue", "Flaky test") in CALLS
    assert model.bound[2] == ["search_tools", "load_tool", "github_create_issue", "web_whoami"]
    assert out["messages"][-1].content == "Opened the issue."

    # -- a free caller: the same request cannot find or load the pro tools (sync run) -
    free: RunnableConfig = {
        "configurable": {"thread_id": "free-1", "plan": "free", AUTH_TOKEN_KEY: "free-token"}
    }
    free_tools = resolver.resolve(free)
    assert free_tools.names == ["get_weather", "send_email"]
    model = ScriptedChatModel(
        steps=[
            ai(call("search_tools", {"query": QUERY})),
            ai(call("load_tool", {"tool_names": ["github_create_issue", "web_whoami"]})),
            AIMessage(content="That needs a paid plan."),
        ]
    )
    CALLS.clear()
    out = _agent(free_tools.tools, model).invoke(
        {"messages": [HumanMessage("open an issue about the flaky test")]}, free
    )
    (search,) = _artifacts(out["messages"], "search_tools")
    assert all(
        hit["name"] not in ("github_create_issue", "web_whoami") for hit in search["results"]
    )
    (load,) = _artifacts(out["messages"], "load_tool")
    assert not load["success"]
    assert load["not_found"] == ["github_create_issue", "web_whoami"]
    assert CALLS == []
    assert all(
        names[:2] == ["search_tools", "load_tool"] and len(names) == 2 for names in model.bound
    )

    # -- a trial caller matches the nested rule group ---------------------------------
    trial: RunnableConfig = {
        "configurable": {"plan": "free", "trial": {"active": True, "days_left": 3}}
    }
    trial_tools = await resolver.aresolve(trial)
    assert "github_create_issue" in trial_tools.names
    middleware = ToolSearchMiddleware(tools=trial_tools.tools)
    assert middleware.search(QUERY)[0].name == "github_create_issue"
    expired = {"configurable": {"plan": "free", "trial": {"active": True, "days_left": 0}}}
    assert "github_create_issue" not in (await resolver.aresolve(expired)).names  # type: ignore[arg-type]


async def test_drafts_do_not_reach_callers_of_the_published_version(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    resolver = _setup(configs, http_mcp_url)
    configs.agents.save("support", {"tools": {"slack_post_message": {}}})  # a new draft
    published = await resolver.aresolve({"configurable": {"plan": "free"}})
    assert published.names == ["get_weather", "send_email"]
    draft = await resolver.aresolve({"configurable": {"plan": "free"}}, version="draft")
    assert draft.names == ["slack_post_message"]
    middleware = ToolSearchMiddleware(tools=draft.tools)
    assert [hit.name for hit in middleware.search("post a message to a slack channel")] == [
        "slack_post_message"
    ]


async def test_one_agent_resolves_the_stored_config_per_request(
    configs: ToolConfigStore, http_mcp_url: str
) -> None:
    """The resolver feeds ``include_resolved_tools``: one agent, each caller its own library."""
    resolver = _setup(configs, http_mcp_url)

    async def stored_tools(config: RunnableConfig) -> list[Any]:
        return (await resolver.aresolve(config)).tools

    middleware = ToolSearchMiddleware(
        tools=[], include_resolved_tools=True, resolve_tools=stored_tools
    )

    def script() -> list[Any]:
        return [
            ai(call("search_tools", {"query": QUERY})),
            ai(call("load_tool", {"tool_names": ["github_create_issue", "web_whoami"]})),
            ai(call("web_whoami", {})),
            AIMessage(content="done"),
        ]

    model = ScriptedChatModel(steps=script())
    agent = create_agent(model, tools=[], middleware=[middleware], checkpointer=InMemorySaver())
    pro: RunnableConfig = {
        "configurable": {"thread_id": "p", "plan": "pro", AUTH_TOKEN_KEY: "pro-token"}
    }
    out = await agent.ainvoke({"messages": [HumanMessage("open an issue")]}, pro)
    (search,) = _artifacts(out["messages"], "search_tools")
    assert search["results"][0]["name"] == "github_create_issue"
    answers = {m.name: _text(m) for m in tool_messages(out["messages"])}
    assert answers["web_whoami"] == "Bearer pro-token"

    model.steps, model.cursor[0] = script(), 0
    free: RunnableConfig = {
        "configurable": {"thread_id": "f", "plan": "free", AUTH_TOKEN_KEY: "free-token"}
    }
    out = await agent.ainvoke({"messages": [HumanMessage("open an issue")]}, free)
    (search,) = _artifacts(out["messages"], "search_tools")
    assert all(h["name"] not in ("github_create_issue", "web_whoami") for h in search["results"])
    (load,) = _artifacts(out["messages"], "load_tool")
    assert load["not_found"] == ["github_create_issue", "web_whoami"]
    refused = [m for m in tool_messages(out["messages"]) if m.name == "web_whoami"]
    assert refused and refused[0].status == "error"  # never reached the server
