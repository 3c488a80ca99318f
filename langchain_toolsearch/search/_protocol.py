"""What every tool index shares: documents, hits, the :class:`ToolIndex` protocol, name keys."""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Protocol, TypeAlias, runtime_checkable

_KEY_SEP = re.compile(r"[\s_\-./:]+")


def name_key(text: str) -> str:
    """The exact-name key: ``Get-Weather``, ``get weather`` -> ``get_weather``.

    camelCase is not split (``addPerson`` -> ``addperson``).
    """
    plain = text.replace("_", "").replace("-", "")
    if plain.isascii() and plain.isalnum():  # most names: no normalising, no regex
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
        aliases: Other names matching as the tool's name (the original of a rewritten name).
        generated_name: ``name`` is a provider-safe rewrite (``repo_create_a565f1a0``)
            whose words are not indexed, only the aliases'.
    """

    name: str
    description: str = ""
    parameters: tuple[tuple[str, str], ...] = ()
    aliases: tuple[str, ...] = ()
    generated_name: bool = False


def searchable_names(doc: ToolDocument) -> tuple[str, ...]:
    """The names whose words are indexed: a generated provider-safe name's are not."""
    if doc.generated_name and doc.aliases:
        return doc.aliases
    return (doc.name, *doc.aliases)


@dataclass(frozen=True, slots=True)
class ScoredTool:
    """One ranked hit.

    Attributes:
        name: The document's ``name``.
        score: Relevance in ``[0, 1]``, comparable across queries.
        raw_score: The index's unnormalised score (BM25: the BM25F sum).
    """

    name: str
    score: float
    raw_score: float


@runtime_checkable
class ToolIndex(Protocol):
    """The pluggable retrieval backend: immutable, thread-safe.

    ``rank(query)`` yields :class:`ScoredTool` lazily, best first, names of
    :attr:`ToolDocument.name`, scores in ``(0, 1]`` comparable across queries,
    ties by a fixed rule; nothing for an empty or gibberish query; never raises.
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


_THREAD_BATCH = 64


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
