"""The public surface: ``__all__`` is locked, every name imports, ``py.typed`` ships,
and the version agrees with ``pyproject.toml`` and ``CHANGELOG.md``."""

from __future__ import annotations

import dataclasses
import importlib.resources
import inspect
import re
import tomllib
from pathlib import Path

import pytest

import langchain_toolsearch
from langchain_toolsearch.options import ToolSearchKwargs, ToolSearchOptions

EXPECTED_ALL = [
    "AgentToolConfig",
    "BM25ToolIndex",
    "BaseStoreLoadedToolStore",
    "FilterFn",
    "FilterPhase",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
    "SourceFailure",
    "StateStats",
    "StoreMissingError",
    "ToolConfigStore",
    "ToolIndex",
    "ToolLibrary",
    "ToolResolver",
    "ToolSearchAgentState",
    "ToolSearchConfigError",
    "ToolSearchError",
    "ToolSearchFilterArgs",
    "ToolSearchInput",
    "ToolSearchMiddleware",
    "ToolSearchNode",
    "ToolSearchResult",
    "ToolSearchState",
    "ToolSearchTypeError",
    "ToolSourceError",
    "__version__",
    "evaluate_rules",
]

ROOT = Path(__file__).resolve().parents[2]


def test_all_is_locked() -> None:
    assert langchain_toolsearch.__all__ == EXPECTED_ALL
    for name in EXPECTED_ALL:
        assert hasattr(langchain_toolsearch, name), name


def test_spec_names_import() -> None:
    from langchain_toolsearch import (  # noqa: F401
        ToolSearchFilterArgs,
        ToolSearchMiddleware,
        ToolSearchNode,
        ToolSearchResult,
    )

    assert isinstance(langchain_toolsearch.__version__, str)


def test_constructors_take_the_spec_options_keyword_only() -> None:
    spec = {
        "tools",
        "top_k",
        "min_score",
        "auto_load",
        "storage",
        "ttl",
        "filter",
        "include_resolved_tools",
    }
    defaults = {
        "top_k": 5,
        "min_score": 0.0,
        "auto_load": False,
        "storage": "in-memory",
        "ttl": None,  # explicit ttl is detectable: it raises with storage other than in-memory
        "filter": None,
        "include_resolved_tools": False,
    }
    option_fields = {f.name: f for f in dataclasses.fields(ToolSearchOptions)}
    assert spec <= set(option_fields)
    # the options besides tools are declared once, as a TypedDict the constructors unpack
    assert set(ToolSearchKwargs.__annotations__) == set(option_fields) - {"tools"}
    for name, value in defaults.items():
        assert option_fields[name].default == value, name
    for cls in (langchain_toolsearch.ToolSearchMiddleware, langchain_toolsearch.ToolSearchNode):
        params = inspect.signature(cls.__init__).parameters
        for name, param in params.items():
            if name != "self":
                assert param.kind in (
                    inspect.Parameter.KEYWORD_ONLY,
                    inspect.Parameter.VAR_KEYWORD,
                ), (cls, name)
        assert params["options"].annotation == "Unpack[ToolSearchKwargs]", cls
        with pytest.raises(
            TypeError, match=r"unknown option\(s\) \['topk'\]; its options are tools, top_k"
        ):
            cls(tools=[], topk=3)  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            cls([])  # type: ignore[misc]  # keyword-only
        assert cls(tools=[]).loaded_tool_store.ttl == 3600.0  # the in-memory default, seconds
        for method in (
            "search",
            "asearch",
            "clear_state",
            "clear_all_state",
            "get_state_stats",
            "cleanup_now",
        ):
            assert callable(getattr(cls, method)), (cls, method)


def test_py_typed_ships() -> None:
    marker = importlib.resources.files("langchain_toolsearch").joinpath("py.typed")
    assert marker.is_file()
    assert Path(str(marker)).parent == ROOT / "langchain_toolsearch"
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = config["tool"]["setuptools"]
    assert "py.typed" in setuptools["package-data"]["langchain_toolsearch"]
    assert "langchain_toolsearch*" in setuptools["packages"]["find"]["include"]


def test_version_matches_pyproject_and_changelog() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" in project and "version" not in project.get("dynamic", [])
    assert langchain_toolsearch.__version__ == project["version"]
    # the newest released entry of the changelog (after "Unreleased") is this version
    changelog = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d[^\]]*)\] - \d{4}-\d{2}-\d{2}$", changelog, flags=re.MULTILINE)
    assert releases, "CHANGELOG.md has no '## [x.y.z] - YYYY-MM-DD' entry"
    assert releases[0] == langchain_toolsearch.__version__, releases
