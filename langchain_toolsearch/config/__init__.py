"""Stored tool configuration: which tools an agent gets, per request.

A per-agent `AgentToolConfig` (JSON) and reusable saved MCP clients
(`MCPClientConfig`) are kept, versioned, in a LangGraph ``BaseStore`` by
`ToolConfigStore`. `ToolResolver` turns the config plus a request's
``RunnableConfig`` into a plain list of tools for ``ToolSearchMiddleware`` /
``ToolSearchNode`` (or for binding): code tools, registered tools, saved MCP
clients' tools, integration tools and `ToolProvider` tools, in that order,
with conditional variants and rules (`evaluate_rules`) on the request
context. ``from_mastra`` / ``to_mastra`` convert the seed system's (Mastra
Editor's) stored JSON; ``toolsearch config`` (`langchain_toolsearch.cli.config`)
edits a store from a shell. See ``docs/config.md`` for the format and the
semantics.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_toolsearch.config.explain import ResolutionReport, ToolDecision
    from langchain_toolsearch.config.models import (
        ALL_TOOLS,
        AUTH_TOKEN_KEY,
        CONDITION_OPERATORS,
        EXTENSION_OPERATORS,
        MASTRA_AUTH_TOKEN_KEY,
        SEED_OPERATORS,
        AgentToolConfig,
        AgentToolEntry,
        Condition,
        ConditionOperator,
        MCPClientRef,
        ProviderToolInfo,
        RuleGroup,
        SourceRef,
        ToolEntry,
        ToolProvider,
        Variant,
        VersionSelector,
        parse_agent_config,
    )
    from langchain_toolsearch.config.parsing import ToolConfigError
    from langchain_toolsearch.config.records import (
        RecordInfo,
        RecordNotFoundError,
        VersionConflictError,
        VersionedRecords,
        VersionInfo,
    )
    from langchain_toolsearch.config.resolver import StoredConfigMode, ToolResolver
    from langchain_toolsearch.config.rules import (
        MISSING,
        evaluate_rules,
        lookup,
        parse_rules,
        request_context,
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

_LAZY = {
    "ALL_TOOLS": "langchain_toolsearch.config.models",
    "AUTH_TOKEN_KEY": "langchain_toolsearch.config.models",
    "CONDITION_OPERATORS": "langchain_toolsearch.config.models",
    "EXTENSION_OPERATORS": "langchain_toolsearch.config.models",
    "MASTRA_AUTH_TOKEN_KEY": "langchain_toolsearch.config.models",
    "MISSING": "langchain_toolsearch.config.rules",
    "SEED_OPERATORS": "langchain_toolsearch.config.models",
    "AgentToolConfig": "langchain_toolsearch.config.models",
    "AgentToolEntry": "langchain_toolsearch.config.models",
    "Condition": "langchain_toolsearch.config.models",
    "ConditionOperator": "langchain_toolsearch.config.models",
    "HttpServer": "langchain_toolsearch.config.servers",
    "MCPClientConfig": "langchain_toolsearch.config.servers",
    "MCPClientRef": "langchain_toolsearch.config.models",
    "MCPToolSource": "langchain_toolsearch.config.sources",
    "ProviderToolInfo": "langchain_toolsearch.config.models",
    "RecordInfo": "langchain_toolsearch.config.records",
    "RecordNotFoundError": "langchain_toolsearch.config.records",
    "Replacement": "langchain_toolsearch.config.sources",
    "ResolutionReport": "langchain_toolsearch.config.explain",
    "ResolvedTools": "langchain_toolsearch.config.sources",
    "RuleGroup": "langchain_toolsearch.config.models",
    "SingleWriterWarning": "langchain_toolsearch.config.store",
    "SourceRef": "langchain_toolsearch.config.models",
    "StdioServer": "langchain_toolsearch.config.servers",
    "StoredConfigMode": "langchain_toolsearch.config.resolver",
    "TimeoutUnitWarning": "langchain_toolsearch.config.servers",
    "ToolConfigError": "langchain_toolsearch.config.parsing",
    "ToolConfigStore": "langchain_toolsearch.config.store",
    "ToolDecision": "langchain_toolsearch.config.explain",
    "ToolEntry": "langchain_toolsearch.config.models",
    "ToolProvider": "langchain_toolsearch.config.models",
    "ToolResolver": "langchain_toolsearch.config.resolver",
    "Variant": "langchain_toolsearch.config.models",
    "VersionConflictError": "langchain_toolsearch.config.records",
    "VersionInfo": "langchain_toolsearch.config.records",
    "VersionSelector": "langchain_toolsearch.config.models",
    "VersionedRecords": "langchain_toolsearch.config.records",
    "WriteLockError": "langchain_toolsearch.config.store",
    "bearer_token": "langchain_toolsearch.config.servers",
    "connection_for": "langchain_toolsearch.config.servers",
    "evaluate_rules": "langchain_toolsearch.config.rules",
    "lookup": "langchain_toolsearch.config.rules",
    "merge_conditional": "langchain_toolsearch.config.sources",
    "parse_agent_config": "langchain_toolsearch.config.models",
    "parse_mcp_client": "langchain_toolsearch.config.servers",
    "parse_rules": "langchain_toolsearch.config.rules",
    "request_context": "langchain_toolsearch.config.rules",
}
"""Exports imported on first use (PEP 562): the ``toolsearch`` parser imports
``config.cli_args`` without pydantic, LangChain or LangGraph. The Mastra
conversions register with the models when first needed (``mastra_hooks``)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
