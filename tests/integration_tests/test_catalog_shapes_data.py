"""``load_catalog`` on the shared data's files in their published shapes: the ToolSDK
registry (servers with tools), BFCL functions (OpenAI bare functions) and the
validation set's tools.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_toolsearch.catalog import load_catalog
from tests.support.paths import SHARED_DATA

REGISTRY = SHARED_DATA / "toolsdk-mcp-registry" / "packages-list.json"


def test_toolsdk_registry_loads_every_listed_tool_with_unique_names() -> None:
    raw = json.loads(REGISTRY.read_text(encoding="utf-8"))
    listed = [
        (package, tool)
        for package, entry in raw.items()
        for tool in (entry.get("tools") or {}).values()
    ]
    tools = load_catalog(REGISTRY)
    assert len(tools) == len(listed) > 7000
    names = [tool.name for tool in tools]
    assert len(set(names)) == len(names)
    published = {tool["name"] for _, tool in listed}
    renamed = [name for name in names if name not in published]
    assert renamed
    assert all("__" in name for name in renamed)
    by_name = {tool.name: tool for tool in tools}
    send = by_name["send-email"]
    assert send.metadata is not None
    assert send.metadata["server"] in raw
    assert send.description == raw[send.metadata["server"]]["tools"]["send-email"]["description"]


def test_bfcl_functions_are_read_as_openai_and_their_dict_type_is_named(tmp_path: Path) -> None:
    # BFCL rows are JSON Lines; one row's "function" list is a bare OpenAI function
    # list whose parameters use BFCL's own type names ("dict", not "object").
    line = (SHARED_DATA / "bfcl" / "BFCL_v4_simple_python.json").read_text().splitlines()[0]
    functions = json.loads(line)["function"]
    target = tmp_path / "functions.json"
    target.write_text(json.dumps(functions), encoding="utf-8")
    name = functions[0]["name"]
    with pytest.raises(ValueError, match=rf"\[0\]: tool '{name}'.*got type 'dict'"):
        load_catalog(target)


def test_validation_tools_json_loads_as_bare_functions() -> None:
    path = SHARED_DATA / "restbench-toolalpaca" / "tools.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    tools = load_catalog(path)
    assert sorted(tool.name for tool in tools) == sorted(t["name"] for t in raw)
    first = next(t for t in raw if t["parameters"].get("properties"))
    tool = next(t for t in tools if t.name == first["name"])
    assert set(tool.args) == set(first["parameters"]["properties"])
    assert tool.metadata is not None
    assert tool.metadata["api"] == first["api"]
