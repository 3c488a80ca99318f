"""Stored tool configuration: which tools an agent gets, per request (``docs/config.md``).

`ToolConfigStore` keeps versioned `AgentToolConfig` and `MCPClientConfig` records in a
LangGraph ``BaseStore``; `ToolResolver` turns a config and a request's ``RunnableConfig``
into tools (code, registered, saved MCP clients', integrations', `ToolProvider`), with
conditional variants and rules (`evaluate_rules`). ``from_mastra`` / ``to_mastra``
convert Mastra Editor's stored JSON; ``toolsearch config`` edits a store from a shell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_toolsearch._support import lazy_exports

if TYPE_CHECKING:
    from langchain_toolsearch.config.explain import ResolutionReport, ToolDecision
    from langchain_toolsearch.config.models import (
        ALL_TOOLS,
        AUTH_TOKEN_KEY,
        MASTRA_AUTH_TOKEN_KEY,
        AgentToolConfig,
        AgentToolEntry,
        MCPClientRef,
        ProviderToolInfo,
        RecordInfo,
        RecordNotFoundError,
        SourceRef,
        ToolEntry,
        ToolProvider,
        Variant,
        VersionConflictError,
        VersionInfo,
        VersionSelector,
        parse_agent_config,
    )
    from langchain_toolsearch.config.parsing import (
        MISSING,
        ToolConfigError,
        lookup,
        request_context,
    )
    from langchain_toolsearch.config.records import VersionedRecords
    from langchain_toolsearch.config.resolver import StoredConfigMode, ToolResolver
    from langchain_toolsearch.config.rules import (
        CONDITION_OPERATORS,
        EXTENSION_OPERATORS,
        SEED_OPERATORS,
        Condition,
        ConditionOperator,
        RuleGroup,
        evaluate_rules,
        parse_rules,
    )
    from langchain_toolsearch.config.servers import (
        HttpServer,
        MCPClientConfig,
        StdioServer,
        TimeoutUnitWarning,
        bearer_token,
        connection_for,
        parse_mcp_client,
    )
    from langchain_toolsearch.config.sources import (
        MCPToolSource,
        Replacement,
        ResolvedTools,
        merge_conditional,
    )
    from langchain_toolsearch.config.store import (
        SingleWriterWarning,
        ToolConfigStore,
        WriteLockError,
    )

_MODULES = {
    "explain": "ResolutionReport ToolDecision",
    "models": (
        "ALL_TOOLS AUTH_TOKEN_KEY AgentToolConfig AgentToolEntry MASTRA_AUTH_TOKEN_KEY "
        "MCPClientRef ProviderToolInfo RecordInfo RecordNotFoundError SourceRef ToolEntry "
        "ToolProvider Variant VersionConflictError VersionInfo VersionSelector parse_agent_config"
    ),
    "parsing": "MISSING ToolConfigError lookup request_context",
    "records": "VersionedRecords",
    "resolver": "StoredConfigMode ToolResolver",
    "rules": (
        "CONDITION_OPERATORS EXTENSION_OPERATORS SEED_OPERATORS Condition ConditionOperator "
        "RuleGroup evaluate_rules parse_rules"
    ),
    "servers": (
        "HttpServer MCPClientConfig StdioServer TimeoutUnitWarning bearer_token "
        "connection_for parse_mcp_client"
    ),
    "sources": "MCPToolSource Replacement ResolvedTools merge_conditional",
    "store": "SingleWriterWarning ToolConfigStore WriteLockError",
}
"""Module -> its public names, imported on first use (``toolsearch --help`` loads no pydantic)."""
_LAZY = {
    name: f"{__name__}.{module}" for module, names in _MODULES.items() for name in names.split()
}
__getattr__, __dir__ = lazy_exports(globals(), _LAZY)
__all__ = [
    "ALL_TOOLS",
    "AUTH_TOKEN_KEY",
    "CONDITION_OPERATORS",
    "EXTENSION_OPERATORS",
    "MASTRA_AUTH_TOKEN_KEY",
    "MISSING",
    "SEED_OPERATORS",
    "AgentToolConfig",
    "AgentToolEntry",
    "Condition",
    "ConditionOperator",
    "HttpServer",
    "MCPClientConfig",
    "MCPClientRef",
    "MCPToolSource",
    "ProviderToolInfo",
    "RecordInfo",
    "RecordNotFoundError",
    "Replacement",
    "ResolutionReport",
    "ResolvedTools",
    "RuleGroup",
    "SingleWriterWarning",
    "SourceRef",
    "StdioServer",
    "StoredConfigMode",
    "TimeoutUnitWarning",
    "ToolConfigError",
    "ToolConfigStore",
    "ToolDecision",
    "ToolEntry",
    "ToolProvider",
    "ToolResolver",
    "Variant",
    "VersionConflictError",
    "VersionInfo",
    "VersionSelector",
    "VersionedRecords",
    "WriteLockError",
    "bearer_token",
    "connection_for",
    "evaluate_rules",
    "lookup",
    "merge_conditional",
    "parse_agent_config",
    "parse_mcp_client",
    "parse_rules",
    "request_context",
]
