"""Dump the top 10 of every query of every quality set, per index kind (refactoring guard).

Run from the repository root (needs the shared data; ``TOOLSEARCH_SHARED_DATA``)::

    python -m benchmarks.rank_dump before.jsonl     # on the commit before a change
    python -m benchmarks.rank_dump after.jsonl      # after it
    cmp before.jsonl after.jsonl                    # identical bytes: same rankings and scores

Options: ``--sets bfcl,github,toolsdk,validation`` (default: all four),
``--kinds bm25,hybrid,store,store-hybrid`` (default: all four),
``--store-sets`` (the sets the two store kinds run on; default: all).

One JSON line per (set, kind, query): ``[set, kind, query, [[name, score, raw score], ...]]``;
scores are the floats as the index yields them (JSON writes ``repr``: every bit shows).

Sets: the 2,501 BFCL queries on the BFCL pool, the GitHub MCP and ToolSDK
query sets of ``benchmarks/queries/`` on their catalogs, and the validation
set (RestBench + ToolAlpaca). Kinds:

* ``bm25``: the default index (``BM25ToolIndex``);
* ``hybrid``: ``SemanticToolIndex`` (what ``embeddings=`` builds: BM25 and
  embeddings fused by RRF) with :class:`HashedWordEmbeddings`, its vectors
  through the default cache (a file in a temporary folder);
* ``store``: ``StoreToolIndex`` over a LangGraph ``InMemoryStore`` whose
  vector index embeds with :class:`HashedWordEmbeddings` (the store's ranking alone);
* ``store-hybrid``: the same with ``fuse_bm25=True`` (what ``StoreIndexFactory`` builds).

The embedding model is defined here, on its own tokenizer, so a change in the
package cannot move it. Names are imported through :func:`public` (the
public package first, then today's module), so the same script runs across
module moves.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from benchmarks.datasets import (
    ToolDef,
    default_data_dir,
    load_bfcl,
    load_github_mcp_tools,
    load_restbench_toolalpaca,
    load_toolsdk,
)

QUERIES = Path(__file__).parent / "queries"
RESERVED = frozenset({"search_tools", "load_tool"})
SETS = ("bfcl", "github", "toolsdk", "validation")
KINDS = ("bm25", "hybrid", "store", "store-hybrid")
TOP = 10

_WHERE: dict[str, tuple[str, ...]] = {
    "ToolLibrary": ("langchain_toolsearch",),
    "BM25ToolIndex": ("langchain_toolsearch",),
    "SemanticToolIndex": ("langchain_toolsearch.search",),
    "StoreToolIndex": ("langchain_toolsearch.search",),
}
"""Where each package name is looked up: its public module."""


def public(name: str) -> Any:
    """The package's ``name`` from the first module of :data:`_WHERE` that has it."""
    for module in _WHERE[name]:
        try:
            found = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if found is not None:
            return found
    raise ImportError(f"{name} in none of {_WHERE[name]}")


_WORD = re.compile(r"[a-z0-9]+")


