"""Sloppy ``load_tool`` arguments, schemas providers accept, and what ``load_tool``
answers (a partial load, descriptions cut at 150 characters)."""

from __future__ import annotations

import json
import logging

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict

from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, call
from tests.support.library_fixtures import library
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs


@form_param
@mode_param
async def test_a_json_list_in_a_string_loads_every_name(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_names": '["get_weather","send_email"]'})),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("load", cfg(), mode)
    receipt = tool_msgs(out, "load_tool")[0].artifact
    assert receipt["loaded"] == ["get_weather", "send_email"] and receipt["success"] is True
    assert h.bound[1] == [*META, "get_weather", "send_email"]


@form_param
@mode_param
@pytest.mark.parametrize(
    "args",
    [
        {"tool_names": "get_weather, send_email"},  # comma-separated
        {"tool_names": "get_weather,send_email,"},
        {"tool_name": ["get_weather", "send_email"]},  # a list in tool_name
        {"tool_name": '["get_weather", "send_email"]'},  # a JSON list in tool_name
        {"tool_name": "get_weather, send_email"},
        {"tool_name": "get_weather", "tool_names": "send_email"},  # a bare name in tool_names
        {"tool_name": ["get_weather"], "tool_names": ["send_email", "get_weather"]},
    ],
)
async def test_every_shape_of_one_or_more_names_loads_them(
    form: str, mode: str, args: dict[str, object]
) -> None:
    h = build(form, [ai(call("load_tool", args)), ai(content="ok")])
    out = await h.run("load", cfg(), mode)
    reply = tool_msgs(out, "load_tool")[0]
    assert reply.status == "success", reply.text
    assert reply.artifact["loaded"] == ["get_weather", "send_email"]
    assert h.bound[1] == [*META, "get_weather", "send_email"]


@form_param
@mode_param
async def test_a_bare_name_in_tool_names_loads_it(form: str, mode: str) -> None:
    h = build(form, [ai(call("load_tool", {"tool_names": "get_weather"})), ai(content="ok")])
    out = await h.run("load", cfg(), mode)
    assert tool_msgs(out, "load_tool")[0].artifact["loaded"] == ["get_weather"]
    assert h.bound[1] == [*META, "get_weather"]


@form_param
@mode_param
@pytest.mark.parametrize(
    "args",
    [
        {"tool_names": "[1, 2]"},
        {"tool_names": [1, 2]},
        {"tool_names": '{"a": 1}'},
        {"tool_name": 5},
        {"tool_name": [1]},
        {"tool_name": "[broken"},
    ],
)
async def test_a_refused_form_names_the_accepted_ones(
    form: str, mode: str, args: dict[str, object]
) -> None:
    h = build(form, [ai(call("load_tool", args)), ai(content="ok")])
    out = await h.run("load", cfg(), mode)
    reply = tool_msgs(out)[0]
    assert reply.status == "error"
    assert "tool_name" in reply.text and "list" in reply.text  # names the accepted forms
    assert h.bound[1] == META  # nothing loaded, the run went on


def mcp_style_tool() -> StructuredTool:
    return StructuredTool(
        name="mcp_ping",
        description="Ping the MCP server",
        args_schema={"type": "object"},
        func=lambda **kwargs: "pong",
    )


class _Opaque:
    pass


class _BrokenArgs(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    thing: _Opaque


def broken_tool() -> StructuredTool:
    """A tool LangChain cannot convert for a provider (no JSON schema for its argument)."""
    return StructuredTool(
        name="broken_tool",
        description="Ping the legacy broken service",
        args_schema=_BrokenArgs,
        func=lambda thing: "never",
    )


@form_param
@mode_param
async def test_object_schemas_get_properties(form: str, mode: str) -> None:
    steps = [ai(call("load_tool", {"tool_name": "mcp_ping"})), ai(call("mcp_ping", {})), ai()]
    h = build(form, steps, tools=[*library(), mcp_style_tool()])
    out = await h.run("ping", cfg(), mode)
    bound = json.loads(h.model.bound_json[1])
    ping = next(t for t in bound if t["function"]["name"] == "mcp_ping")
    assert ping["function"]["parameters"] == {"type": "object", "properties": {}}
    assert tool_msgs(out)[-1].text == "pong"


@form_param
@mode_param
async def test_an_unconvertible_tool_is_skipped_and_its_calls_answered(
    form: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    steps = [
        ai(call("load_tool", {"tool_names": ["broken_tool", "get_weather"]})),
        ai(call("broken_tool", {"thing": "x"})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=[*library(), broken_tool()])
    with caplog.at_level(logging.WARNING):
        out = await h.run("go", cfg(), mode)
    assert h.bound[1] == [*META, "get_weather"]  # every later model call still works
    assert h.bound[2] == [*META, "get_weather"]
    replies = tool_msgs(out)
    assert replies[1].status == "error" and replies[1].text == P.TOOL_SCHEMA_UNUSABLE
    assert replies[2].text.startswith("Sunny")
    assert "broken_tool" in caplog.text and "cannot be converted" in caplog.text


@mode_param
async def test_a_partial_load_answers_false_listing_both(mode: str) -> None:
    steps = [ai(call("load_tool", {"tool_names": ["get_weather", "nope"]})), ai(content="ok")]
    for storage in ("in-memory", "context"):
        h = build("agent", steps, storage=storage)
        out = await h.run("go", cfg(), mode)
        reply: ToolMessage = tool_msgs(out)[0]
        assert reply.artifact["success"] is False
        assert reply.artifact["loaded"] == ["get_weather"]
        assert reply.artifact["not_found"] == ["nope"]
        assert h.bound[1] == [*META, "get_weather"]  # context storage still counts it


@pytest.mark.parametrize("length", [149, 150, 151, 152, 153, 160, 400])
@pytest.mark.parametrize("word", [1, 7, 40])
def test_search_descriptions_are_at_most_150_characters_with_the_ellipsis(
    length: int, word: int
) -> None:
    """The cut text plus ``...`` never exceeds 150."""
    from langchain_toolsearch._library import LibraryTool

    text = " ".join(" ".join(["w" * word] * length)[:length].split())
    tool = StructuredTool.from_function(lambda: "", name="t", description=text)
    short = LibraryTool(name="t", original_name="t", tool=tool).short_description()
    assert len(short) <= 150
    if len(text) > 150:
        assert short.endswith("...") and text.startswith(short[:-3])
    else:
        assert short == text
