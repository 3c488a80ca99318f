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
        generated_name: ``name`` was generated (a provider-safe rewrite with
            a hash suffix, ``repo_create_a565f1a0``): its words are not
            indexed, only the aliases' are, so nothing the model did not
            write can score; the name still matches when written exactly.
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

    The library hands one :class:`ToolDocument` per tool to an index
    (:data:`IndexOption`); ``search_tools`` pulls hits from :meth:`rank`.
    Shipped: :class:`~langchain_toolsearch.search.index.BM25ToolIndex` (the
    default), :class:`~langchain_toolsearch.search.semantic.SemanticToolIndex`
    (embeddings fused with BM25) and
    :class:`~langchain_toolsearch.search.store_index.StoreToolIndex` (a
    LangGraph store's vector index).

    Contract:

    * ``rank(query)`` yields :class:`ScoredTool` hits best first, each
      ``name`` a :attr:`ToolDocument.name` (the provider-safe name), each
      ``score`` in ``(0, 1]`` and comparable across queries (``min_score``
      is applied to it), ties broken by a fixed rule (by name; the semantic
      index first by its two rankers' ranks), so equal inputs give equal
      output in every process.
    * It is consumed lazily: callers that filter hits (the filter hook's
      ``search`` phase) keep pulling until ``top_k`` are allowed, so yield
      the first hits without ranking the whole library if you can.
    * An empty or gibberish query yields nothing (not an arbitrary top-k),
      nor does a query of only function words unless a tool's name holds
      them (``who am i`` -> ``get_me``); ``rank`` never raises on any string.
    * Optionally ``arank(query)``, an async generator of the same hits
      (:class:`AsyncToolIndex`, used by :func:`arank`).
    * Instances are immutable after construction and thread-safe.
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
    """A :class:`ToolIndex` with a native async path.

    ``arank(query)`` yields the same hits as ``rank(query)`` without blocking
    the event loop on I/O: the semantic index embeds the query with
    ``aembed_query``, the store index queries with ``BaseStore.asearch``.
    """

    def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """Yield hits for ``query``, best first (an async generator)."""
        ...


_THREAD_BATCH = 64  # hits pulled per worker-thread hop from an index without arank


async def arank(index: ToolIndex, query: str) -> AsyncIterator[ScoredTool]:
    """Hits of ``index`` for ``query`` from async code, best first, lazily.

    ``index.arank`` when the index has one (:class:`AsyncToolIndex`); else
    ``index.rank`` in a worker thread (``asyncio.to_thread``), 64 hits per
    hop, so a slow user index never blocks the event loop.
    """
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
