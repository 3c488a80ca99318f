"""The editor's metadata: its dependencies are what it imports; the web page is the [ui] extra.

The same AST scan as the core's ``test_packaging``, over ``langchain_toolsearch_editor``
with ``editor/pyproject.toml``.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from tests.support.paths import REPO_ROOT
from tests.support.source_tree import parse
from tests.unit_tests.test_packaging import _dist_name, _imports, _third_party

PACKAGE = REPO_ROOT / "editor" / "langchain_toolsearch_editor"
PYPROJECT = tomllib.loads((REPO_ROOT / "editor" / "pyproject.toml").read_text())
RUNTIME = {_dist_name(r) for r in PYPROJECT["project"]["dependencies"]}
EXTRAS = {
    extra: {_dist_name(r) for r in reqs}
    for extra, reqs in PYPROJECT["project"]["optional-dependencies"].items()
}
UI = PACKAGE / "ui"
"""The web page (`langchain_toolsearch_editor.ui`): a subpackage of the [ui] extra only. Its
modules import that extra at module level; no module outside it imports it at module level."""


def _scan(paths: list[Path]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    module_level: set[str] = set()
    lazy: set[str] = set()
    for path in paths:
        top, inner = _imports(parse(path))
        module_level |= top
        lazy |= inner
    deps = {"langchain_toolsearch_editor"}
    return _third_party(module_level - deps), _third_party(lazy - module_level - deps)


def _outside_ui() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if UI not in path.parents]


def test_the_ui_subpackage_imports_only_the_ui_extra_and_is_imported_lazily() -> None:
    module_level, lazy = _scan(sorted(UI.rglob("*.py")))
    declared = RUNTIME | EXTRAS["ui"] | {"langchain-toolsearch"}
    for module, dists in module_level.items():
        assert dists & declared, f"ui imports {module} at module level; add {dists} to [ui]"
    for module, dists in lazy.items():
        assert dists & RUNTIME.union(*EXTRAS.values()), f"{module}: in no extra"
    for path in _outside_ui():
        for node in parse(path).body:  # module level: nothing outside ui needs the [ui] extra
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("langchain_toolsearch_editor.ui"), path.name


def test_runtime_dependencies_are_exactly_the_module_level_imports() -> None:
    module_level, _ = _scan(_outside_ui())
    module_level.pop("langchain_toolsearch", None)  # the core: langchain-toolsearch
    for module, dists in module_level.items():
        assert dists & RUNTIME, f"{module} is imported at module level; declare {dists}"
    imported = set().union(*module_level.values()) | {"langchain-toolsearch"}
    assert imported >= RUNTIME, f"declared but never imported: {RUNTIME - imported}"


def test_lazy_imports_come_from_a_dependency_or_an_extra() -> None:
    _, lazy = _scan(_outside_ui())
    declared = RUNTIME.union(*EXTRAS.values())
    for module, dists in lazy.items():
        assert dists & declared, f"{module} is imported lazily but in no extra: {dists}"


def test_templates_and_static_files_ship() -> None:
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["langchain_toolsearch_editor"]
    assert {"py.typed", "ui/templates/*.html", "ui/static/*"} <= set(data)
    assert (PACKAGE / "py.typed").is_file() and list((UI / "templates").glob("*.html"))
