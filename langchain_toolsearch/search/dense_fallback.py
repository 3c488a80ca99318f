"""The embedding side of a hybrid search failing: that search ranks by BM25 alone.

A hosted embedding model times out, a vector store is down, a model swapped
under a cache returns vectors of another size: none of it may fail the
model's ``search_tools`` call (the run would stop). :class:`DenseFallback`
turns such a failure into "no embedding neighbours" and logs its cause at
WARNING the first time it is seen and at DEBUG after (credential-like text
redacted, see :mod:`langchain_toolsearch._failures`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from langchain_toolsearch._failures import describe

__all__ = ["DenseFallback"]

logger = logging.getLogger(__name__)

Neighbours = list[tuple[int, float]]
"""``(document position, similarity)`` pairs, best first."""


class DenseFallback:
    """Runs the embedding side of one index; a failure yields no neighbours (thread-safe).

    Args:
        source: What is embedding, for the log (e.g. the embeddings' class name).
        size: Most distinct causes remembered (count); a forgotten one is logged
            at WARNING again.
    """

    def __init__(self, source: str, *, size: int = 64) -> None:
        self.source = source
        self._size = size
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._lock = threading.Lock()

    def run(self, similar: Callable[[str], Neighbours], query: str) -> Neighbours:
        """``similar(query)``, or ``[]`` if it raises."""
        try:
            return similar(query)
        except Exception as exc:  # an outage of the model or store must not fail the search
            return self.failed(exc)

    async def arun(
        self, asimilar: Callable[[str], Awaitable[Neighbours]], query: str
    ) -> Neighbours:
        """``await asimilar(query)``, or ``[]`` if it raises."""
        try:
            return await asimilar(query)
        except Exception as exc:  # an outage of the model or store must not fail the search
            return self.failed(exc)

    def failed(self, exc: Exception) -> Neighbours:
        """Log ``exc`` (WARNING once per cause, then DEBUG); no neighbours."""
        cause = describe(exc)
        with self._lock:
            new = cause not in self._seen
            self._seen[cause] = None
            self._seen.move_to_end(cause)
            while len(self._seen) > self._size:
                self._seen.popitem(last=False)
        logger.log(
            logging.WARNING if new else logging.DEBUG,
            "tool search: the embedding side (%s) failed (%s): %s; ranking by BM25 alone",
            self.source,
            *cause,
        )
        return []
