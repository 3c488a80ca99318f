"""Engine-level helpers for tests that check a decision's full outcome (message, error).

They drive the private engine of a middleware or node on a scope built the
way a step builds it; behaviour tests use the public API instead.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _steps as load
from langchain_toolsearch import _steps as search
from langchain_toolsearch._effects import drive

Form = ToolSearchMiddleware | ToolSearchNode


def search_outcome(ts: Form, query: Any, config: RunnableConfig | None = None) -> Any:
    """The full ``search_tools`` outcome (results, message, error) for ``query``."""
    engine = ts._engine
    scope = engine.scopes.build(config or {}, {})
    return drive(engine._search(scope, query))


def load_outcome(
    ts: Form, args: dict[str, Any], config: RunnableConfig | None = None, state: Any = None
) -> tuple[Any, dict[str, Any]]:
    """The ``load_tool`` outcome and state update for ``args``."""
    engine = ts._engine
    scope = engine.scopes.build(config or {}, state if state is not None else {})
    return drive(load.load(engine.access, scope, args, None))


def activate_outcome(
    ts: Form, query: str, config: RunnableConfig | None = None, state: Any = None
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """Auto-load of ``query``'s hits: (outcome, state update, receipt)."""
    engine = ts._engine
    scope = engine.scopes.build(config or {}, state if state is not None else {})
    outcome = drive(engine._search(scope, query))
    activated, update = drive(load.activate(engine.access, scope, outcome, None))
    return activated, update, search.search_receipt(activated, auto_load=True)