class HashedWordEmbeddings(Embeddings):
    """Signed hashed bag of lower-case words, L2-normalised: deterministic, no download.

    Its own tokenizer (runs of ``[a-z0-9]``, ``camelCase`` split), so the
    vectors do not depend on the package's.

    Args:
        dims: Vector size (count).
    """

    def __init__(self, dims: int = 256) -> None:
        self.dims = dims

    def _vector(self, text: str) -> list[float]:
        spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()
        vector = [0.0] * self.dims
        for word, count in sorted(Counter(_WORD.findall(spaced)).items()):
            digest = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
            vector[digest % self.dims] += (1.0 if digest >> 63 else -1.0) * (1.0 + math.log(count))
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm > 0 else vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text."""
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """A query's vector, as a document's."""
        return self._vector(text)


def _queries(name: str) -> list[str]:
    with (QUERIES / f"{name}.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line)["query"] for line in handle if line.strip()]


def _sets(names: Iterable[str]) -> list[tuple[str, list[ToolDef], list[str]]]:
    out: list[tuple[str, list[ToolDef], list[str]]] = []
    for name in names:
        if name == "bfcl":
            tools, asked = load_bfcl()
            out.append((name, tools, [q.query for q in asked]))
        elif name == "github":
            out.append((name, load_github_mcp_tools(), _queries("github")))
        elif name == "toolsdk":
            out.append((name, load_toolsdk(), _queries("toolsdk")))
        else:
            tools, asked = load_restbench_toolalpaca()
            out.append((name, tools, [q.query for q in asked]))
    return out


def _in_memory_store() -> type[Any]:
    """LangGraph's ``InMemoryStore``, one vector per indexed field even when texts repeat.

    Its ``batch`` embeds each distinct text once but expects one vector per
    field, so a batch putting two tools of the same embedded text (ToolSDK
    has such pairs: ``get-weather`` / ``get_weather``) raises ``ValueError``
    (langgraph-checkpoint 4.3); this subclass hands each field its text's vector.
    """
    from langgraph.store.memory import InMemoryStore

    class _Store(InMemoryStore):
        def _insertinmem_store(
            self, to_embed: dict[str, list[tuple[tuple[str, ...], str, str]]], embeddings: Any
        ) -> None:
            for fields, vector in zip(to_embed.values(), embeddings, strict=True):
                for namespace, key, path in fields:
                    self._vectors[namespace][key][path] = vector

    return _Store


def _index(kind: str, documents: Sequence[Any]) -> Any:
    embeddings = HashedWordEmbeddings()
    if kind == "bm25":
        return public("BM25ToolIndex").build(documents)
    if kind == "hybrid":
        return public("SemanticToolIndex")(documents, embeddings)
    store = _in_memory_store()(index={"dims": embeddings.dims, "embed": embeddings})
    return public("StoreToolIndex")(
        store, documents, fuse_bm25=kind == "store-hybrid", refresh_seconds=None
    )


def dump(
    path: str,
    sets: Sequence[str] = SETS,
    kinds: Sequence[str] = KINDS,
    store_sets: Sequence[str] = SETS,
    log: Callable[[str], None] = print,
) -> None:
    """Write the dump of ``kinds`` on ``sets`` to ``path`` (module doc)."""
    os.environ.setdefault("TOOLSEARCH_SHARED_DATA", str(default_data_dir()))
    library_class = public("ToolLibrary")
    with (
        tempfile.TemporaryDirectory() as cache_dir,
        open(path, "w", encoding="utf-8") as out,
    ):
        os.environ["TOOLSEARCH_VECTOR_CACHE"] = cache_dir  # the hybrid's file, not the user's
        for name, defs, queries in _sets(sets):
            library = library_class([d.to_tool() for d in defs if d.name not in RESERVED])
            documents = library.documents()
            for kind in kinds:
                if kind.startswith("store") and name not in store_sets:
                    continue
                started = time.perf_counter()
                index = _index(kind, documents)
                for query in queries:
                    hits = [[h.name, h.score, h.raw_score] for h in islice(index.rank(query), TOP)]
                    out.write(json.dumps([name, kind, query, hits]) + "\n")
                log(f"{name} {kind}: {len(queries)} queries, {time.perf_counter() - started:.1f} s")


def _names(value: str, allowed: Sequence[str]) -> list[str]:
    names = [v for v in value.split(",") if v]
    unknown = sorted(set(names) - set(allowed))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown {unknown}; choose from {list(allowed)}")
    return names


def main(argv: Sequence[str] | None = None) -> None:
    """Command line (module doc)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.rank_dump")
    parser.add_argument("path", nargs="?", default="rank_dump.jsonl")
    parser.add_argument("--sets", type=lambda v: _names(v, SETS), default=list(SETS))
    parser.add_argument("--kinds", type=lambda v: _names(v, KINDS), default=list(KINDS))
    parser.add_argument("--store-sets", type=lambda v: _names(v, SETS), default=list(SETS))
    args = parser.parse_args(argv)
    dump(args.path, args.sets, args.kinds, args.store_sets)


if __name__ == "__main__":
    main(sys.argv[1:])
