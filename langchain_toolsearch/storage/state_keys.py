"""The graph-state keys this package keeps, their reducer, and the state schemas.

* ``toolsearch_loaded``: loads of a run without a thread id (that run only).
* ``toolsearch_tools``: the node form writes the loaded names to bind this step.

None of them can be written by a run's input: in the middleware form they
are marked ``OmitFromInput``; in the node form compile the graph with
``StateGraph(ToolSearchState, input_schema=ToolSearchInput)``. Input schemas
do not cover every way in (``Command(update=...)`` on a resume, a copied
state), so entries are also signed by a :class:`StateSigner` of the instance
that wrote them, and unsigned or forged entries are ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware.types import AgentState, OmitFromInput, ResponseT
from langchain_core.messages import AnyMessage
from langgraph.graph import MessagesState

__all__ = [
    "LOADED_KEY",
    "TOOLS_KEY",
    "StateSigner",
    "ToolSearchAgentState",
    "ToolSearchInput",
    "ToolSearchState",
    "merge_loaded",
    "messages_of",
    "state_names",
    "state_value",
]

LOADED_KEY = "toolsearch_loaded"
"""Loads of a run without a thread id."""
TOOLS_KEY = "toolsearch_tools"
"""Node form: loaded tool names to bind this step."""


class StateSigner:
    """Signs tool names kept in graph state with a key of this process (HMAC-SHA256).

    An entry reads ``"<name>#<32 hex digits>"``. The key is made at construction
    and never leaves the process, so only the instance that wrote an entry can
    verify it: after a restart, earlier entries are ignored (fail closed).
    """

    def __init__(self) -> None:
        self._key = os.urandom(32)

    def sign(self, name: str) -> str:
        """``name`` with its signature appended."""
        raw = name.encode("utf-8", "surrogatepass")
        return f"{name}#{hmac.new(self._key, raw, hashlib.sha256).hexdigest()[:32]}"

    def sign_all(self, names: Iterable[str]) -> list[str]:
        """:meth:`sign` of each name, in order."""
        return [self.sign(n) for n in names]

    def verified(self, entries: Iterable[object]) -> list[str]:
        """The names of the entries this signer wrote, in order; anything else is dropped."""
        names: list[str] = []
        for entry in entries:
            if isinstance(entry, str):
                name = entry.rpartition("#")[0]
                if name and hmac.compare_digest(self.sign(name), entry):
                    names.append(name)
        return names


def merge_loaded(left: list[str] | None, right: list[str] | None) -> list[str]:
    """Reducer for ``toolsearch_loaded``: append names not yet present, in order."""
    merged = dict.fromkeys(left or [])
    merged.update(dict.fromkeys(right or []))
    return list(merged)


def state_value(state: Any, key: str) -> Any:
    """``state[key]`` of a dict or object state, else ``None``."""
    if isinstance(state, Mapping):
        return state.get(key)
    return getattr(state, key, None)


def state_names(state: Any, key: str) -> list[str]:
    """The strings of the list at ``state[key]`` (``[]`` if absent or malformed)."""
    value = state_value(state, key)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def messages_of(state: Any) -> list[AnyMessage]:
    """The ``messages`` of a graph state (dict or object), else ``[]``."""
    msgs = state_value(state, "messages")
    return list(msgs) if isinstance(msgs, list) else []


class ToolSearchAgentState(AgentState[ResponseT]):
    """Agent state with this package's keys; the run's input can set none of them."""

    toolsearch_loaded: NotRequired[Annotated[list[str], merge_loaded, OmitFromInput]]


class ToolSearchState(MessagesState):
    """``MessagesState`` plus the keys the node reads and writes.

    Compile with ``input_schema=ToolSearchInput`` so a run's input cannot set them.
    """

    toolsearch_loaded: NotRequired[Annotated[list[str], merge_loaded]]
    toolsearch_tools: NotRequired[list[str]]


class ToolSearchInput(MessagesState):
    """Input schema for a node graph: the messages only (``StateGraph(..., input_schema=...)``)."""
