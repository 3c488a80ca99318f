"""BM25 tool search for LangGraph / LangChain agents.

The model gets ``search_tools`` and ``load_tool``; only loaded tools reach
the prompt. Use :class:`ToolSearchMiddleware` with ``create_agent`` or
:class:`ToolSearchNode` in a hand-built ``StateGraph``.

Errors: developer mistakes raise at construction (``ValueError`` for bad
values, duplicate or reserved names, unknown storage; ``TypeError`` for
wrong kinds of objects). Model mistakes never raise: they come back as
error ``ToolMessage`` objects and the run goes on.
"""

from __future__ import annotations

from langchain_toolsearch.config import (
    AgentToolConfig,
    ToolConfigStore,
    ToolResolver,
    evaluate_rules,
)
from langchain_toolsearch.core import ToolSearchCore
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.middleware import ToolSearchAgentState, ToolSearchMiddleware
from langchain_toolsearch.node import ToolSearchNode, ToolSearchState
from langchain_toolsearch.search.index import BM25ToolIndex, ToolIndex
from langchain_toolsearch.state import InMemoryLoadedToolStore, LoadedToolStore
from langchain_toolsearch.types import StateStats, ToolSearchFilterArgs, ToolSearchResult

__version__ = "0.1.0"

__all__ = [
    "AgentToolConfig",
    "BM25ToolIndex",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
    "StateStats",
    "ToolConfigStore",
    "ToolIndex",
    "ToolLibrary",
    "ToolResolver",
    "ToolSearchAgentState",
    "ToolSearchCore",
    "ToolSearchFilterArgs",
    "ToolSearchMiddleware",
    "ToolSearchNode",
    "ToolSearchResult",
    "ToolSearchState",
    "__version__",
    "evaluate_rules",
]
