"""Dump the default index's top-10 for every query of the three quality sets (speed work guard).

Run from the repository root (needs the shared data; ``TOOLSEARCH_SHARED_DATA``)::

    python -m benchmarks.rank_dump before.jsonl     # on the commit before a change
    python -m benchmarks.rank_dump after.jsonl      # after it
    cmp before.jsonl after.jsonl                    # identical bytes: same rankings and scores

One JSON line per query: ``[set, query, [[name, score, raw score], ...]]``,
scores rounded to 1e-9. Sets: the 2,501 BFCL queries on the BFCL pool, the
GitHub MCP and ToolSDK query sets of ``benchmarks/queries/``. A speed change
to the index or tokenizer must leave the file byte-identical.
"""

from __future__ import annotations

import itertools
import json
import sys

from benchmarks.datasets import load_bfcl, load_github_mcp_tools, load_toolsdk
from benchmarks.search_quality import _library, _queries
from langchain_toolsearch.search._bm25 import build_index


def main(path: str) -> None:
    """Write the dump to ``path``."""
    bfcl, bfcl_queries = load_bfcl()
    sets = (
        ("bfcl", bfcl, [q.query for q in bfcl_queries]),
        ("github", load_github_mcp_tools(), [q.query for q in _queries("github")]),
        ("toolsdk", load_toolsdk(), [q.query for q in _queries("toolsdk")]),
    )
    with open(path, "w", encoding="utf-8") as out:
        for name, defs, queries in sets:
            library = _library(defs)
            index = build_index(None, library.documents())
            for query in queries:
                hits = [
                    (h.name, round(h.score, 9), round(h.raw_score, 9))
                    for h in itertools.islice(index.rank(query), 10)
                ]
                out.write(json.dumps([name, query, hits]) + "\n")
            print(f"{name}: {len(queries)} queries")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "rank_dump.jsonl")
