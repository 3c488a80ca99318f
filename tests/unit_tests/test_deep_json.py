"""Deeply nested JSON never breaks a run: in ``tool_names`` it is refused with an error
``ToolMessage`` (never a ``RecursionError`` out of the run), and a loaded tool answering
it leaves later steps working.
"""

from __future__ import annotations

import pytest
from langchain_core.tools import tool

from tests.support.fakes import ai, call
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

DEEP_JSON = "[" * 5000 + "]" * 5000
"""Valid-looking JSON nested deeper than Python's recursion limit."""


@form_param
@mode_param
async def test_deeply_nested_json_in_tool_names_is_refused_and_the_run_goes_on(
    form: str, mode: str
) -> None:
    h = build(form, [ai(call("load_tool", {"tool_names": DEEP_JSON})), ai(content="ok")])
    out = await h.run("load", cfg(), mode)
    reply = tool_msgs(out, "load_tool")[0]
    assert reply.status == "error" and "tool_names" in reply.text
    assert h.bound == [META, META]


@tool
def fetch_page(url: str) -> str:
    """Fetch a web page"""
    return DEEP_JSON


@form_param
@pytest.mark.parametrize("storage", ["context", "in-memory"])
async def test_a_loaded_tool_answering_deeply_nested_json_never_breaks_later_steps(
    form: str, storage: str
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "fetch_page"})),
        ai(call("fetch_page", {"url": "x"})),
        ai(content="ok"),
    ]
    h = build(form, steps, storage=storage, tools=[fetch_page])
    out = await h.run("fetch", cfg(), "sync")
    assert tool_msgs(out, "fetch_page")[0].text == DEEP_JSON
    assert h.bound[1] == h.bound[2] == [*META, "fetch_page"]
