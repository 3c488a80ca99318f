"""Dump the rankings of every shipped index on the quality sets (guard of speed and layout work).

Run from the repository root (needs the shared data; ``TOOLSEARCH_SHARED_DATA``)::

    python -m benchmarks.rank_dump before.jsonl     # on the commit before a change
    python -m benchmarks.rank_dump after.jsonl      # after it
    cmp before.jsonl after.jsonl                    # identical bytes: same rankings and scores

One JSON line per query: ``[kind, set, query, [[name, score, raw score], ...]]``,
scores rounded to 1e-9. Sets: the 2,501 BFCL queries on the BFCL pool, the
GitHub MCP and ToolSDK query sets of ``benchmarks/queries/``, the validation
set (RestBench + ToolAlpaca). Kinds, per set:

* ``bm25``: the default index's top 10 of every query; ``bm25-deep``: the top
  150 (past the first sorted batch of 64) of the first 50 queries;
* ``hybrid-hash`` / ``hybrid-fake``: ``SemanticToolIndex`` with
  ``HashingEmbeddings(256)`` / ``DeterministicFakeEmbedding(size=64)`` (memory
  cache), top 20 of every query (every 7th of a set over 400);
* ``store-False`` / ``store-True``: ``StoreToolIndex`` on an ``InMemoryStore``
  with ``HashingEmbeddings`` (``fuse_bm25`` off / on), top 30 of every query
  (every 25th of a set over 300; libraries of at most 3,000 tools), after a
  line with the version's fingerprint and what the sync wrote;
* ``suggest``: ``load_tool``'s suggestions for four misspellings of each of
  the first 300 names.

A change to the search must leave the file byte-identical.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langgraph.store.memory import InMemoryStore

from benchmarks.datasets import (
    load_bfcl,
    load_github_mcp_tools,
    load_restbench_toolalpaca,
    load_toolsdk,
)
from benchmarks.search_quality import _library, _queries
from langchain_toolsearch.search import (
    EmbeddingCache,
    HashingEmbeddings,
    SemanticToolIndex,
    StoreToolIndex,
    ToolDocument,
    ToolIndex,
)
from langchain_toolsearch.search._bm25 import build_index
from langchain_toolsearch.search._stages import NameSuggester


def _hits(index: ToolIndex, query: str, n: int = 10) -> list[tuple[str, float, float]]:
    top = itertools.islice(index.rank(query), n)
    return [(h.name, round(h.score, 9), round(h.raw_score, 9)) for h in top]


def _line(out: TextIO, *fields: Any) -> None:
    out.write(json.dumps(list(fields)) + "\n")


def _dump_set(out: TextIO, name: str, docs: Sequence[ToolDocument], queries: list[str]) -> None:
    bm25 = build_index(None, docs)
    for q in queries:
        _line(out, "bm25", name, q, _hits(bm25, q))
    for q in queries[:50]:
        _line(out, "bm25-deep", name, q, _hits(bm25, q, 150))
    sub = queries if len(queries) <= 400 else queries[::7]
    models: tuple[tuple[str, Embeddings], ...] = (
        ("hash", HashingEmbeddings(256)),
        ("fake", DeterministicFakeEmbedding(size=64)),
    )
    for label, model in models:
        hybrid = SemanticToolIndex(docs, model, cache=EmbeddingCache(None))
        for q in sub:
            _line(out, f"hybrid-{label}", name, q, _hits(hybrid, q, 20))
    small = queries if len(queries) <= 300 else queries[::25]
    if len(docs) <= 3000:
        for fuse in (False, True):
            store = InMemoryStore(index={"dims": 256, "embed": HashingEmbeddings()})
            index = StoreToolIndex(store, docs, fuse_bm25=fuse, refresh_seconds=None)
            stats = index.stats
            wrote = [stats.written, stats.deleted, stats.unchanged]
            _line(out, f"store-{fuse}", name, index.fingerprint, wrote)
            for q in small:
                _line(out, f"store-{fuse}", name, q, _hits(index, q, 30))
    suggester = NameSuggester([(d.name, d.aliases) for d in docs])
    for d in docs[:300]:
        for asked in (d.name[:-1], d.name.replace("_", ""), d.name[1:], d.name + "s"):
            _line(out, "suggest", name, asked, suggester.suggest(asked))


def main(path: str) -> None:
    """Write the dump to ``path``."""
    bfcl, bfcl_queries = load_bfcl()
    validation, validation_queries = load_restbench_toolalpaca()
    sets = (
        ("bfcl", bfcl, [q.query for q in bfcl_queries]),
        ("github", load_github_mcp_tools(), [q.query for q in _queries("github")]),
        ("toolsdk", load_toolsdk(), [q.query for q in _queries("toolsdk")]),
        ("validation", validation, [q.query for q in validation_queries]),
    )
    with open(path, "w", encoding="utf-8") as out:
        for name, defs, queries in sets:
            _dump_set(out, name, _library(defs).documents(), queries)
            print(f"{name}: {len(queries)} queries")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "rank_dump.jsonl")
