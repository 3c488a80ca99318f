"""`langchain_toolsearch.catalog`: MCP-style definitions -> LangChain tools.

Small inline definitions only; the GitHub MCP server's 117 definitions (shared
data) are read in tests/integration_tests/test_catalog_data.py.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch.catalog import load_catalog, load_definitions, tool_from_definition


def _defn(name: str = "get_weather", **extra: Any) -> dict[str, Any]:
    defn: dict[str, Any] = {
        "name": name,
        "description": f"{name}: look up the weather for a city.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "minimum": 1},
            },
            "required": ["city"],
        },
    }
    defn.update(extra)
    return defn


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- tool_from_definition


def test_tool_from_definition_binds_the_raw_schema() -> None:
    defn = _defn(annotations={"readOnlyHint": True, "title": "Weather"})
    original = copy.deepcopy(defn)
    tool = tool_from_definition(defn)

    assert isinstance(tool, StructuredTool)
    assert tool.name == "get_weather"
    assert tool.description == defn["description"]
    assert tool.args_schema == defn["inputSchema"]
    assert tool.args_schema is not defn["inputSchema"]  # a copy, not shared
    assert tool.metadata == {
        "source": "catalog",
        "annotations": {"readOnlyHint": True, "title": "Weather"},
    }
    assert tool.handle_tool_error is True

    openai = convert_to_openai_tool(tool)
    assert openai == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": defn["description"],
            "parameters": defn["inputSchema"],
        },
    }
    assert defn == original  # the input is not mutated


def test_definition_without_implementation_returns_an_error() -> None:
    tool = tool_from_definition(_defn())
    expected = "get_weather is a catalog definition with no implementation attached"

    assert tool.invoke({"city": "Paris"}) == expected
    message = tool.invoke(
        {"type": "tool_call", "id": "call-1", "name": "get_weather", "args": {"city": "Paris"}}
    )
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert message.content == expected
    assert asyncio.run(tool.ainvoke({"city": "Paris"})) == expected


def test_attached_func_and_coroutine_are_called_with_the_arguments() -> None:
    def weather(city: str, days: int = 1) -> str:
        return f"sunny in {city} for {days} days"

    async def aweather(city: str, days: int = 1) -> str:
        return f"async sunny in {city} for {days} days"

    sync_tool = tool_from_definition(_defn(), func=weather)
    assert sync_tool.invoke({"city": "Oslo", "days": 2}) == "sunny in Oslo for 2 days"
    # With only ``func``, async calls run it in an executor.
    assert asyncio.run(sync_tool.ainvoke({"city": "Oslo"})) == "sunny in Oslo for 1 days"

    both = tool_from_definition(_defn(), func=weather, coroutine=aweather)
    assert asyncio.run(both.ainvoke({"city": "Rome"})) == "async sunny in Rome for 1 days"
    assert both.args_schema == _defn()["inputSchema"]


def test_missing_description_and_properties_are_filled_in() -> None:
    tool = tool_from_definition({"name": "ping", "inputSchema": {"type": "object"}})
    assert tool.description == ""
    assert tool.args_schema == {"type": "object", "properties": {}}
    assert tool.args == {}


@pytest.mark.parametrize(
    ("defn", "match"),
    [
        ({"description": "x", "inputSchema": {"type": "object"}}, "missing or empty 'name'"),
        ({"name": "  ", "inputSchema": {"type": "object"}}, "missing or empty 'name'"),
        ({"name": 3, "inputSchema": {"type": "object"}}, "non-empty string name"),
        ({"name": "t"}, "has no 'inputSchema'"),
        ({"name": "t", "inputSchema": ["city"]}, "must be a JSON schema object"),
        ({"name": "t", "inputSchema": "object"}, "must be a JSON schema object"),
        ({"name": "t", "inputSchema": {"type": "string"}}, "must describe an object"),
        ({"name": "t", "inputSchema": {"properties": []}}, "properties' must be an object"),
        ({"name": "t", "description": 5, "inputSchema": {}}, "'description' must be a string"),
        (["not", "a", "dict"], "expected a JSON object"),
    ],
)
def test_bad_definitions_raise_value_error(defn: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        tool_from_definition(defn)


def test_error_names_the_source() -> None:
    with pytest.raises(ValueError, match=r"^tools\.json\[2\]: tool 't'"):
        tool_from_definition({"name": "t", "inputSchema": []}, source="tools.json[2]")


# ---------------------------------------------------------------------- load_catalog


def test_list_file_and_mcp_tools_list_result(tmp_path: Path) -> None:
    defs = [_defn("b_tool"), _defn("a_tool"), _defn("c_tool")]
    listed = load_catalog(_write(tmp_path / "tools.json", defs))
    assert [tool.name for tool in listed] == ["a_tool", "b_tool", "c_tool"]
    assert listed[0].metadata is not None
    assert listed[0].metadata["catalog_entry"] == f"{tmp_path / 'tools.json'}[1]"

    result = load_catalog(_write(tmp_path / "result.json", {"tools": defs}))
    assert [tool.name for tool in result] == ["a_tool", "b_tool", "c_tool"]


def test_single_definition_file(tmp_path: Path) -> None:
    tools = load_catalog(_write(tmp_path / "one.json", _defn("solo")))
    assert [tool.name for tool in tools] == ["solo"]
    assert tools[0].args_schema == _defn()["inputSchema"]


def test_folder_skips_non_json_files(tmp_path: Path) -> None:
    _write(tmp_path / "z.json", _defn("zeta"))
    _write(tmp_path / "a.json", _defn("alpha"))
    (tmp_path / "LICENSE").write_text("MIT", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("{not json", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub" / "ignored.json", _defn("ignored"))
    assert [tool.name for tool in load_catalog(tmp_path)] == ["alpha", "zeta"]


def test_load_definitions_returns_plain_dicts(tmp_path: Path) -> None:
    _write(tmp_path / "a.json", _defn("alpha", annotations={"readOnlyHint": True}))
    [defn] = load_definitions(tmp_path)
    assert defn["name"] == "alpha"
    assert defn["annotations"] == {"readOnlyHint": True}
    assert defn["inputSchema"] == _defn()["inputSchema"]


def test_duplicate_names_are_listed(tmp_path: Path) -> None:
    _write(tmp_path / "a.json", [_defn("dup"), _defn("other"), _defn("twice")])
    _write(tmp_path / "b.json", [_defn("dup"), _defn("twice")])
    with pytest.raises(ValueError, match="duplicate tool names") as excinfo:
        load_catalog(tmp_path)
    message = str(excinfo.value)
    assert "'dup'" in message
    assert "'twice'" in message
    assert "'other'" not in message
    assert "a.json[0]" in message
    assert "b.json[0]" in message


def test_bad_entry_in_a_list_names_file_and_index(tmp_path: Path) -> None:
    path = _write(tmp_path / "tools.json", [_defn("ok"), {"name": "", "inputSchema": {}}])
    with pytest.raises(ValueError, match=r"tools\.json\[1\]: missing or empty 'name'"):
        load_catalog(path)


def test_bad_schema_in_a_folder_names_the_file(tmp_path: Path) -> None:
    _write(tmp_path / "broken.json", {"name": "broken", "inputSchema": "nope"})
    with pytest.raises(ValueError, match=r"broken\.json: tool 'broken'"):
        load_catalog(tmp_path)


def test_invalid_json_empty_folder_and_missing_path(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: not valid JSON"):
        load_catalog(bad)

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "LICENSE").write_text("MIT", encoding="utf-8")
    with pytest.raises(ValueError, match=r"no \*\.json"):
        load_catalog(empty)

    with pytest.raises(FileNotFoundError):
        load_catalog(tmp_path / "missing")

    with pytest.raises(ValueError, match="not a tool catalog in any shape read"):
        load_catalog(_write(tmp_path / "number.json", 42))
