"""PEP 562 lazy exports: a package's names imported from their modules on first use."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    namespace: dict[str, Any], modules: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a package whose ``modules`` map name -> module.

    ``namespace`` is the package's ``globals()``: a name, once imported, is put
    there, so the next lookup is a plain attribute. ``__getattr__`` raises
    ``AttributeError`` for any other name (what the import system expects).
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(importlib.import_module(module), name)
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *modules})

    return __getattr__, __dir__
