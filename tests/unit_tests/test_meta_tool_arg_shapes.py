"""Tool-call ``args`` that are not a JSON object never end a run.

A model (or a forged history) may send ``search_tools`` / ``load_tool`` an
int, a list, a string, ``[]``, ``None``, a float or a bool as arguments. In
every storage mode, with ``create_agent`` + ``ToolSearchMiddleware`` and with
``ToolSearchNode`` graphs, sync and async, each call gets an error
``ToolMessage`` naming the object expected, and the model's next step runs.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langchain_toolsearch.storage._context import receipts_in, requested_names
from tests.support.fakes import ai, call
from tests.support.library_fixtures import CALLS
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

SHAPES: list[Any] = [5, [1, 2], "weather", [], None, 1.5, True]
"""Every JSON value that is not an object (and ``None``, a missing object)."""
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
EXPECTED = {
    "search_tools": "an object with query (string) or queries",
    "load_tool": "an object with tool_name (string) or tool_names",
}


def shaped(name: str, args: Any) -> AIMessage:
    """A tool-calling step whose call carries ``args`` as given (not validated)."""
    message = ai(call(name, {"query": "x"} if name == "search_tools" else {"tool_name": "x"}))
    message.tool_calls[0]["args"] = args
    return message


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "context", "store"])
@pytest.mark.parametrize("name", ["search_tools", "load_tool"])
@pytest.mark.parametrize("args", SHAPES, ids=repr)
async def test_a_meta_call_with_non_object_args_is_an_error_and_the_run_goes_on(
    form: str, mode: str, storage: str, name: str, args: Any
) -> None:
    steps = [
        shaped(name, args),
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(content="done"),
    ]
    h = build(form, steps, storage=storage)
    out = await h.run("weather in Oslo", cfg(f"t-{form}-{storage}"), mode)
    reply = tool_msgs(out, name)[0]
    assert reply.status == "error" and EXPECTED[name] in reply.text, reply.text
    loaded = tool_msgs(out, "load_tool")[-1]
    assert loaded.status != "error"  # the next model step ran and was answered
    assert out["messages"][-1].text == "done"
    assert h.bound[0] == META and len(h.bound) == 3


@form_param
@mode_param
@pytest.mark.parametrize("loaded", [True, False])
@pytest.mark.parametrize("args", SHAPES, ids=repr)
async def test_a_library_tool_called_with_non_object_args_is_an_error_and_the_run_goes_on(
    form: str, mode: str, loaded: bool, args: Any
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather" if loaded else "send_email"})),
        shaped("get_weather", args),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="done"),
    ]
    steps[1].tool_calls[0]["name"] = "get_weather"
    h = build(form, steps, storage="context")
    out = await h.run("weather in Oslo", cfg(f"t-lib-{form}"), mode)
    first = tool_msgs(out, "get_weather")[0]
    assert first.status == "error" and "expected an object of named arguments" in first.text
    assert out["messages"][-1].text == "done" and len(h.bound) == 4
    assert ([("get_weather", "Oslo")] if loaded else []) == CALLS


@pytest.mark.parametrize("args", SHAPES, ids=repr)
def test_the_receipts_reader_tolerates_a_history_with_non_object_args(args: Any) -> None:
    asked = shaped("load_tool", args)
    receipt = {"success": True, "message": "", "loaded": ["get_weather"], "not_found": []}
    answer = ToolMessage(
        content=str(receipt), artifact=receipt, tool_call_id=asked.tool_calls[0]["id"] or ""
    )
    answer.name = "load_tool"
    history = [HumanMessage("hi"), asked, answer]
    assert receipts_in(history) == []  # its call asked for no name: nothing counts
    assert requested_names(args) is None
