"""Stored tool configuration: which tools an agent gets, per request.

A per-agent `AgentToolConfig` (JSON) and reusable saved MCP clients
(`MCPClientConfig`) are kept, versioned, in a LangGraph ``BaseStore`` by
`ToolConfigStore`. `ToolResolver` turns the config plus a request's
``RunnableConfig`` into a plain list of tools for ``ToolSearchMiddleware`` /
``ToolSearchNode`` (or for binding): code tools, registered tools, saved MCP
clients' tools, integration tools and `ToolProvider` tools, in that order,
with conditional variants and rules (`evaluate_rules`) on the request
context. ``from_mastra`` / ``to_mastra`` convert the seed system's (Mastra
Editor's) stored JSON; ``toolsearch config`` (`langchain_toolsearch.config.cli`)
edits a store from a shell. See ``docs/config.md`` for the format and the
semantics.
"""

from __future__ import annotations

# The Mastra conversions register themselves with the models' ``from_mastra`` /
# ``to_mastra`` (see ``mastra_hooks``) when imported: import them with the package.
from langchain_toolsearch.config import mastra as mastra
from langchain_toolsearch.config import mastra_rules as mastra_rules
from langchain_toolsearch.config.connections import bearer_token, connection_for
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
    RuleGroup,
    SourceRef,
    ToolEntry,
    Variant,
    VersionSelector,
)
from langchain_toolsearch.config.parsing import (
    ToolConfigError,
    parse_agent_config,
    parse_mcp_client,
    parse_rules,
)
from langchain_toolsearch.config.providers import ProviderToolInfo, ToolProvider
from langchain_toolsearch.config.records import (
    RecordInfo,
    RecordNotFoundError,
    VersionConflictError,
    VersionedRecords,
    VersionInfo,
)
from langchain_toolsearch.config.resolver import (
    MCPToolSource,
    Replacement,
    ResolvedTools,
    StoredConfigMode,
    ToolResolver,
    merge_conditional,
)
from langchain_toolsearch.config.rules import MISSING, evaluate_rules, lookup, request_context
from langchain_toolsearch.config.servers import HttpServer, MCPClientConfig, StdioServer
from langchain_toolsearch.config.store import ToolConfigStore
from langchain_toolsearch.config.write_guard import SingleWriterWarning, WriteLockError

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
