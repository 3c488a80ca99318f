"""Views that chain the static library and index with one request's tools (no copies)."""

from __future__ import annotations

import hashlib
import heapq
import json
import weakref
from collections.abc import AsyncIterator, Iterator, Sequence
from functools import partial
from typing import Any

from langchain_core.tools import BaseTool

from langchain_toolsearch._internal.schema_checks import tool_problem
from langchain_toolsearch.library import LibraryTool, ToolLibrary
from langchain_toolsearch.search import ScoredTool, ToolDocument, ToolIndex, arank

__all__ = ["ChainedLibrary", "MergedIndex", "close", "tool_fingerprint"]


def _schema_of(tool: BaseTool) -> Any:
    schema: Any = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    try:
        return schema.model_json_schema()
    except Exception:  # an exotic schema still fingerprints by name and description
        return repr(schema)


_DIGESTS: dict[int, tuple[weakref.ref[BaseTool], str, str, Any, bytes]] = {}
"""id(tool) -> (the tool, name, description, args schema, digest) of tools seen alive."""


def _forget_key(key: int, ref: weakref.ref[BaseTool]) -> None:
    entry = _DIGESTS.get(key)
    if entry is not None and entry[0] is ref:
        _DIGESTS.pop(key, None)


def _digest(tool: BaseTool) -> bytes:
    """SHA-256 of a tool's name, description and call schema, memoised per live instance."""
    key = id(tool)
    name, description, schema = tool.name, tool.description or "", tool.args_schema
    entry = _DIGESTS.get(key)
    if (
        entry is not None
        and entry[0]() is tool
        and entry[1] == name
        and entry[2] == description
        and entry[3] is schema
    ):
        return entry[4]
    problem = tool_problem(tool)  # bounded; such a tool is dropped, its schema never written
    schema_text = _schema_of(tool) if problem is None else f"unusable: {problem}"
    text = json.dumps([name, description, schema_text], sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode("utf-8", "replace")).digest()
    try:
        ref = weakref.ref(tool, partial(_forget_key, key))
    except TypeError:  # not weakly referenceable: not memoised
        return digest
    _DIGESTS[key] = (ref, name, description, schema, digest)
    return digest


def tool_fingerprint(tools: Sequence[BaseTool]) -> str:
    """SHA-256 over the tools' names, descriptions and call schemas, in order."""
    digest = hashlib.sha256()
    for tool in tools:
        digest.update(_digest(tool))
    return digest.hexdigest()


async def close(hits: AsyncIterator[ScoredTool]) -> None:
    """Close an async ranking left before its end (an async generator's ``aclose``)."""
    aclose = getattr(hits, "aclose", None)
    if aclose is not None:
        await aclose()


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
        return self._first.get(name) or self._second.get(name)

    @property
    def names(self) -> list[str]:
        return [*self._first.names, *self._second.names]

    def documents(self) -> list[ToolDocument]:
        return [*self._first.documents(), *self._second.documents()]

    def suggest(self, name: str, *, limit: int = 5) -> list[str]:
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

    async def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """Async :meth:`rank`, lazily (``arank`` of each index, else ``rank`` in a thread)."""
        parts = [arank(index, query) for index in self._indexes]
        heads: list[tuple[float, str, int, ScoredTool]] = []
        try:
            for i, part in enumerate(parts):
                hit = await anext(part, None)
                if hit is not None:
                    heapq.heappush(heads, (-hit.score, hit.name, i, hit))
            while heads:
                _, _, i, hit = heapq.heappop(heads)
                yield hit
                following = await anext(parts[i], None)
                if following is not None:
                    heapq.heappush(heads, (-following.score, following.name, i, following))
        finally:
            for part in parts:
                await close(part)

    def __len__(self) -> int:
        return sum(len(i) for i in self._indexes)
