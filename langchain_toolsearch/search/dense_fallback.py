"""The embedding side of a hybrid search failing: that search ranks by BM25 alone.

A hosted embedding model times out, a vector store is down, a model swapped
under a cache returns vectors of another size: none of it may fail the
model's ``search_tools`` call (the run would stop). :class:`DenseFallback`
turns such a failure into "no embedding neighbours" and logs its cause at
WARNING the first time it is seen and at DEBUG after (credential-like text
redacted, see :mod:`langchain_toolsearch._support`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from langchain_toolsearch._support import CauseLog

__all__ = ["DenseFallback"]

logger = logging.getLogger(__name__)

Neighbours = list[tuple[int, float]]
"""``(document position, similarity)`` pairs, best first."""


class DenseFallback:
    """Runs the embedding side of one index; a failure yields no neighbours (thread-safe).

    Args:
        source: What is embedding, for the log (e.g. the embeddings' class name).
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self._log = CauseLog(
            logger,
            f"tool search: the embedding side ({source}) failed (%s): %s; ranking by BM25 alone",
        )

    def run(self, similar: Callable[[str], Neighbours], query: str) -> Neighbours:
        """``similar(query)``, or ``[]`` if it raises."""
        try:
            return similar(query)
        except Exception as exc:  # an outage of the model or store must not fail the search
            self._log.failed(exc)
            return []

    async def arun(
        self, asimilar: Callable[[str], Awaitable[Neighbours]], query: str
    ) -> Neighbours:
        """``await asimilar(query)``, or ``[]`` if it raises."""
        try:
            return await asimilar(query)
        except Exception as exc:  # an outage of the model or store must not fail the search
            self._log.failed(exc)
            return []
