"""``auto_load=True`` in every storage mode: ``search_tools`` loads its hits.

``load_tool`` is not exposed; the search result carries the activation
receipt ``{"type": "tool-search-auto-load", "version": 1, "loaded": [...]}``
(the ToolMessage artifact, and the same JSON as content); a repeat search says
"already loaded"; hits the filter denies (phase ``search``, or phase ``load``,
since every hit shown is loaded) do not use up ``top_k``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, plan_filter
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param

STORAGES = pytest.mark.parametrize("storage", ["in-memory", "context", "store"])
ONLY_SEARCH = ["search_tools"]


@form_param
@mode_param
@STORAGES
async def test_search_loads_hits_with_an_activation_receipt(
    form: str, mode: str, storage: str
) -> None:
    steps = [
        ai(call("search_tools", {"query": "weather"}, "s1")),
        ai(call("get_weather", {"city": "Bern"}, "w")),
        ai(call("search_tools", {"query": "weather"}, "s2")),
        ai(call("load_tool", {"tool_name": "send_email"}, "l")),
        ai(content="ok"),
    ]
    h = build(form, steps, auto_load=True, top_k=1, storage=storage)
    out = await h.run("weather in Bern", cfg(), mode)
    msgs = by_id(out)
    first, second = msgs["s1"], msgs["s2"]
    assert json.loads(first.content) == first.artifact
    assert list(first.artifact) == ["results", "message", "activation"]
    assert first.artifact["activation"] == {
        "type": "tool-search-auto-load",
        "version": 1,
        "loaded": ["get_weather"],
    }
    assert first.artifact["message"].endswith(
        P.SEARCH_FOUND_AUTO_DETAIL.format(loaded="get_weather", already="none")
    )
    assert second.artifact["activation"]["loaded"] == ["get_weather"]  # repeat: already loaded
    assert second.artifact["message"].endswith(
        P.SEARCH_FOUND_AUTO_DETAIL.format(loaded="none", already="get_weather")
    )
    # the model reads these words (P.SEARCH_FOUND_AUTO_DETAIL as shipped)
    assert first.artifact["message"].endswith(" Newly loaded: get_weather. Already loaded: none.")
    assert second.artifact["message"].endswith(" Newly loaded: none. Already loaded: get_weather.")
    assert h.bound[0] == ONLY_SEARCH  # load_tool is not exposed
    assert h.bound[1:] == [[*ONLY_SEARCH, "get_weather"]] * 4
    assert msgs["w"].status == "success" and CALLS == [("get_weather", "Bern")]
    assert msgs["l"].status == "error" and msgs["l"].content == P.TOOL_NOT_LOADED_AUTO


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_load_tool_is_not_a_meta_tool(cls: type) -> None:
    assert [t.name for t in cls(tools=[], auto_load=True).meta_tools] == ONLY_SEARCH


def _deny_admin_loads(args: Any) -> bool:
    return not (args.phase == "load" and args.tool_name.startswith("admin_"))


@form_param
@mode_param
@STORAGES
@pytest.mark.parametrize("phase", ["search", "load"])
async def test_top_k_is_refilled_past_denied_hits(
    form: str, mode: str, storage: str, phase: str
) -> None:
    hook = plan_filter if phase == "search" else _deny_admin_loads
    steps = [ai(call("search_tools", {"query": "delete user account"}, "s")), ai(content="ok")]
    h = build(form, steps, auto_load=True, top_k=3, storage=storage, filter=hook)
    out = await h.run("delete", cfg(plan="free"), mode)
    receipt = by_id(out)["s"].artifact
    hits = [r["name"] for r in receipt["results"]]
    assert len(hits) == 3 and "admin_delete_user" not in hits
    assert receipt["activation"]["loaded"] == hits  # every hit shown is loaded
    assert h.bound[1] == [*ONLY_SEARCH, *hits]
    unfiltered = build(form, [], auto_load=True, top_k=3, storage=storage)
    assert unfiltered.ts.search("delete user account")[0].name == "admin_delete_user"


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["context", "store"])
async def test_auto_loads_survive_a_new_instance(form: str, mode: str, storage: str) -> None:
    shared: dict[str, Any] = {
        "auto_load": True,
        "top_k": 1,
        "storage": storage,
        "saver": InMemorySaver(),
        "graph_store": InMemoryStore(),
    }
    first = build(form, [ai(call("search_tools", {"query": "slack message"}))], **shared)
    await first.run("post to slack", cfg(), mode)
    again = build(form, [ai(content="ok")], **shared)  # a new instance on the same saver and store
    await again.run("hello", cfg(), mode)
    assert again.bound == [[*ONLY_SEARCH, "slack_post_message"]]


@pytest.mark.parametrize("where", ["artifact", "content"])
def test_an_auto_load_receipt_with_error_status_loads_nothing(where: str) -> None:
    """Under ``storage="context"`` an errored ``search_tools`` answer is no receipt."""
    from langchain_core.messages import HumanMessage, ToolMessage

    from langchain_toolsearch.storage._context import receipts_in, receipts_of

    receipt = {
        "tools": [{"name": "get_weather"}],
        "activation": {"type": "tool-search-auto-load", "version": 1, "loaded": ["get_weather"]},
    }

    def history(status: str) -> list[Any]:
        body = {"artifact": receipt} if where == "artifact" else {}
        answer = ToolMessage(json.dumps(receipt), tool_call_id="s1", status=status, **body)
        return [
            HumanMessage("go"),
            ai(call(P.SEARCH_TOOL_NAME, {"query": "weather"}, "s1")),
            answer,
        ]

    assert receipts_in(history("success")) == ["get_weather"]  # the same receipt, not errored
    assert receipts_in(history("error")) == []
    assert receipts_of({"messages": history("error")}) == []
