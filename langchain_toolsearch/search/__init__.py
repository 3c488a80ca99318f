"""Search over a tool library: tokenizer, documents, BM25, semantic and store-backed indexes."""

from __future__ import annotations
