"""``toolsearch config resolve --registry``: what a context gets and why, in process; and
the ``toolsearch`` parser builds without pydantic, LangChain or LangGraph."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from editor.tests.unit_tests.config.test_config_cli import PRO, Cli

REGISTRY_MODULE = '''
from langchain_core.tools import tool

@tool
def send_email(to: str) -> str:
    """Send an email."""
    return to

@tool
def search(q: str) -> str:
    """Search."""
    return q

REGISTRY = {"send_email": send_email, "search": search}

def make():
    return [send_email, search]
'''

AGENT = {"tools": [{"value": {"search": {}}}, {"value": {"send_email": {}}, "rules": PRO}]}


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    (tmp_path / "r32_registry.py").write_text(REGISTRY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    runner = Cli(str(tmp_path / "configs.sqlite"), capsys, tmp_path)
    assert runner("import", runner.file({"agents": {"a": AGENT}}), "--publish")[0] == 0
    return runner


@pytest.mark.parametrize("spec", ["r32_registry:REGISTRY", "r32_registry:make"])
def test_registry_tools_resolve_and_rules_explain_each(cli: Cli, spec: str) -> None:
    free = cli.json("resolve", "a", "--registry", spec, "--context", '{"plan": "free"}')
    assert [t["name"] for t in free["tools"]] == ["search"] and free["failures"] == {}
    (email,) = [t for t in free["excluded"] if t["name"] == "send_email"]
    assert email["rule_path"] == "tools[1].rules" and email["rule"] == 'plan equals "pro"'
    pro = cli.json("resolve", "a", "--registry", spec, "--context", '{"plan": "pro"}')
    assert [t["name"] for t in pro["tools"]] == ["search", "send_email"]
    assert pro["total_tokens"] == sum(t["tokens"] for t in pro["tools"]) > 0


def test_without_a_registry_the_tools_are_failures_once(cli: Cli) -> None:
    code, out, err = cli("resolve", "a", "--context", '{"plan": "pro"}', "--table")
    assert code == 0 and err == ""
    assert "tools.send_email" in out and "--registry" in out


def test_table_lists_in_and_out_with_the_rule(cli: Cli) -> None:
    code, out, err = cli(
        "resolve", "a", "--registry", "r32_registry:REGISTRY", "--context", "{}", "--table"
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("agent a (version 1): 1 tool, ~")
    assert any(line.startswith("in ") and "search" in line for line in lines)
    assert any(
        line.startswith("out") and "send_email" in line and "did not match" in line
        for line in lines
    )


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("nocolon", "expected MODULE:ATTRIBUTE"),
        ("r32_no_such_module:X", "cannot import 'r32_no_such_module'"),
        ("r32_registry:NOPE", "has no 'NOPE'"),
        ("r32_registry:__name__", "expected a dict id -> tool"),
    ],
)
def test_bad_registry_is_one_clear_line(cli: Cli, spec: str, says: str) -> None:
    code, out, err = cli("resolve", "a", "--registry", spec)
    assert (code, out) == (1, "") and says in err and len(err.splitlines()) == 1, err


def test_building_the_parser_imports_no_heavy_module() -> None:
    heavy = ("pydantic", "langchain_core", "langgraph", "langchain")
    saved = {
        k: v
        for k, v in sys.modules.items()
        if k.split(".")[0] in (*heavy, "langchain_toolsearch", "langchain_toolsearch_editor")
    }
    try:
        for key in saved:
            del sys.modules[key]
        from langchain_toolsearch_editor._cli import build_parser

        build_parser()
        loaded = sorted(k for k in sys.modules if k.split(".")[0] in heavy)
        assert loaded == [], loaded
    finally:
        for key in [
            k
            for k in sys.modules
            if k.split(".")[0] in (*heavy, "langchain_toolsearch", "langchain_toolsearch_editor")
        ]:
            del sys.modules[key]
        sys.modules.update(saved)
