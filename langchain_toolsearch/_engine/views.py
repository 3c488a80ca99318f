"""Views that chain the static library and index with one request's tools.

Nothing is copied: a request's library is the static library followed by the
request's own :class:`~langchain_toolsearch.library.ToolLibrary`, its index
the two indexes merged by score.
"""

from __future__ import annotations

import hashlib
import heapq
import inspect
import json
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

from langchain_core.tools import BaseTool

from langchain_toolsearch.library import LibraryTool, ToolLibrary
from langchain_toolsearch.search.index import ScoredTool, ToolDocument, ToolIndex

__all__ = ["ChainedLibrary", "MergedIndex", "arank", "tool_fingerprint"]


def _schema_of(tool: BaseTool) -> Any:
    schema: Any = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    try:
        return schema.model_json_schema()
    except Exception:  # an exotic schema still fingerprints by name and description
        return repr(schema)


def tool_fingerprint(tools: Sequence[BaseTool]) -> str:
    """SHA-256 over the tools' names, descriptions and call schemas, in order."""
    digest = hashlib.sha256()
    for tool in tools:
        payload = [tool.name, tool.description or "", _schema_of(tool)]
        digest.update(json.dumps(payload, sort_keys=True, default=str).encode("utf-8", "replace"))
        digest.update(b"\0")
    return digest.hexdigest()


async def arank(index: ToolIndex, query: str) -> Iterable[ScoredTool]:
    """``index.arank(query)`` when the index has an async path, else ``index.rank(query)``."""
    method = getattr(index, "arank", None)
    if method is None:
        return index.rank(query)
    ranked = method(query)
    if inspect.isawaitable(ranked):
        ranked = await ranked
    if isinstance(ranked, AsyncIterator):
        return [hit async for hit in ranked]
    return ranked  # type: ignore[no-any-return]


class ChainedLibrary(ToolLibrary):
    """The static library followed by one request's tools (a view; nothing is copied)."""

    def __init__(self, first: ToolLibrary, second: ToolLibrary) -> None:
        self._first = first
        self._second = second

    def __len__(self) -> int:
        return len(self._first) + len(self._second)

    def __iter__(self) -> Iterator[LibraryTool]:
        yield from self._first
        yield from self._second

    def __contains__(self, name: object) -> bool:
        return name in self._first or name in self._second

    def get(self, name: str) -> LibraryTool | None:
        """The tool named ``name`` in either part."""
        return self._first.get(name) or self._second.get(name)

    @property
    def names(self) -> list[str]:
        """Provider-safe names, static library first."""
        return [*self._first.names, *self._second.names]

    def documents(self) -> list[ToolDocument]:
        """Search documents of both parts."""
        return [*self._first.documents(), *self._second.documents()]

    def suggest(self, name: str, *, limit: int = 5) -> list[str]:
        """Suggestions from both parts, sorted."""
        both = self._first.suggest(name, limit=limit) + self._second.suggest(name, limit=limit)
        return sorted(dict.fromkeys(both))[:limit]


class MergedIndex:
    """Ranks several indexes as one: their hits merged by ``(-score, name)``."""

    def __init__(self, *indexes: ToolIndex) -> None:
        self._indexes = indexes

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield the hits of every index, best first, ties by name."""
        return heapq.merge(
            *(index.rank(query) for index in self._indexes), key=lambda h: (-h.score, h.name)
        )

    async def arank(self, query: str) -> Iterator[ScoredTool]:
        """Async :meth:`rank` (each index through its async path if it has one)."""
        parts = [list(await arank(index, query)) for index in self._indexes]
        return heapq.merge(*parts, key=lambda h: (-h.score, h.name))

    def __len__(self) -> int:
        """Number of indexed tools."""
        return sum(len(i) for i in self._indexes)
