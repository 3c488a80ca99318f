"""Worst-case suggestion work and tokenizer memory (issue 9, field report C18).

Run from the repository root (needs the shared data)::

    python -m benchmarks.meta_tool_bounds

Prints the time of ``ToolLibrary.suggest`` for one ``load_tool`` call's worth
of unknown names (64 names of 12 characters, and of 100,000 characters) at
10k and 100k tools, and the memory growth after tokenizing 20,000 distinct
2,000-character queries.
"""

from __future__ import annotations

import random
import string
import time
import tracemalloc

from benchmarks.datasets import load_bfcl, load_toolsdk, merge_libraries, scale_library
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.search.tokenize import clear_caches, tokenize


def _names(rng: random.Random, count: int, size: int) -> list[str]:
    alphabet = string.ascii_lowercase + "_"
    return ["".join(rng.choice(alphabet) for _ in range(size)) for _ in range(count)]


def suggestions() -> None:
    bfcl, _ = load_bfcl()
    base = merge_libraries(bfcl, load_toolsdk())
    rng = random.Random(9)
    for n in (10_000, 100_000):
        defs = scale_library(base, n)
        library = ToolLibrary(
            [d.to_tool() for d in defs if d.name not in ("search_tools", "load_tool")]
        )
        real = [d.name for d in defs[:: max(1, n // 64)]][:64]
        cases = {
            "64 random 12-char names": _names(rng, 64, 12),
            "64 near misses of real names": [r[:-1] + "x" for r in real],
            "64 names of 100,000 chars": _names(rng, 64, 100_000),
            "64 common words (get, list...)": ["get", "list", "create", "search"] * 16,
        }
        for label, asked in cases.items():
            started = time.perf_counter()
            for name in asked:
                library.suggest(name)
            took = (time.perf_counter() - started) * 1e3
            print(f"{n:>7,} tools, {label}: {took:.1f} ms for the call")


def tokenizer_memory() -> None:
    clear_caches()
    rng = random.Random(3)
    words = [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 12)))
        for _ in range(50_000)
    ]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(20_000):
        text = " ".join(rng.choice(words) for _ in range(260))[:2000]
        tokenize(text)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(f"20,000 distinct 2,000-char queries: +{(after - before) / 2**20:.1f} MiB held")


if __name__ == "__main__":
    suggestions()
    tokenizer_memory()
