"""The seam between the configuration models and their Mastra Editor conversions.

`RuleGroup`, `AgentToolConfig` and `MCPClientConfig` offer ``from_mastra`` /
``to_mastra``, but the conversions (``mastra_rules``, ``mastra``) are built on
the models and on ``parsing``, so the models must not import them. Instead the
conversion modules register their functions here when imported, and the models
look them up here at call time: the imports go one way only (conversions ->
models -> this module). The first lookup imports the conversion modules, so
they register before any conversion runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from langchain_toolsearch.errors import ToolSearchUsageError

__all__ = ["exporter", "importer", "register"]

ModelT = TypeVar("ModelT")

_IMPORTERS: dict[type[Any], Callable[[Mapping[str, Any]], Any]] = {}
_EXPORTERS: dict[type[Any], Callable[[Any], dict[str, Any]]] = {}


def register(
    model: type[ModelT],
    *,
    from_mastra: Callable[[Mapping[str, Any]], ModelT],
    to_mastra: Callable[[ModelT], dict[str, Any]],
) -> None:
    """Make ``model.from_mastra`` / ``model.to_mastra`` call these functions.

    Called once per model by the conversion module that defines them, at import.
    """
    _IMPORTERS[model] = from_mastra
    _EXPORTERS[model] = to_mastra


def importer(model: type[ModelT]) -> Callable[[Mapping[str, Any]], ModelT]:
    """The registered Mastra -> ``model`` conversion.

    Raises:
        ToolSearchUsageError: If no conversion module registered one (it was not imported).
    """
    return cast("Callable[[Mapping[str, Any]], ModelT]", _lookup(_IMPORTERS, model))


def exporter(model: type[ModelT]) -> Callable[[ModelT], dict[str, Any]]:
    """The registered ``model`` -> Mastra conversion.

    Raises:
        ToolSearchUsageError: If no conversion module registered one (it was not imported).
    """
    return cast("Callable[[ModelT], dict[str, Any]]", _lookup(_EXPORTERS, model))


def _lookup(table: Mapping[type[Any], Any], model: type[Any]) -> Any:
    if model not in table:  # they register when imported (once per process)
        importlib.import_module("langchain_toolsearch.config.mastra")
    try:
        return table[model]
    except KeyError:
        msg = (
            f"no Mastra conversion is registered for {model.__name__}: import "
            "langchain_toolsearch.config.mastra (which registers them) first"
        )
        raise ToolSearchUsageError(msg) from None
