"""Search over a tool library: the index protocol, BM25F, the hybrid, the store-served index.

``BM25ToolIndex`` is the default index; ``SemanticIndexFactory`` fuses it with
any LangChain ``Embeddings`` (``embeddings=``), its tool vectors kept by an
``EmbeddingCache``; ``StoreIndexFactory`` serves the library from a LangGraph
store's vector index. The hybrid and store-served names are imported on first
use (PEP 562), so BM25 alone loads neither LangChain's vector stores nor the caches.

Modules (all private): ``_analysis`` (text -> terms), ``_protocol`` (documents,
hits, ``ToolIndex``), ``_stages`` (query stages, names in a query, "did you
mean"), ``_bm25`` (postings, ranking, ``BM25ToolIndex``), ``_vectors`` (the
embedding cache and its tiers), ``_hybrid`` (``SemanticToolIndex``, embedding
models), ``_shared_index`` (``StoreToolIndex``, library versions in a store).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_toolsearch._support import lazy_exports
from langchain_toolsearch.search._bm25 import BM25Params, BM25ToolIndex
from langchain_toolsearch.search._protocol import (
    AsyncToolIndex,
    IndexOption,
    ScoredTool,
    ToolDocument,
    ToolIndex,
    arank,
)
from langchain_toolsearch.search._stages import SearchStages

if TYPE_CHECKING:
    from langchain_toolsearch.search._hybrid import (
        HashingEmbeddings,
        SemanticIndexFactory,
        SemanticToolIndex,
        local_embeddings,
    )
    from langchain_toolsearch.search._shared_index import (
        IndexVersion,
        StoreIndexFactory,
        StoreToolIndex,
        SyncStats,
        alist_versions,
        aprune_versions,
        list_versions,
        prune_versions,
    )
    from langchain_toolsearch.search._vectors import EmbeddingCache, VectorFile, model_id

_HYBRID = "langchain_toolsearch.search._hybrid"
_SHARED = "langchain_toolsearch.search._shared_index"
_VECTORS = "langchain_toolsearch.search._vectors"
_LAZY = {
    **dict.fromkeys(
        ("HashingEmbeddings", "SemanticIndexFactory", "SemanticToolIndex", "local_embeddings"),
        _HYBRID,
    ),
    **dict.fromkeys(
        (
            "IndexVersion",
            "StoreIndexFactory",
            "StoreToolIndex",
            "SyncStats",
            "alist_versions",
            "aprune_versions",
            "list_versions",
            "prune_versions",
        ),
        _SHARED,
    ),
    **dict.fromkeys(("EmbeddingCache", "VectorFile", "model_id"), _VECTORS),
}
"""Names imported on first use, by module."""

__getattr__, __dir__ = lazy_exports(globals(), _LAZY)

__all__ = [
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
