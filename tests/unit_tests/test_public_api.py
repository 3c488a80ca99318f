"""The public surface: ``__all__`` is locked, every name imports, ``py.typed`` ships,
and the version agrees with ``pyproject.toml`` and ``CHANGELOG.md``."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.resources
import inspect
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

import langchain_toolsearch
from langchain_toolsearch._options import ToolSearchOptions
from langchain_toolsearch.errors import ToolSearchTypeError

EXPECTED_ALL = [
    "BM25ToolIndex",
    "LoadedToolStore",
    "ToolIndex",
    "ToolLibrary",
    "ToolSearchConfigError",
    "ToolSearchError",
    "ToolSearchFilterArgs",
    "ToolSearchInput",
    "ToolSearchMiddleware",
    "ToolSearchNode",
    "ToolSearchResult",
    "ToolSearchState",
    "ToolSourceError",
]

ROOT = Path(__file__).resolve().parents[2]


def test_all_is_locked() -> None:
    assert langchain_toolsearch.__all__ == EXPECTED_ALL
    assert len(EXPECTED_ALL) <= 15
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
    for cls in (langchain_toolsearch.ToolSearchMiddleware, langchain_toolsearch.ToolSearchNode):
        shown = inspect.signature(cls).parameters  # what help() and IDEs show
        assert spec <= set(shown)
        for name, value in defaults.items():
            assert shown[name].default == value, (cls, name)
        params = inspect.signature(cls.__init__).parameters
        for name, param in params.items():
            if name != "self":
                assert param.kind is inspect.Parameter.KEYWORD_ONLY, (cls, name)
        # a misspelled option is named with the closest one (still a TypeError)
        with pytest.raises(ToolSearchTypeError, match="'topk'; did you mean 'top_k'"):
            cls(tools=[], topk=3)  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="'inject_catalogue'; did you mean 'inject_catalog'"):
            cls(tools=[], inject_catalogue=True)  # type: ignore[call-arg]
        with pytest.raises(
            ToolSearchTypeError, match=r"; options: tools, .*top_k, min_score, .*, name$"
        ):
            cls(tools=[], zzzzzz=1)  # type: ignore[call-arg]
        with pytest.raises(
            ToolSearchTypeError, match=r"keyword arguments only: .*\(tools=\[\.\.\.\]"
        ):
            cls([])  # type: ignore[misc]  # keyword-only
        assert cls(tools=[]).loaded_tool_store.ttl == 3600.0  # the in-memory default, seconds


@pytest.mark.parametrize(
    "cls", [langchain_toolsearch.ToolSearchMiddleware, langchain_toolsearch.ToolSearchNode]
)
def test_the_public_helpers_answer_on_a_fresh_instance(cls: Any) -> None:
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city"""
        return city

    ts = cls(tools=[get_weather])
    assert [hit.name for hit in ts.search("weather in a city")] == ["get_weather"]
    assert [hit.name for hit in asyncio.run(ts.asearch("weather in a city"))] == ["get_weather"]
    config = {"configurable": {"thread_id": "t1"}}
    ts.loaded_tool_store.add("t1", ["get_weather"])
    ts.loaded_tool_store.add("t2", ["get_weather"])
    assert ts.get_loaded_tools(config) == ["get_weather"]
    assert ts.get_state_stats().thread_count == 2
    ts.clear_state("t1")
    assert ts.get_loaded_tools(config) == []
    assert ts.get_state_stats().thread_count == 1
    assert ts.cleanup_now() == 0  # nothing idle past the TTL yet
    ts.clear_all_state()
    assert ts.get_state_stats().thread_count == 0


SHELL_ONLY = ("bound_tools", "name")
"""Constructor parameters that are not engine options: the node's direct tools, the name."""


