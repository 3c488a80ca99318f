"""BM25 tool search for LangGraph / LangChain agents.

The model gets ``search_tools`` and ``load_tool``; only loaded tools reach
the prompt. Use :class:`ToolSearchMiddleware` with ``create_agent`` or
:class:`ToolSearchNode` in a hand-built ``StateGraph``.

Errors: developer mistakes raise at construction, as subclasses of
:class:`ToolSearchError` (see :mod:`langchain_toolsearch.errors`; they are
also ``ValueError`` / ``TypeError``). Model mistakes never raise: they come
back as error ``ToolMessage`` objects and the run goes on.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchConfigError,
    ToolSearchError,
    ToolSearchTypeError,
    ToolSourceError,
)
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.middleware import ToolSearchAgentState, ToolSearchMiddleware
from langchain_toolsearch.node import ToolSearchInput, ToolSearchNode, ToolSearchState
from langchain_toolsearch.policy import FilterFn
from langchain_toolsearch.search.index import BM25ToolIndex, ToolIndex
from langchain_toolsearch.storage import (
    BaseStoreLoadedToolStore,
    InMemoryLoadedToolStore,
    LoadedToolStore,
)
from langchain_toolsearch.types import (
    FilterPhase,
    SourceFailure,
    StateStats,
    ToolSearchFilterArgs,
    ToolSearchResult,
)

if TYPE_CHECKING:
    from langchain_toolsearch.config import (
        AgentToolConfig,
        ToolConfigStore,
        ToolResolver,
        evaluate_rules,
    )

__version__ = "0.1.0"

_LAZY = {
    "AgentToolConfig": "langchain_toolsearch.config",
    "ToolConfigStore": "langchain_toolsearch.config",
    "ToolResolver": "langchain_toolsearch.config",
    "evaluate_rules": "langchain_toolsearch.config",
}
"""Exports imported on first use: stored configuration (and, through it, MCP) is not
what the tool search itself needs, so ``import langchain_toolsearch`` does not load it."""


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
    "AgentToolConfig",
    "BM25ToolIndex",
    "BaseStoreLoadedToolStore",
    "FilterFn",
    "FilterPhase",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
    "SourceFailure",
    "StateStats",
    "StoreMissingError",
    "ToolConfigStore",
    "ToolIndex",
    "ToolLibrary",
    "ToolResolver",
    "ToolSearchAgentState",
    "ToolSearchConfigError",
    "ToolSearchError",
    "ToolSearchFilterArgs",
    "ToolSearchInput",
    "ToolSearchMiddleware",
    "ToolSearchNode",
    "ToolSearchResult",
    "ToolSearchState",
    "ToolSearchTypeError",
    "ToolSourceError",
    "__version__",
    "evaluate_rules",
]
