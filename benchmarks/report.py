"""A benchmark run's settings (:class:`BenchConfig`), its Markdown report and a search adapter."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import ToolIndex

__all__ = ["BenchConfig", "_Report", "index_search"]


@dataclass(frozen=True)
class BenchConfig:
    """What :func:`run_bench` measures.

    Attributes:
        quick: Reduced run (fewer queries and tools, no 100k); for tests.
        semantic: Also measure semantic search with each installed offline
            model of :mod:`benchmarks.embedding_models` (all-MiniLM-L6-v2,
            multilingual-e5-small; the ``[bench-semantic]`` extra), side by side.
        engine: Measure only the store-served library (PostgresStore +
            pgvector; needs the ``[engine]`` extra or a server with pgvector).
        engine_tools: Library size served by the engine (count).
        data_dir: Shared data folder (default: found as the loaders do).
        sizes: Library sizes for the speed section (counts).
        query_stride: Use every n-th BFCL query for quality and latency.
        baseline_samples: rank-bm25 latency samples per size (``None`` = all).
        overhead_tools: Library size for the overhead section (count).
        loaded_tools: Tools loaded in the overhead thread (count).
        threads: Threads in the memory section (count).
        steps: Model steps timed in the overhead section (count).
    """

    quick: bool = False
    semantic: bool = False
    engine: bool = False
    engine_tools: int = 100_000
    data_dir: Path | None = None
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    query_stride: int = 1
    baseline_samples: dict[int, int | None] = field(
        default_factory=lambda: {1_000: None, 10_000: 500, 100_000: 40}
    )
    overhead_tools: int = 10_000
    loaded_tools: int = 50
    threads: int = 100_000
    steps: int = 2_000

    @classmethod
    def make(
        cls, *, quick: bool, semantic: bool, data_dir: Path | None, engine: bool = False
    ) -> BenchConfig:
        """The full configuration, or the ``--quick`` one."""
        if not quick:
            return cls(semantic=semantic, data_dir=data_dir, engine=engine)
        return cls(
            quick=True,
            semantic=semantic,
            engine=engine,
            engine_tools=3_000,
            data_dir=data_dir,
            sizes=(1_000, 3_000),
            query_stride=10,
            baseline_samples={1_000: 30, 3_000: 30},
            overhead_tools=2_000,
            threads=10_000,
            steps=200,
        )


class _Report:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    def line(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def table(self, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
        self.line("| " + " | ".join(header) + " |")
        self.line("|" + "|".join("---" for _ in header) + "|")
        for row in rows:
            self.line("| " + " | ".join(str(c) for c in row) + " |")
        self.line()


def index_search(library: ToolLibrary, index: ToolIndex) -> Callable[[str, int], list[str]]:
    """``search(query, k)`` over ``index``: the top ``k`` hits' original names (gold names)."""

    def search(query: str, k: int) -> list[str]:
        # gold names are the originals; the library maps unsafe ones (dots) to safe names
        out: list[str] = []
        for hit in itertools.islice(index.rank(query), k):
            entry = library.get(hit.name)
            out.append(entry.original_name if entry is not None else hit.name)
        return out

    return search