def test_options_are_declared_once() -> None:
    """Both shells show one keyword-only signature, ``ToolSearchBase.__init__``.

    Each option has its default and its ``Args:`` entry there; the validated
    ``ToolSearchOptions`` has the same fields (the shell-only parameters aside), with the
    same types and no default of its own.
    """
    from langchain_toolsearch._shell import ToolSearchBase

    shared = inspect.signature(ToolSearchBase.__init__)
    doc = inspect.getdoc(ToolSearchBase.__init__) or ""
    params = dict(shared.parameters)
    params.pop("self")
    for cls in (langchain_toolsearch.ToolSearchMiddleware, langchain_toolsearch.ToolSearchNode):
        assert "__init__" not in vars(cls), f"{cls.__name__} declares no options of its own"
        assert list(inspect.signature(cls).parameters) == list(params)
    for name, param in params.items():
        assert param.kind is inspect.Parameter.KEYWORD_ONLY, name
        assert param.default is not inspect.Parameter.empty, name
        assert re.search(rf"^\s+{name}: ", doc, re.M), f"__init__ documents {name}"
    assert "Raises:" in doc
    option_fields = {f.name: f for f in dataclasses.fields(ToolSearchOptions)}
    assert list(option_fields) == [n for n in params if n not in SHELL_ONLY]
    for name, field in option_fields.items():
        assert field.type == params[name].annotation, (name, field.type)
        assert field.default is dataclasses.MISSING, f"{name}'s default is on __init__ only"


def test_bound_tools_is_the_node_option() -> None:
    from langchain_core.tools import tool

    from langchain_toolsearch.errors import ToolSearchTypeError

    @tool
    def get_time() -> str:
        """Get the current time"""
        return "12:00"

    node = langchain_toolsearch.ToolSearchNode(tools=[], bound_tools=[get_time])
    assert node.bound_tools == [get_time]
    with pytest.raises(ToolSearchTypeError, match=r"create_agent\(tools=\[\.\.\.\]\)"):
        langchain_toolsearch.ToolSearchMiddleware(tools=[], bound_tools=[get_time])


def test_constructors_pass_every_option_through() -> None:
    """A non-default value of each simple option reaches the validated options."""
    values = {
        "top_k": 7,
        "min_score": 0.25,
        "auto_load": True,
        "system_hint": False,
        "filter_timeout": 2.5,
        "resolve_timeout": 4.0,
        "ttl": 60.0,
    }
    for cls in (langchain_toolsearch.ToolSearchMiddleware, langchain_toolsearch.ToolSearchNode):
        built = cls(tools=[], **values)
        for name, value in values.items():
            assert getattr(built.options, name) == value, (cls, name)


def test_middleware_name_is_settable_and_checked() -> None:
    from langchain_toolsearch import ToolSearchError

    assert langchain_toolsearch.ToolSearchMiddleware(tools=[]).name == "ToolSearchMiddleware"
    assert langchain_toolsearch.ToolSearchMiddleware(tools=[], name="search_b").name == "search_b"
    assert langchain_toolsearch.ToolSearchNode(tools=[], name="ts").name == "ts"
    for cls in (langchain_toolsearch.ToolSearchMiddleware, langchain_toolsearch.ToolSearchNode):
        with pytest.raises(ToolSearchError, match="name must be a non-empty string"):
            cls(tools=[], name="")


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


def test_import_loads_only_what_the_core_needs() -> None:
    """``import langchain_toolsearch`` loads nothing but its errors; the rest on first use."""
    import importlib
    import sys

    ours = ("langchain_toolsearch", "langchain_toolsearch_editor")
    saved = {k: v for k, v in sys.modules.items() if k.split(".")[0] in ours}
    try:
        for key in saved:
            del sys.modules[key]
        fresh = importlib.import_module("langchain_toolsearch")
        loaded = {k for k in sys.modules if k.split(".")[0] in ours}
        # the package's import loads its error tree only; each export is imported on first use
        assert loaded == {"langchain_toolsearch", "langchain_toolsearch.errors"}, sorted(loaded)
        assert fresh.ToolSearchMiddleware.__module__ == "langchain_toolsearch.middleware"
        for lazy in (
            "langchain_toolsearch_editor",
            "langchain_toolsearch.mcp",
            "langchain_toolsearch.search._hybrid",
        ):
            assert lazy not in sys.modules, lazy
        assert fresh.ToolSearchNode.__module__ == "langchain_toolsearch.node"  # on first use
        assert "ToolLibrary" in dir(fresh)
        with pytest.raises(AttributeError, match="no attribute 'Nope'"):
            fresh.Nope  # noqa: B018
    finally:
        for key in [k for k in sys.modules if k.split(".")[0] in ours]:
            del sys.modules[key]
        sys.modules.update(saved)
