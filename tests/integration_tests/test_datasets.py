"""`benchmarks.datasets`: loaders for the shared benchmark data."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from benchmarks import datasets
from benchmarks.datasets import (
    DATA_DIR_ENV,
    EvalQuery,
    ToolDef,
    bfcl_to_json_schema,
    default_data_dir,
    load_bfcl,
    load_github_mcp_tools,
    load_toolsdk,
    merge_libraries,
    package_slug,
    scale_library,
)

JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}


def _walk(schema: dict[str, Any]) -> list[dict[str, Any]]:
    out = [schema]
    for sub in schema.get("properties", {}).values():
        out.extend(_walk(sub))
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            out.extend(_walk(schema[key]))
    return out


# ------------------------------------------------------------------ default_data_dir


def test_default_data_dir_finds_the_shared_data() -> None:
    path = default_data_dir()
    assert (path / "bfcl").is_dir()
    assert (path / "github-mcp-server-tools").is_dir()
    assert path.is_absolute()


def test_env_var_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert default_data_dir() == tmp_path.resolve()


def test_env_var_pointing_nowhere_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=DATA_DIR_ENV):
        default_data_dir()


def test_cwd_then_repo_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = default_data_dir()
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)

    # cwd/../shared/data comes first
    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    assert default_data_dir() == (tmp_path / "shared" / "data").resolve()

    # else <repo>/../shared/data from the package's location
    monkeypatch.chdir(tmp_path)
    assert default_data_dir() == real

    # else a clear error
    monkeypatch.setattr(datasets, "__file__", str(tmp_path / "x" / "pkg" / "datasets.py"))
    with pytest.raises(FileNotFoundError, match=f"set {DATA_DIR_ENV}"):
        default_data_dir()


# ----------------------------------------------------------------------------- BFCL


def test_bfcl_counts_match_the_readme() -> None:
    tools, queries = load_bfcl()
    assert len(tools) == 1437
    assert len(queries) == 2501
    assert len({tool.name for tool in tools}) == 1437
    assert len({query.id for query in queries}) == 2501
    assert all(isinstance(tool, ToolDef) for tool in tools)
    assert all(isinstance(query, EvalQuery) for query in queries)


def test_bfcl_gold_names_are_in_the_library_and_deduplicated() -> None:
    tools, queries = load_bfcl()
    names = {tool.name for tool in tools}
    for query in queries:
        assert query.gold
        assert len(set(query.gold)) == len(query.gold)
        assert set(query.gold) <= names
        assert query.query.strip()
    by_id = {query.id: query for query in queries}
    # parallel_0's answer calls spotify.play twice: one gold tool
    assert by_id["parallel_0"].gold == ("spotify.play",)
    assert by_id["multiple_0"].gold == ("triangle_properties.get",)
    assert by_id["parallel_multiple_20"].gold == (
        "statistics.median",
        "statistics.variance",
        "statistics.mode",
    )
    assert sum(len(query.gold) > 1 for query in queries) == 207


def test_bfcl_query_is_the_user_messages_only() -> None:
    _, queries = load_bfcl()
    by_id = {query.id: query for query in queries}
    raw = {}
    path = default_data_dir() / "bfcl" / "BFCL_v4_live_multiple.json"
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["id"] == "live_multiple_1-0-1":
                raw = record
                break
    messages = [message for turn in raw["question"] for message in turn]
    assert [message["role"] for message in messages] == ["system", "user"]
    assert by_id["live_multiple_1-0-1"].query == messages[1]["content"]


def test_bfcl_schemas_are_json_schema() -> None:
    tools, _ = load_bfcl()
    for tool in tools:
        assert tool.parameters["type"] == "object", tool.name
        for node in _walk(tool.parameters):
            assert node.get("type", "string") in JSON_TYPES, (tool.name, node)
    triangle = next(tool for tool in tools if tool.name == "triangle_properties.get")
    assert triangle.parameters["required"] == ["side1", "side2", "side3"]
    assert triangle.parameters["properties"]["side1"]["type"] == "integer"


def test_bfcl_keeps_the_first_schema_seen() -> None:
    tools, _ = load_bfcl()
    weather = next(tool for tool in tools if tool.name == "get_current_weather")
    # 43 different schemas share this name; the first (BFCL_v4_live_multiple) wins.
    assert weather.parameters["properties"]["unit"]["enum"] == ["metric", "imperial"]
    assert tools[0].name == "ChaFod"  # first function of the first file


def test_bfcl_tools_bind() -> None:
    tools, _ = load_bfcl()
    for tool in tools[:200]:
        built = tool.to_tool()
        assert isinstance(built, StructuredTool)
        parameters = convert_to_openai_tool(built)["function"]["parameters"]
        assert parameters.get("required") == tool.parameters.get("required")


def test_bfcl_is_cached_but_returns_fresh_objects() -> None:
    tools, queries = load_bfcl()
    tools[0].parameters["properties"].clear()
    tools.clear()
    start = time.perf_counter()
    again, queries_again = load_bfcl()
    assert time.perf_counter() - start < 0.5
    assert len(again) == 1437
    assert again[0].parameters["properties"]
    assert queries_again == queries


def test_bfcl_type_mapping_is_recursive() -> None:
    schema = {
        "type": "dict",
        "properties": {
            "a": {"type": "float"},
            "b": {
                "type": "tuple",
                "items": {"type": "HashMap", "properties": {"c": {"type": "long"}}},
            },
            "d": {"type": "ArrayList", "items": {"type": "String"}},
            "e": {"type": "any", "description": "anything"},
            "f": {"type": "", "optional": True},
            "g": {"type": "Boolean"},
            "h": {"type": "double"},
            "i": {"type": "char"},
            "j": {"type": "Array", "items": {"type": "integer"}},
            "k": {"type": "dict", "additionalProperties": {"type": "float"}},
        },
        "required": ["a"],
    }
    assert bfcl_to_json_schema(schema) == {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {
                "type": "array",
                "items": {"type": "object", "properties": {"c": {"type": "integer"}}},
            },
            "d": {"type": "array", "items": {"type": "string"}},
            "e": {"description": "anything"},
            "f": {"optional": True},
            "g": {"type": "boolean"},
            "h": {"type": "number"},
            "i": {"type": "string"},
            "j": {"type": "array", "items": {"type": "integer"}},
            "k": {"type": "object", "additionalProperties": {"type": "number"}},
        },
        "required": ["a"],
    }
    assert schema["type"] == "dict"  # input untouched
    with pytest.raises(ValueError, match="unknown parameter type 'complex'"):
        bfcl_to_json_schema({"type": "dict", "properties": {"z": {"type": "complex"}}}, where="f")


def _jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


def _question(qid: str, text: str, *functions: str) -> dict[str, Any]:
    return {
        "id": qid,
        "question": [[{"role": "system", "content": "be nice"}, {"role": "user", "content": text}]],
        "function": [
            {
                "name": name,
                "description": f"does {name}",
                "parameters": {"type": "dict", "properties": {}},
            }
            for name in functions
        ],
    }


def test_bfcl_files_without_answers_give_tools_but_no_queries(tmp_path: Path) -> None:
    bfcl = tmp_path / "bfcl"
    (bfcl / "possible_answer").mkdir(parents=True)
    _jsonl(
        bfcl / "A.json", [_question("a_0", "first", "f1", "f2"), _question("a_1", "second", "f2")]
    )
    _jsonl(
        bfcl / "possible_answer" / "A.json",
        [
            {"id": "a_1", "ground_truth": [{"f2": {}}]},
            {"id": "a_0", "ground_truth": [{"f2": {}}, {"f1": {}}, {"f2": {}}]},
        ],
    )
    _jsonl(bfcl / "B.json", [_question("b_0", "unanswered", "f3", "f1")])
    (bfcl / "LICENSE").write_text("Apache-2.0", encoding="utf-8")

    tools, queries = load_bfcl(tmp_path)
    assert [tool.name for tool in tools] == ["f1", "f2", "f3"]
    assert tools[0].parameters == {"type": "object", "properties": {}}
    assert queries == [
        EvalQuery(id="a_0", query="first", gold=("f2", "f1")),
        EvalQuery(id="a_1", query="second", gold=("f2",)),
    ]


def test_bfcl_gold_outside_the_function_list_is_an_error(tmp_path: Path) -> None:
    bfcl = tmp_path / "bfcl"
    (bfcl / "possible_answer").mkdir(parents=True)
    _jsonl(bfcl / "A.json", [_question("a_0", "q", "f1")])
    _jsonl(bfcl / "possible_answer" / "A.json", [{"id": "a_0", "ground_truth": [{"nope": {}}]}])
    with pytest.raises(ValueError, match="'nope' is not in the question's function list"):
        load_bfcl(tmp_path)


# ---------------------------------------------------------------------- GitHub MCP


def test_github_mcp_tools() -> None:
    tools = load_github_mcp_tools()
    assert len(tools) == 117
    names = [tool.name for tool in tools]
    assert names == sorted(names)
    issue = next(tool for tool in tools if tool.name == "issue_read")
    assert issue.parameters["type"] == "object"
    assert "owner" in issue.parameters["required"]
    assert issue.to_tool().args_schema == issue.parameters


# ------------------------------------------------------------------------- ToolSDK


def test_toolsdk_names_are_unique_and_suffixed_only_for_repeats() -> None:
    tools = load_toolsdk()
    registry = json.loads(
        (default_data_dir() / "toolsdk-mcp-registry" / "packages-list.json").read_text("utf-8")
    )
    validated = {
        package: entry
        for package, entry in registry.items()
        if isinstance(entry, dict) and entry.get("validated") is True
    }
    expected = sum(len(entry.get("tools") or {}) for entry in validated.values())
    assert len(tools) == expected == 8010
    names = [tool.name for tool in tools]
    assert len(set(names)) == len(names)

    searches = [name for name in names if name == "search" or name.startswith("search__")]
    assert len(searches) == 22
    assert names.count("search") == 1
    slugs = {package_slug(package) for package in validated}
    assert all(name.split("__", 1)[1] in slugs for name in searches if name != "search")
    assert sum(tool.name != name for tool, name in zip(tools, names, strict=True)) == 0
    assert all(tool.parameters == {"type": "object", "properties": {}} for tool in tools)
    assert load_toolsdk() == tools  # deterministic


def test_toolsdk_suffix_rules(tmp_path: Path) -> None:
    folder = tmp_path / "toolsdk-mcp-registry"
    folder.mkdir()
    registry = {
        "zeta": {"validated": True, "tools": {"echo": {"name": "echo", "description": "z"}}},
        "@Alpha.io/Server": {
            "validated": True,
            "tools": {"echo": {"name": "echo"}, "add": {"name": "add", "description": "a"}},
        },
        "@other/skip": {"validated": False, "tools": {"echo": {"name": "echo"}}},
        "no-tools": {"validated": True},
        "alpha.io_server": {"validated": True, "tools": {"echo": {"name": "echo"}}},
        "alpha-io/server": {"validated": True, "tools": {"echo": {"name": "echo"}}},
    }
    (folder / "packages-list.json").write_text(json.dumps(registry), encoding="utf-8")
    tools = load_toolsdk(tmp_path)
    # sorted: "@Alpha.io/Server", "alpha-io/server", "alpha.io_server", "zeta";
    # the middle two share the slug "alpha-io_server"
    assert [tool.name for tool in tools] == [
        "echo",
        "add",
        "echo__alpha-io_server",
        "echo__alpha-io_server__2",
        "echo__zeta",
    ]
    assert tools[0].description == ""
    assert package_slug("@toolsdk.ai/aws-ses-mcp") == "toolsdk-ai_aws-ses-mcp"


# ------------------------------------------------------------------------- scaling


def test_scale_library() -> None:
    base = [ToolDef("a", "A", {"type": "object", "properties": {}}), ToolDef("b", "B", {})]
    scaled = scale_library(base, 7)
    assert [tool.name for tool in scaled] == ["a", "b", "a__r2", "b__r2", "a__r3", "b__r3", "a__r4"]
    assert scaled[2].description == "A"
    assert scaled[2].parameters is base[0].parameters
    assert scale_library(base, 1) == [base[0]]
    assert scale_library(base, 0) == []
    assert scale_library([], 0) == []
    with pytest.raises(ValueError, match="n must be >= 0"):
        scale_library(base, -1)
    with pytest.raises(ValueError, match="empty library"):
        scale_library([], 3)
    with pytest.raises(ValueError, match="unique tool names"):
        scale_library([base[0], base[0]], 3)
    with pytest.raises(ValueError, match="collides"):
        scale_library([ToolDef("a", "", {}), ToolDef("a__r2", "", {})], 3)


def test_scale_to_100k_with_distractors() -> None:
    bfcl, _ = load_bfcl()
    merged = merge_libraries(bfcl, load_toolsdk())
    assert merged[: len(bfcl)] == bfcl  # gold names untouched
    assert len({tool.name for tool in merged}) == len(merged)
    assert any(tool.name.endswith("__lib2") for tool in merged)
    big = scale_library(merged, 100_000)
    assert len(big) == 100_000
    assert len({tool.name for tool in big}) == 100_000
