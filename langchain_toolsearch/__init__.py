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

from typing import TYPE_CHECKING

from langchain_toolsearch._internal.lazy import lazy_exports
from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchConfigError,
    ToolSearchError,
    ToolSearchTypeError,
    ToolSourceError,
)

if TYPE_CHECKING:
    from langchain_toolsearch.library import ToolLibrary
    from langchain_toolsearch.middleware import ToolSearchAgentState, ToolSearchMiddleware
    from langchain_toolsearch.node import ToolSearchInput, ToolSearchNode, ToolSearchState
    from langchain_toolsearch.policy import FilterFn
    from langchain_toolsearch.search import BM25ToolIndex, ToolIndex
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

__version__ = "0.2.0"

_LAZY = {
    "ToolLibrary": "langchain_toolsearch.library",
    "ToolSearchAgentState": "langchain_toolsearch.middleware",
    "ToolSearchMiddleware": "langchain_toolsearch.middleware",
    "ToolSearchInput": "langchain_toolsearch.node",
    "ToolSearchNode": "langchain_toolsearch.node",
    "ToolSearchState": "langchain_toolsearch.node",
    "FilterFn": "langchain_toolsearch.policy",
    "BM25ToolIndex": "langchain_toolsearch.search",
    "ToolIndex": "langchain_toolsearch.search",
    "BaseStoreLoadedToolStore": "langchain_toolsearch.storage",
    "InMemoryLoadedToolStore": "langchain_toolsearch.storage",
    "LoadedToolStore": "langchain_toolsearch.storage",
    "FilterPhase": "langchain_toolsearch.types",
    "SourceFailure": "langchain_toolsearch.types",
    "StateStats": "langchain_toolsearch.types",
    "ToolSearchFilterArgs": "langchain_toolsearch.types",
    "ToolSearchResult": "langchain_toolsearch.types",
}
"""Exports imported on first use (PEP 562), so ``import langchain_toolsearch`` and the
``toolsearch`` command load only what they use: the middleware and node pull in
LangChain's agents."""


__getattr__, __dir__ = lazy_exports(globals(), _LAZY)

__all__ = [
    "BM25ToolIndex",
    "BaseStoreLoadedToolStore",
    "FilterFn",
    "FilterPhase",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
    "SourceFailure",
    "StateStats",
    "StoreMissingError",
    "ToolIndex",
    "ToolLibrary",
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
]
