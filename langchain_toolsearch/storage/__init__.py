"""Where loaded tools live: the store protocol, the stores, and the ``storage=`` modes.

Users implement :class:`LoadedToolStore` (or use :class:`InMemoryLoadedToolStore`
or :class:`BaseStoreLoadedToolStore`) and pass it, or a mode of
:data:`STORAGE_MODES`, as ``storage=``. Modules: ``_strategy`` (the protocol and
one strategy per mode), ``_memory`` (``"in-memory"``), ``_store`` (``"store"``, the
run's reads, started-call records), ``_context`` (``"context"``: receipts, the
history memo, the graph-state keys).
"""

from __future__ import annotations

from langchain_toolsearch.storage._memory import InMemoryLoadedToolStore
from langchain_toolsearch.storage._store import BaseStoreLoadedToolStore
from langchain_toolsearch.storage._strategy import STORAGE_MODES, LoadedToolStore

__all__ = [
    "STORAGE_MODES",
    "BaseStoreLoadedToolStore",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
]
