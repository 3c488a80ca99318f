"""Two distributions, one direction: the core never imports the editor.

``langchain-toolsearch`` (``langchain_toolsearch/``) and ``langchain-toolsearch-editor``
(``editor/``): the editor depends on the core; the core finds the editor's commands
through the ``langchain_toolsearch.cli`` entry points only (`_cli.editor_command`).
"""

from __future__ import annotations

import ast
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from langchain_toolsearch import _cli
from tests.support.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "langchain_toolsearch"
EDITOR = "langchain_toolsearch_editor"


def _imported(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Constant) and str(node.value).startswith(EDITOR):
            names.add(str(node.value))  # importlib.import_module("...")
    return names


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_the_core_never_imports_the_editor(path: Path) -> None:
    imported = _imported(ast.parse(path.read_text(encoding="utf-8")))
    assert not {name for name in imported if name.split(".")[0] == EDITOR}, path


def test_the_editor_depends_on_this_core_line() -> None:
    import tomllib

    core = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    editor = tomllib.loads((REPO_ROOT / "editor" / "pyproject.toml").read_text())["project"]
    assert core["version"] == editor["version"] == "0.2.0"
    assert "langchain-toolsearch>=0.2,<0.3" in editor["dependencies"]
    points = editor["entry-points"][_cli.ENTRY_POINTS]
    assert set(points) == set(_cli.EDITOR_COMMANDS)


def _entry_points(found: list[EntryPoint]) -> Any:
    def entry_points(*, group: str, name: str) -> list[EntryPoint]:
        return [e for e in found if e.group == group and e.name == name]

    return entry_points


def test_config_without_the_editor_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("importlib.metadata.entry_points", _entry_points([]))
    for command in ("config", "ui"):
        assert _cli.main([command, "list"]) == 2
        err = capsys.readouterr().err
        assert "pip install langchain-toolsearch-editor" in err and "pip install ./editor" in err


def test_config_runs_the_editor_entry_point_with_its_command_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[str]] = []
    module = type(_cli)("fake_editor_cli")
    module.main = lambda argv: calls.append(list(argv)) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "fake_editor_cli", module)
    point = EntryPoint("config", "fake_editor_cli:main", _cli.ENTRY_POINTS)
    monkeypatch.setattr("importlib.metadata.entry_points", _entry_points([point]))
    assert _cli.main(["config", "--store", "s.sqlite", "list"]) == 0
    assert calls == [["config", "--store", "s.sqlite", "list"]]


def test_help_lists_the_editor_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _cli.main(["--help"])
    out = capsys.readouterr().out
    assert "config" in out and "ui" in out and "langchain-toolsearch-editor" in out
