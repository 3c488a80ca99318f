"""The English stopwords: function words dropped from queries and documents.

Names keep them (``get_me`` keeps ``me``); see
:mod:`~langchain_toolsearch.search.tokenize` and the BM25 index's query terms.
"""

from __future__ import annotations

__all__ = ["STOPWORDS"]

STOPWORDS = frozenset(
    [
        "a",
        "am",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "should",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "us",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
"""English function words dropped from queries and documents (but never from names)."""
