"""Store effects of the loads: a failure raised as the loaded-tool store's own error."""

from __future__ import annotations

from typing import Any

from langchain_toolsearch._effects import Effect
from langchain_toolsearch._support import describe

__all__ = ["_LoadsStoreError", "_store_effect"]


class _LoadsStoreError(Exception):
    """The store that keeps a thread's loads failed (its cause is ``__cause__``).

    Not a ``ToolSearchError``: an outage, answered to the model as one (the
    tool index itself is fine). The message names the cause's type and its text, redacted.
    """


def _failed(exc: Exception) -> _LoadsStoreError:
    return _LoadsStoreError("the loaded-tool store failed: " + ": ".join(describe(exc)))


def _store_effect(effect: Effect[Any]) -> Effect[Any]:
    """``effect`` with a failure raised as :class:`_LoadsStoreError` from its cause."""

    def run() -> Any:
        try:
            return effect.run()
        except Exception as exc:
            raise _failed(exc) from exc

    async def arun() -> Any:
        try:
            return await effect.arun()
        except Exception as exc:
            raise _failed(exc) from exc

    return Effect(run, arun)
