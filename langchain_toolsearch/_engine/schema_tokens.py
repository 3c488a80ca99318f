"""The estimated prompt tokens a bound tool costs, measured once per live tool.

``estimate_tokens`` of the JSON of its OpenAI-format definition (name and description
alone if it cannot be converted).
"""

from __future__ import annotations

import json

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch._engine.listing import estimate_tokens
from langchain_toolsearch._internal.weakmemo import WeakIdentityMap

__all__ = ["schema_tokens"]

_COSTS: WeakIdentityMap[int] = WeakIdentityMap(size=20_000)


def schema_tokens(tool: BaseTool) -> int:
    """Estimated tokens of ``tool``'s bound definition (>= 1)."""
    known = _COSTS.get(tool)
    if known is not None:
        return known
    try:
        text = json.dumps(convert_to_openai_tool(tool), sort_keys=True, default=str)
    except Exception:  # an unconvertible schema: it is not bound (binding.Bindable)
        text = f"{tool.name} {tool.description or ''}"
    cost = max(1, estimate_tokens(text))
    _COSTS.put(tool, cost)
    return cost
