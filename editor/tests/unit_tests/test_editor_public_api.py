"""The editor's public surface: ``__all__`` is locked, every name imports, the version agrees."""

from __future__ import annotations

import sys
import tomllib

import langchain_toolsearch_editor
from tests.support.paths import REPO_ROOT

EXPECTED_ALL = [
    "ALL_TOOLS",
    "AUTH_TOKEN_KEY",
    "AgentToolConfig",
    "AgentToolEntry",
    "Condition",
    "HttpServer",
    "MCPClientConfig",
    "MCPClientRef",
    "ProviderToolInfo",
    "RecordNotFoundError",
    "ResolutionReport",
    "ResolvedTools",
    "RuleGroup",
    "SingleWriterWarning",
    "SourceRef",
    "StdioServer",
    "TimeoutUnitWarning",
    "ToolConfigError",
    "ToolConfigStore",
    "ToolDecision",
    "ToolEntry",
    "ToolProvider",
    "ToolResolver",
    "Variant",
    "VersionConflictError",
    "VersionSelector",
    "WriteLockError",
    "__version__",
    "evaluate_rules",
    "parse_agent_config",
    "parse_mcp_client",
    "parse_rules",
    "request_context",
]


def test_all_is_locked() -> None:
    assert langchain_toolsearch_editor.__all__ == EXPECTED_ALL
    for name in EXPECTED_ALL:
        assert hasattr(langchain_toolsearch_editor, name), name


def test_the_ui_exports_create_app_and_serve() -> None:
    import langchain_toolsearch_editor.ui as ui

    assert ui.__all__ == ["create_app", "serve"]


def test_every_other_module_is_private() -> None:
    package = REPO_ROOT / "editor" / "langchain_toolsearch_editor"
    public = sorted(
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if not path.name.startswith("_")
    )
    assert public == ["errors.py"]


def test_version_matches_pyproject_and_the_core_range() -> None:
    project = tomllib.loads((REPO_ROOT / "editor" / "pyproject.toml").read_text())["project"]
    assert langchain_toolsearch_editor.__version__ == project["version"]
    assert "langchain-toolsearch>=0.2,<0.3" in project["dependencies"]


def test_import_loads_no_pydantic() -> None:
    """``import langchain_toolsearch_editor`` is lazy: ``toolsearch config --help`` answers at once."""
    saved = {k: v for k, v in sys.modules.items() if k.startswith("langchain_toolsearch_editor")}
    try:
        for key in saved:
            del sys.modules[key]
        import langchain_toolsearch_editor as fresh

        assert not any(k.startswith("langchain_toolsearch_editor._") for k in sys.modules)
        assert fresh.ToolResolver.__module__ == "langchain_toolsearch_editor._resolver"
    finally:
        for key in [k for k in sys.modules if k.startswith("langchain_toolsearch_editor")]:
            del sys.modules[key]
        sys.modules.update(saved)
