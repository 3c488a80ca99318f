"""``provider="anthropic"`` on the bytes: the request JSON ``ChatAnthropic`` sends, step by step.

A real ``ChatAnthropic`` talks to a fake Messages API on its HTTP transport
(:mod:`tests.support.anthropic_wire`) through a real ``create_agent`` and the
README's hand-built graph around ``ToolSearchNode``, sync and async. Pinned
here: system and tools identical at every step, deferred definitions carry
``defer_loading: true``, the search answers as ``tool_reference`` blocks in
the ``tool_result``, no beta header (tool search and ``defer_loading`` are
GA in the Messages API; ``tool_reference`` needs none), a denied tool is not
sent, and the guard refuses a deferred tool that was never referenced. A
``langchain-anthropic`` that stops passing ``defer_loading`` or
``tool_reference`` through fails these tests.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from langchain_toolsearch import ToolSearchFilterArgs, ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch._modes import GONE
from langchain_toolsearch.errors import ToolSearchConfigError
from tests.support.anthropic_wire import Sent, text_reply, tool_use_reply, wired_model
from tests.support.fakes import by_id
from tests.support.library_fixtures import CALLS, get_weather, library, send_email
from tests.support.paths import REPO_ROOT
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param

LIBRARY_NAMES = [t.name for t in library()]


def search_call_turn(tool: str = "get_weather", args: dict[str, Any] | None = None) -> list[Any]:
    """search_tools("weather"), then ``tool``, then text: three Messages API responses."""
    return [
        tool_use_reply("search_tools", {"query": "weather in a city"}, 1),
        tool_use_reply(tool, args if args is not None else {"city": "Paris"}, 2),
        text_reply("done", 3),
    ]


def native(form: str, replies: list[Any], **options: Any) -> tuple[Any, list[Sent]]:
    model, wire = wired_model(replies)
    harness = build(form, model=model, provider="anthropic", system_prompt="Be brief.", **options)
    return harness, wire.sent


def tool_names(sent: Sent) -> list[str]:
    return [t["name"] for t in sent.body["tools"]]


def deferred_names(sent: Sent) -> list[str]:
    return [t["name"] for t in sent.body["tools"] if t.get("defer_loading") is True]


def assert_references_are_deferred(sent: Sent) -> None:
    """Every ``tool_reference`` in the messages names a deferred definition of the request."""
    deferred = set(deferred_names(sent))
    for message in sent.body["messages"]:
        content = message["content"]
        for block in content if isinstance(content, list) else ():
            inner = block.get("content") if block.get("type") == "tool_result" else None
            for ref in inner if isinstance(inner, list) else ():
                if ref.get("type") == "tool_reference":
                    assert ref["tool_name"] in deferred, ref


@form_param
@mode_param
async def test_a_search_call_turn_keeps_system_and_tools_byte_identical(
    form: str, mode: str
) -> None:
    h, sent = native(form, search_call_turn())
    out = await h.run("weather in Paris?", cfg(), mode)
    assert CALLS == [("get_weather", "Paris")]
    assert out["messages"][-1].content == "done"
    assert len(sent) == 3
    assert len({s.prefix() for s in sent}) == 1  # system + tools: the same bytes every step
    first = sent[0]
    assert first.body["system"].startswith("Be brief.")
    assert tool_names(first) == ["search_tools", *LIBRARY_NAMES]  # library order
    assert "defer_loading" not in first.body["tools"][0]  # the search tool itself is not
    assert deferred_names(first) == LIBRARY_NAMES
    for s in sent:  # the documented endpoint, no beta needed for any of this
        assert s.path == "/v1/messages"
        assert s.betas == []
        assert_references_are_deferred(s)
    for before, after in itertools.pairwise(sent):  # messages only grow at the end
        assert after.body["messages"][: len(before.body["messages"])] == before.body["messages"]
    assert sent[1].body["messages"][-1] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_0001",
                "content": [{"type": "tool_reference", "tool_name": "get_weather"}],
            }
        ],
    }
    assert sent[1].body["messages"][-2]["content"][0]["type"] == "tool_use"


@form_param
@mode_param
async def test_the_receipt_stays_the_artifact_and_counts_as_loaded(form: str, mode: str) -> None:
    h, _ = native(form, search_call_turn())
    out = await h.run("weather in Paris?", cfg(), mode)
    search = by_id(out)["toolu_0001"]
    assert search.content == [{"type": "tool_reference", "tool_name": "get_weather"}]
    assert search.artifact["activation"]["loaded"] == ["get_weather"]
    assert h.ts.get_loaded_tools(cfg()) == ["get_weather"]


@form_param
@mode_param
async def test_a_tool_never_referenced_is_refused_even_though_it_is_sent(
    form: str, mode: str
) -> None:
    replies = [
        tool_use_reply("send_email", {"to": "a@b.c", "body": "hi"}, 1),
        text_reply("refused", 2),
    ]
    h, sent = native(form, replies)
    out = await h.run("mail someone", cfg(), mode)
    refused = by_id(out)["toolu_0001"]
    assert refused.status == "error" and "search_tools" in refused.content
    assert CALLS == []
    assert "send_email" in deferred_names(sent[0])  # deferred, so the model could name it
    assert sent[1].body["messages"][-1]["content"][0]["is_error"] is True


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "context", "store"])
async def test_the_filter_keeps_denied_tools_out_of_the_request_and_the_guard_refuses_them(
    form: str, mode: str, storage: str
) -> None:
    def decide(args: ToolSearchFilterArgs) -> bool:
        hidden = (args.config.get("configurable") or {}).get("hide", ())
        return not (args.phase == "active" and args.tool_name in hidden)

    replies = [
        *search_call_turn(),  # run 1: found and used
        tool_use_reply("get_weather", {"city": "Rome"}, 4),  # run 2: denied now
        text_reply("refused", 5),
    ]
    h, sent = native(form, replies, filter=decide, storage=storage)
    await h.run("weather in Paris?", cfg(hide=["admin_delete_user"]), mode)
    for s in sent:
        assert "admin_delete_user" not in tool_names(s)
        assert "admin_delete_user" not in s.prefix()
    for s in sent:
        assert_references_are_deferred(s)
    out = await h.run("and Rome?", cfg(hide=["get_weather"]), mode)
    assert by_id(out)["toolu_0004"].status == "error"
    assert CALLS == [("get_weather", "Paris")]
    assert "get_weather" not in tool_names(sent[3])
    if form == "agent":  # the middleware drops the past reference from the request it sends
        assert_references_are_deferred(sent[3])
        past = sent[3].body["messages"][2]["content"][0]
        assert past["type"] == "tool_result" and past["content"] == GONE
        assert by_id(out)["toolu_0001"].content[0]["type"] == "tool_reference"  # state kept
    assert len({s.prefix() for s in sent[:3]}) == 1


@form_param
@mode_param
async def test_a_search_that_finds_nothing_answers_text(form: str, mode: str) -> None:
    replies = [tool_use_reply("search_tools", {"query": "zzqx"}, 1), text_reply("none", 2)]
    h, sent = native(form, replies)
    await h.run("anything?", cfg(), mode)
    result = sent[1].body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    assert isinstance(result["content"], str) and "zzqx" in result["content"]


@mode_param
async def test_resolved_tools_are_deferred_after_the_library(mode: str) -> None:
    lib = library()
    static, own = lib[:3], lib[3:5]
    h, sent = native(
        "agent",
        search_call_turn(),
        tools=static,
        include_resolved_tools=True,
        resolve_tools=lambda config: own,
    )
    await h.run("weather in Paris?", cfg(), mode)
    assert deferred_names(sent[0]) == [t.name for t in [*static, *own]]
    assert len({s.prefix() for s in sent}) == 1


def test_provider_implies_the_one_step_flow_and_names_the_choices() -> None:
    mw = ToolSearchMiddleware(tools=library(), provider="anthropic")
    assert [t.name for t in mw.meta_tools] == ["search_tools"]
    assert mw.options.auto_load is True
    node = ToolSearchNode(tools=library(), provider="anthropic")
    assert [t.name for t in node.tools_for({"messages": []})][:1] == ["search_tools"]
    with pytest.raises(ToolSearchConfigError, match="'anthropic'"):
        ToolSearchMiddleware(tools=library(), provider="openai")  # type: ignore[arg-type]


def test_the_payload_in_the_docs_is_the_one_sent() -> None:
    page = (REPO_ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    section = page.split("## Provider-native tool search", 1)[1]
    documented = json.loads(section.split("```json\n", 1)[1].split("\n```", 1)[0])
    model, wire = wired_model(search_call_turn())
    h = build(
        "agent",
        model=model,
        provider="anthropic",
        system_prompt="Be brief.",
        tools=[get_weather, send_email],
    )
    h.graph.invoke({"messages": [HumanMessage("weather in Paris?")]}, cfg())
    assert wire.sent[1].body == documented
