"""What every tool index shares: documents, hits and the :class:`ToolIndex` protocol.

A :class:`ToolDocument` is what an index knows of one tool; a
:class:`ScoredTool` is one hit; :class:`ToolIndex` is the retrieval backend
contract (``rank`` and ``__len__``), with an optional async path
(:class:`AsyncToolIndex`, ``arank``) that :func:`arank` uses when present.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Protocol, TypeAlias, runtime_checkable

__all__ = [
    "AsyncToolIndex",
    "IndexOption",
    "ScoredTool",
    "ToolDocument",
    "ToolIndex",
    "arank",
    "name_key",
]

_KEY_SEP = re.compile(r"[\s_\-./:]+")


def name_key(text: str) -> str:
    """Normalise a name or a query chunk for exact-name comparison.

    ``"Get-Weather"``, ``"get weather"`` and ``"get_weather"`` all give
    ``"get_weather"``; camelCase is not split (``"addPerson"`` -> ``"addperson"``).
    """
    plain = text.replace("_", "").replace("-", "")
    if plain.isascii() and plain.isalnum():  # a plain name (most): no normalising, no regex
        lowered = text.lower().replace("-", "_")
        if "__" in lowered or lowered[0] == "_" or lowered[-1] == "_":
            return "_".join(filter(None, lowered.split("_")))
        return lowered  # get_weather: already a key
    return _KEY_SEP.sub("_", unicodedata.normalize("NFKC", text).strip().lower()).strip("_")


@dataclass(frozen=True, slots=True)
class ToolDocument:
    """What the index knows of one tool.

    Attributes:
        name: The id the index returns (the library's provider-safe name).
        description: The tool's description.
        parameters: ``(parameter name, parameter text)`` pairs; the text is
            the parameter's description plus its ``enum`` values.
        aliases: Other names that should match as the tool's name (e.g. the
            original name when ``name`` is a provider-safe rewrite of it).
        generated_name: ``name`` is a provider-safe rewrite (``repo_create_a565f1a0``):
            its words are not indexed, only the aliases'.
    """

    name: str
    description: str = ""
    parameters: tuple[tuple[str, str], ...] = ()
    aliases: tuple[str, ...] = ()
    generated_name: bool = False


@dataclass(frozen=True, slots=True)
class ScoredTool:
    """One ranked hit.

    Attributes:
        name: The document's ``name``.
        score: Relevance in ``[0, 1]``, comparable across queries.
        raw_score: The index's unnormalised score (for BM25 the BM25 sum;
            for debugging and benchmarks).
    """

    name: str
    score: float
    raw_score: float


@runtime_checkable
class ToolIndex(Protocol):
    """Anything that ranks tools for a query: the pluggable retrieval backend.

    Contract: ``rank(query)`` yields :class:`ScoredTool` hits lazily, best
    first, each ``name`` a :attr:`ToolDocument.name`, each ``score`` in
    ``(0, 1]`` comparable across queries, ties by a fixed rule; an empty or
    gibberish query yields nothing; it never raises on any string. Instances
    are immutable and thread-safe. ``arank`` is optional (:class:`AsyncToolIndex`).
    """

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield hits for ``query``, best first."""
        ...

    def __len__(self) -> int:
        """Number of indexed tools."""
        ...


IndexOption: TypeAlias = ToolIndex | Callable[[Sequence[ToolDocument]], ToolIndex]
"""The ``index=`` option: a built :class:`ToolIndex`, or a factory over the documents."""


@runtime_checkable
class AsyncToolIndex(ToolIndex, Protocol):
    """A :class:`ToolIndex` whose ``arank(query)`` yields ``rank``'s hits without blocking I/O."""

    def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """Yield hits for ``query``, best first (an async generator)."""
        ...


_THREAD_BATCH = 64  # hits pulled per worker-thread hop from an index without arank


async def arank(index: ToolIndex, query: str) -> AsyncIterator[ScoredTool]:
    """Hits of ``index`` from async code: its ``arank``, else ``rank`` in a thread, 64 per hop."""
    native = getattr(index, "arank", None)
    if callable(native):
        async for hit in native(query):
            yield hit
        return
    hits: Iterator[ScoredTool] = await asyncio.to_thread(index.rank, query)
    while True:
        batch = await asyncio.to_thread(lambda: list(islice(hits, _THREAD_BATCH)))
        for hit in batch:
            yield hit
        if len(batch) < _THREAD_BATCH:
            return
