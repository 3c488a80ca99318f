"""Stored tool configuration for langchain-toolsearch: which tools an agent gets, per request.

`ToolConfigStore` keeps versioned `AgentToolConfig` and `MCPClientConfig` records in a
LangGraph ``BaseStore``; `ToolResolver` turns a config and a request's ``RunnableConfig``
into tools (code, registered, saved MCP clients', integrations', `ToolProvider`), with
conditional variants and rules (`evaluate_rules`); pass it as the middleware's
``resolve_tools``. ``from_mastra`` / ``to_mastra`` convert Mastra Editor's stored JSON;
``toolsearch config`` edits a store from a shell, ``toolsearch ui`` serves a web page
(`langchain_toolsearch_editor.ui`, extra ``[ui]``). Errors: `langchain_toolsearch_editor.errors`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_toolsearch_editor._explain import ResolutionReport, ToolDecision
    from langchain_toolsearch_editor._models import (
        ALL_TOOLS,
        AUTH_TOKEN_KEY,
        AgentToolConfig,
        AgentToolEntry,
        MCPClientRef,
        ProviderToolInfo,
        SourceRef,
        ToolEntry,
        ToolProvider,
        Variant,
        VersionSelector,
        parse_agent_config,
    )
    from langchain_toolsearch_editor._parsing import request_context
    from langchain_toolsearch_editor._resolver import ToolResolver
    from langchain_toolsearch_editor._rules import Condition, RuleGroup, evaluate_rules, parse_rules
    from langchain_toolsearch_editor._servers import (
        HttpServer,
        MCPClientConfig,
        StdioServer,
        parse_mcp_client,
    )
    from langchain_toolsearch_editor._sources import ResolvedTools
    from langchain_toolsearch_editor._store import ToolConfigStore
    from langchain_toolsearch_editor.errors import (
        RecordNotFoundError,
        SingleWriterWarning,
        TimeoutUnitWarning,
        ToolConfigError,
        VersionConflictError,
        WriteLockError,
    )

_HOMES = (
    "_models",
    "_rules",
    "_servers",
    "_parsing",
    "_sources",
    "_explain",
    "_resolver",
    "_store",
)
"""The modules the public names live in (`errors` holds the rest)."""


def __getattr__(name: str) -> Any:
    """A public name, imported on first use (``toolsearch config --help`` loads no pydantic)."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for home in (*_HOMES, "errors"):
        module = importlib.import_module(f"{__name__}.{home}")
        if hasattr(module, name):
            value = globals()[name] = getattr(module, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__version__ = "0.2.0"

__all__ = [
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
