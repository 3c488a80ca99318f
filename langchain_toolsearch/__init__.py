"""Tool search for LangGraph / LangChain agents.

The model gets ``search_tools`` and ``load_tool``; only loaded tools reach
the prompt. Use :class:`ToolSearchMiddleware` with ``create_agent`` or
:class:`ToolSearchNode` in a hand-built ``StateGraph``.

Errors: developer mistakes raise at construction, as subclasses of
:class:`ToolSearchError` (see :mod:`langchain_toolsearch.errors`; they are
also ``ValueError`` / ``TypeError``). Model mistakes never raise: they come
back as error ``ToolMessage`` objects and the run goes on.

Other public modules: :mod:`~langchain_toolsearch.types` (value types),
:mod:`~langchain_toolsearch.errors`, :mod:`~langchain_toolsearch.middleware`,
:mod:`~langchain_toolsearch.node`, :mod:`~langchain_toolsearch.catalog`,
:mod:`~langchain_toolsearch.evaluation`, :mod:`~langchain_toolsearch.testing`
and the subpackages ``search``, ``storage`` and ``mcp``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError, ToolSourceError

if TYPE_CHECKING:
    from langchain_toolsearch._library import ToolLibrary
    from langchain_toolsearch.middleware import ToolSearchMiddleware
    from langchain_toolsearch.node import ToolSearchInput, ToolSearchNode, ToolSearchState
    from langchain_toolsearch.search import BM25ToolIndex, ToolIndex
    from langchain_toolsearch.storage import LoadedToolStore
    from langchain_toolsearch.types import ToolSearchFilterArgs, ToolSearchResult

__version__ = "0.2.0"

_LAZY = {
    "ToolLibrary": "langchain_toolsearch._library",
    "ToolSearchMiddleware": "langchain_toolsearch.middleware",
    "ToolSearchInput": "langchain_toolsearch.node",
    "ToolSearchNode": "langchain_toolsearch.node",
    "ToolSearchState": "langchain_toolsearch.node",
    "BM25ToolIndex": "langchain_toolsearch.search",
    "ToolIndex": "langchain_toolsearch.search",
    "LoadedToolStore": "langchain_toolsearch.storage",
    "ToolSearchFilterArgs": "langchain_toolsearch.types",
    "ToolSearchResult": "langchain_toolsearch.types",
}
"""Exports imported on first use (PEP 562), so ``import langchain_toolsearch`` and the
``toolsearch`` command load only what they use (the middleware and node pull in
LangChain's agents)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(module), name)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "BM25ToolIndex",
    "LoadedToolStore",
    "ToolIndex",
    "ToolLibrary",
    "ToolSearchConfigError",
    "ToolSearchError",
    "ToolSearchFilterArgs",
    "ToolSearchInput",
    "ToolSearchMiddleware",
    "ToolSearchNode",
    "ToolSearchResult",
    "ToolSearchState",
    "ToolSourceError",
]
