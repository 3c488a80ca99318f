"""``load_catalog`` on small inline files of each shape it reads, and the message for a
file that fits none (langchain_toolsearch/catalog.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch.catalog import load_catalog, load_definitions, tool_from_definition

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _bound(tool: Any) -> dict[str, Any]:
    function: dict[str, Any] = convert_to_openai_tool(tool)["function"]
    return function


def test_openai_tool_list(tmp_path: Path) -> None:
    data = [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": "Weather.", "parameters": SCHEMA},
        },
        {"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}},
    ]
    tools = load_catalog(_write(tmp_path / "openai.json", data))
    assert [tool.name for tool in tools] == ["get_weather", "ping"]
    weather = _bound(tools[0])
    assert weather["description"] == "Weather."
    assert weather["parameters"] == SCHEMA
    assert tools[1].args == {}


def test_bare_openai_functions_and_anthropic_tools(tmp_path: Path) -> None:
    bare = [{"name": "get_weather", "description": "Weather.", "parameters": SCHEMA}]
    anthropic = [{"name": "get_time", "description": "Time.", "input_schema": SCHEMA}]
    [weather] = load_catalog(_write(tmp_path / "functions.json", bare))
    [clock] = load_catalog(_write(tmp_path / "anthropic.json", anthropic))
    assert _bound(weather)["parameters"] == SCHEMA
    assert _bound(clock)["parameters"] == SCHEMA
    assert clock.description == "Time."
    assert clock.metadata is not None
    assert "input_schema" not in clock.metadata


def test_tool_from_definition_reads_openai_and_anthropic() -> None:
    openai = {"type": "function", "function": {"name": "a", "parameters": SCHEMA}}
    assert tool_from_definition(openai).args_schema == SCHEMA
    assert tool_from_definition({"name": "b", "input_schema": SCHEMA}).args_schema == SCHEMA


def test_json_rpc_tools_list_response(tmp_path: Path) -> None:
    data = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x", "inputSchema": SCHEMA}]}}
    assert [tool.name for tool in load_catalog(_write(tmp_path / "rpc.json", data))] == ["x"]


def test_registry_of_servers_with_tools_mapping(tmp_path: Path) -> None:
    data = {
        "@acme/mail": {"validated": True, "tools": {"send": {"name": "send", "description": "A"}}},
        "@zeta/mail": {"tools": {"send": {"name": "send", "description": "B"}}},
        "@other/files": {"tools": {"read": {"description": "Read a file."}}},
        "@no/tools": {"category": "x"},
    }
    tools = load_catalog(_write(tmp_path / "registry.json", data))
    by_name = {tool.name: tool for tool in tools}
    assert sorted(by_name) == ["read", "send", "send__zeta_mail"]
    assert by_name["send"].description == "A"
    assert by_name["send__zeta_mail"].description == "B"
    assert by_name["read"].description == "Read a file."
    assert by_name["read"].args == {}
    meta = by_name["send__zeta_mail"].metadata
    assert meta is not None
    assert meta["server"] == "@zeta/mail"
    assert "@zeta/mail" in meta["catalog_entry"]


def test_registry_as_list_of_servers_under_servers_key(tmp_path: Path) -> None:
    data = {
        "servers": [
            {"name": "weather", "tools": [{"name": "forecast", "inputSchema": SCHEMA}]},
            {"name": "clock", "tools": [{"name": "now", "input_schema": {"type": "object"}}]},
        ]
    }
    [forecast, now] = load_definitions(_write(tmp_path / "servers.json", data))
    assert forecast["name"] == "forecast"
    assert forecast["inputSchema"] == SCHEMA
    assert forecast["server"] == "weather"
    assert now["name"] == "now"
    assert now["server"] == "clock"


def test_registry_with_no_tools_says_so(tmp_path: Path) -> None:
    data = {"@a/b": {"tools": {}}, "@c/d": {"category": "x"}}
    with pytest.raises(ValueError, match="no server lists any tool"):
        load_catalog(_write(tmp_path / "empty.json", data))


def test_a_file_in_no_shape_names_the_shapes_and_the_difference(tmp_path: Path) -> None:
    data = {"@a/b": {"category": "x", "path": "a.json"}}
    with pytest.raises(ValueError) as excinfo:
        load_catalog(_write(tmp_path / "odd.json", data))
    message = str(excinfo.value)
    assert "missing or empty 'name'" not in message
    for shape in ("mcp", "mcp-tools-list", "openai", "anthropic", "registry"):
        assert f"{shape}:" in message
    assert "'@a/b'" in message
    assert "'category'" in message


def test_a_list_of_unknown_objects_names_the_shapes(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a tool catalog in any shape read"):
        load_catalog(_write(tmp_path / "odd.json", [{"title": "x"}]))


def test_a_bad_entry_in_an_openai_list_names_its_index(tmp_path: Path) -> None:
    data = [
        {"type": "function", "function": {"name": "ok", "parameters": SCHEMA}},
        {"type": "function", "function": {"name": "bad", "parameters": {"type": "array"}}},
    ]
    with pytest.raises(ValueError, match=r"openai\.json\[1\]: tool 'bad'.*must describe an object"):
        load_catalog(_write(tmp_path / "openai.json", data))
