"""The public surface of ``langchain_toolsearch.search``: ``__all__`` is locked, every name
imports, the modules behind it are private, and BM25 alone loads neither the hybrid nor the
store-served index."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import langchain_toolsearch.search as search

EXPECTED_SEARCH_ALL = [
    "AsyncToolIndex",
    "BM25Params",
    "BM25ToolIndex",
    "EmbeddingCache",
    "HashingEmbeddings",
    "IndexOption",
    "IndexVersion",
    "ScoredTool",
    "SearchStages",
    "SemanticIndexFactory",
    "SemanticToolIndex",
    "StoreIndexFactory",
    "StoreToolIndex",
    "SyncStats",
    "ToolDocument",
    "ToolIndex",
    "VectorFile",
    "alist_versions",
    "aprune_versions",
    "arank",
    "list_versions",
    "local_embeddings",
    "model_id",
    "prune_versions",
]

ROOT = Path(__file__).resolve().parents[2]


def test_search_all_is_locked() -> None:
    assert search.__all__ == EXPECTED_SEARCH_ALL
    for name in EXPECTED_SEARCH_ALL:
        assert getattr(search, name) is not None, name
    assert set(EXPECTED_SEARCH_ALL) <= set(dir(search))


def test_every_module_of_the_search_package_is_private() -> None:
    modules = sorted(p.stem for p in Path(search.__file__).parent.glob("*.py"))
    assert [m for m in modules if m != "__init__" and not m.startswith("_")] == []


def test_bm25_alone_loads_neither_the_hybrid_nor_the_store_served_index() -> None:
    probe = (
        "import sys\n"
        "from langchain_toolsearch.search import BM25ToolIndex, ToolDocument\n"
        "BM25ToolIndex([ToolDocument('get_weather', 'Weather for a city')])\n"
        "print(sorted(m for m in sys.modules if m.startswith('langchain_toolsearch.search')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = ast.literal_eval(done.stdout)
    assert loaded == [
        "langchain_toolsearch.search",
        "langchain_toolsearch.search._analysis",
        "langchain_toolsearch.search._bm25",
        "langchain_toolsearch.search._protocol",
        "langchain_toolsearch.search._stages",
    ]
