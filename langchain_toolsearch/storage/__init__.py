"""Where loaded tools live: one strategy per ``storage=`` mode, and the graph-state keys.

* :mod:`.protocol`: the :class:`LoadedToolStore` protocol and :class:`StoreCall`.
* :mod:`.memory`: ``"in-memory"`` (per thread id, TTL).
* :mod:`.langgraph_store`: ``"store"`` (a LangGraph ``BaseStore``).
* :mod:`.receipts`: ``"context"`` (receipts in the message history).
* :mod:`.history`: a message history read once per step (:class:`HistoryMemo`).
* :mod:`.state_keys`: the graph-state keys and schemas.
* :mod:`.strategy`: the strategies and :func:`choose_storage`, the one place
  ``storage=`` is read.
"""

from __future__ import annotations

from langchain_toolsearch.storage.langgraph_store import BaseStoreLoadedToolStore
from langchain_toolsearch.storage.memory import InMemoryLoadedToolStore
from langchain_toolsearch.storage.protocol import LoadedToolStore, StoreCall
from langchain_toolsearch.storage.strategy import STORAGE_MODES, Storage, choose_storage

__all__ = [
    "STORAGE_MODES",
    "BaseStoreLoadedToolStore",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
    "Storage",
    "StoreCall",
    "choose_storage",
]
