"""`langchain_toolsearch.catalog` on real data: the GitHub MCP server's 117 tool definitions.

Reads the shared data folder (``$TOOLSEARCH_SHARED_DATA`` or ``../shared/data``),
so it lives in the integration lane; tests/unit_tests/test_catalog.py covers the
loader on small inline definitions.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch.catalog import load_catalog
from tests.support.paths import SHARED_DATA

GITHUB_DIR = SHARED_DATA / "github-mcp-server-tools"


def _raw_github_definitions() -> dict[str, dict[str, Any]]:
    out = {}
    for file in GITHUB_DIR.glob("*.json"):
        defn = json.loads(file.read_text(encoding="utf-8"))
        out[defn["name"]] = defn
    return out


def test_github_folder_loads_117_tools_sorted_and_skips_license() -> None:
    assert (GITHUB_DIR / "LICENSE").exists()
    tools = load_catalog(GITHUB_DIR)

    assert len(tools) == 117
    names = [tool.name for tool in tools]
    assert names == sorted(names)
    assert len(set(names)) == 117
    assert all(isinstance(tool, BaseTool) for tool in tools)
    assert all(tool.metadata and tool.metadata["source"] == "catalog" for tool in tools)
    first = tools[0]
    assert first.metadata is not None
    assert first.metadata["catalog_entry"] == str(GITHUB_DIR / f"{first.name}.json")
    assert "annotations" in first.metadata


def test_github_schemas_survive_convert_to_openai_tool() -> None:
    raw = _raw_github_definitions()
    tools = load_catalog(GITHUB_DIR)
    with_required = 0
    for tool in tools:
        schema = raw[tool.name]["inputSchema"]
        function = convert_to_openai_tool(tool)["function"]
        assert function["name"] == tool.name
        assert function["description"] == raw[tool.name]["description"]
        parameters = function["parameters"]
        assert parameters.get("required") == schema.get("required"), tool.name
        assert parameters["properties"] == schema["properties"], tool.name
        assert parameters == schema, tool.name
        with_required += "required" in schema
    assert with_required > 100  # most GitHub tools have required arguments
