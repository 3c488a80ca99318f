"""The pure core shared by the middleware and the node.

:class:`ToolSearchCore` owns the library, the index, the filter policy and
the loaded-tool state. Everything that needs a filter decision is written
once, as a generator that yields batches of
:class:`~langchain_toolsearch.types.ToolSearchFilterArgs` (see
:mod:`langchain_toolsearch.policy`); the sync and async shells only choose
the driver. Nothing here does I/O other than calling the user's filter.

Storage modes (``storage=``):

* ``"in-memory"``: loads live in an :class:`InMemoryLoadedToolStore` keyed
  by ``config["configurable"]["thread_id"]``; a run without a thread id
  keeps its loads in graph state (``toolsearch_loaded``), i.e. for that run
  only, never shared with other callers.
* ``"context"``: loads are derived from the message history alone: a tool is
  loaded while a successful ``load_tool`` receipt (or an auto-load activation
  receipt) for it answers a tool call the model really made. Receipts are
  re-checked with the filter (``load``, then ``active``).
* ``"store"``: loads live in the graph's LangGraph ``BaseStore`` (or the
  ``store=`` given to the constructor), one item per tool under
  ``("toolsearch", "loaded", <thread id>)`` (see
  :class:`~langchain_toolsearch.state.BaseStoreLoadedToolStore`); a run
  without a thread id keeps its loads in graph state, as in-memory does.
  Store I/O is yielded to the driver as a
  :class:`~langchain_toolsearch.state.StoreCall`, so the core stays pure.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Annotated, Any, Literal, NotRequired, TypedDict, TypeVar, cast

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.store.base import BaseStore

from langchain_toolsearch import _prompts as P
from langchain_toolsearch.library import LibraryTool, ToolLibrary, ToolsInput
from langchain_toolsearch.policy import Decisions, FilterFn, ToolPolicy, ask
from langchain_toolsearch.resolved import RequestTools, ResolveToolsFn
from langchain_toolsearch.search.index import (
    BM25ToolIndex,
    IndexOption,
    ToolDocument,
    ToolIndex,
    build_index,
)
from langchain_toolsearch.state import (
    BaseStoreLoadedToolStore,
    InMemoryLoadedToolStore,
    LoadedToolStore,
    StoreCall,
)
from langchain_toolsearch.types import FilterPhase, ToolSearchFilterArgs, ToolSearchResult

__all__ = [
    "AUTO_LOAD_RECEIPT_TYPE",
    "LOADED_KEY",
    "STORAGE_MODES",
    "LoadOutcome",
    "SearchOutcome",
    "StorageMode",
    "ToolSearchCore",
    "merge_loaded",
]

StorageMode = Literal["in-memory", "context", "store"]
STORAGE_MODES: tuple[str, ...] = ("in-memory", "context", "store")
LOADED_KEY = "toolsearch_loaded"
"""Graph-state key holding loads of runs without a thread id."""
AUTO_LOAD_RECEIPT_TYPE = "tool-search-auto-load"
logger = logging.getLogger(__name__)
MAX_QUERY_CHARS = 2000
_R = TypeVar("_R")
MAX_LOAD_NAMES = 64
_META_ARGS: dict[str, frozenset[str]] = {
    P.SEARCH_TOOL_NAME: frozenset({"query"}),
    P.LOAD_TOOL_NAME: frozenset({"tool_name", "tool_names"}),
}


def merge_loaded(left: list[str] | None, right: list[str] | None) -> list[str]:
    """Reducer for ``toolsearch_loaded``: append names not yet present, in order."""
    merged = dict.fromkeys(left or [])
    merged.update(dict.fromkeys(right or []))
    return list(merged)


class LoadedState(TypedDict):
    """Graph-state keys the tool search writes (mix into your state schema)."""

    toolsearch_loaded: NotRequired[Annotated[list[str], merge_loaded]]


@dataclass(frozen=True)
class SearchOutcome:
    """What ``search_tools`` did.

    Attributes:
        results: Allowed hits, best first.
        message: The model-facing message.
        loaded: Auto-load only: tools this call newly loaded.
        already_loaded: Auto-load only: hits that were loaded before.
        error: Whether the query was unusable (empty).
    """

    results: list[ToolSearchResult]
    message: str
    loaded: list[str] = field(default_factory=list)
    already_loaded: list[str] = field(default_factory=list)
    error: bool = False


@dataclass(frozen=True)
class LoadOutcome:
    """What ``load_tool`` did (``not_found`` includes denied names)."""

    success: bool
    message: str
    loaded: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    already_loaded: list[str] = field(default_factory=list)

    def receipt(self) -> dict[str, Any]:
        """The model-facing JSON shape (also the ToolMessage artifact)."""
        return {
            "success": self.success,
            "message": self.message,
            "loaded": self.loaded,
            "not_found": self.not_found,
            "already_loaded": self.already_loaded,
        }


def thread_id_of(config: RunnableConfig | Mapping[str, Any] | None) -> str | None:
    """The checkpointer's thread id of a run, or ``None``."""
    if not config:
        return None
    tid = (config.get("configurable") or {}).get("thread_id")
    return None if tid is None or tid == "" else str(tid)


def messages_of(state: Any) -> list[AnyMessage]:
    """The ``messages`` of a graph state (dict or object), else ``[]``."""
    msgs = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)
    return list(msgs) if isinstance(msgs, list) else []


def _state_loaded(state: Any) -> list[str]:
    value = (
        state.get(LOADED_KEY) if isinstance(state, Mapping) else getattr(state, LOADED_KEY, None)
    )
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _as_receipt(message: ToolMessage) -> Mapping[str, Any] | None:
    if isinstance(message.artifact, Mapping):
        return message.artifact
    if isinstance(message.content, str):
        try:
            parsed = json.loads(message.content)
        except ValueError:
            return None
        return parsed if isinstance(parsed, Mapping) else None
    return None


def _requested_names(args: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    if isinstance(args.get("tool_name"), str):
        names.append(args["tool_name"])
    if isinstance(args.get("tool_names"), list):
        names.extend(n for n in args["tool_names"] if isinstance(n, str))
    return names


def receipts_in(
    messages: Sequence[AnyMessage], resolve: Callable[[str], str | None] | None = None
) -> list[str]:
    """Tool names loaded by genuine receipts in ``messages``, in first-load order.

    A receipt counts only if it is a successful ``load_tool`` result (or an
    auto-load activation in a ``search_tools`` result) whose ``tool_call_id``
    answers a matching tool call of an earlier ``AIMessage``; a ``load_tool``
    receipt counts only for names that call asked for. Plain search results
    never count.

    Args:
        messages: The history.
        resolve: Maps a requested name (original or provider-safe) to the
            provider-safe name receipts list; identity if omitted.
    """
    calls: dict[str, ToolCall] = {}
    loaded: dict[str, None] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            for made in message.tool_calls:
                if made.get("id"):
                    calls[cast(str, made["id"])] = made
            continue
        if not isinstance(message, ToolMessage) or message.status == "error":
            continue
        answered = calls.get(message.tool_call_id)
        if answered is None or answered["name"] not in _META_ARGS:
            continue
        call = answered
        receipt = _as_receipt(message)
        if receipt is None:
            continue
        names: list[Any] = []
        if call["name"] == P.LOAD_TOOL_NAME and receipt.get("success") is True:
            requested = {
                (resolve(n) if resolve is not None else None) or n
                for n in _requested_names(call["args"])
            }
            names = [
                n
                for n in [*(receipt.get("loaded") or []), *(receipt.get("already_loaded") or [])]
                if n in requested
            ]
        elif call["name"] == P.SEARCH_TOOL_NAME:
            activation = receipt.get("activation")
            if isinstance(activation, Mapping) and activation.get("type") == AUTO_LOAD_RECEIPT_TYPE:
                names = list(activation.get("loaded") or [])
        loaded.update(dict.fromkeys(n for n in names if isinstance(n, str)))
    return list(loaded)


def _validate_options(
    *,
    top_k: object,
    min_score: object,
    auto_load: object,
    storage: object,
    ttl: object,
) -> None:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError(f"top_k must be an int >= 1, got {top_k!r}")
    if (
        isinstance(min_score, bool)
        or not isinstance(min_score, int | float)
        or not 0.0 <= float(min_score) < 1.0
    ):
        raise ValueError(f"min_score must be a number in [0, 1), got {min_score!r}")
    if not isinstance(auto_load, bool):
        raise ValueError(f"auto_load must be True or False, got {auto_load!r}")
    if storage not in STORAGE_MODES:
        raise ValueError(
            f"unknown storage {storage!r}; use one of {', '.join(map(repr, STORAGE_MODES))}"
        )
    if (
        isinstance(ttl, bool)
        or not isinstance(ttl, int | float)
        or ttl < 0
        or not math.isfinite(float(ttl))
    ):
        raise ValueError(f"ttl must be seconds >= 0 (0 disables expiry), got {ttl!r}")


class ToolSearchCore:
    """Search, load, bind and guard: the logic behind the middleware and the node.

    Args:
        tools: The searchable library (sequence or mapping id -> tool).
        top_k: Most hits per search (count).
        min_score: Relevance floor in ``[0, 1)``; hits with ``score <= min_score``
            are dropped.
        auto_load: ``search_tools`` loads its hits; ``load_tool`` is not exposed.
        storage: ``"in-memory"``, ``"context"`` or ``"store"``.
        ttl: Seconds an idle thread's in-memory state lives; 0 disables expiry.
        filter: The filter hook (see :mod:`langchain_toolsearch.policy`).
        include_resolved_tools: Index tools resolved per request (``resolve_tools``,
            ``config["configurable"]["toolsearch_resolve_tools"]``, tools bound
            directly) and withhold them from the prompt until loaded.
        resolve_tools: Builds a request's tools from its ``RunnableConfig``
            (sync or async); needs ``include_resolved_tools=True``.
        clock: Epoch-seconds clock for the in-memory TTL (tests inject one).
        index: The index (see :data:`~langchain_toolsearch.search.index.IndexOption`):
            ``None`` for BM25, a built :class:`ToolIndex`, or a factory over
            the documents (also used for tools resolved per request).
        store: ``storage="store"`` only: the LangGraph store to keep loads in,
            used instead of the graph's store.

    Raises:
        ValueError: On a bad option value, duplicate or reserved tool names.
        TypeError: On tools that are not tools, or a filter that is not callable.
    """

    def __init__(
        self,
        *,
        tools: ToolsInput,
        top_k: int = 5,
        min_score: float = 0.0,
        auto_load: bool = False,
        storage: StorageMode = "in-memory",
        ttl: float = 3600.0,
        filter: FilterFn | None = None,
        include_resolved_tools: bool = False,
        resolve_tools: ResolveToolsFn | None = None,
        clock: Callable[[], float] | None = None,
        index: IndexOption | None = None,
        store: BaseStore | None = None,
    ) -> None:
        _validate_options(
            top_k=top_k, min_score=min_score, auto_load=auto_load, storage=storage, ttl=ttl
        )
        _validate_store(storage, store)
        self.library = ToolLibrary(tools)
        self.top_k = top_k
        self.min_score = float(min_score)
        self.auto_load = auto_load
        self.storage: StorageMode = storage
        self.include_resolved_tools = include_resolved_tools
        if resolve_tools is not None and not include_resolved_tools:
            raise ValueError(
                "resolve_tools is set but include_resolved_tools is False; set "
                "include_resolved_tools=True to index the tools it returns"
            )
        if resolve_tools is not None and not callable(resolve_tools):
            raise TypeError("resolve_tools must be a callable (RunnableConfig) -> list of tools")
        self.requests: RequestTools | None = (
            RequestTools(self, resolve_tools) if include_resolved_tools else None
        )
        """Per-request tool resolution (``None`` unless ``include_resolved_tools``)."""
        self.policy = ToolPolicy(filter)
        self.index: ToolIndex = build_index(index, self.library.documents())
        self.index_factory: Callable[[Sequence[ToolDocument]], ToolIndex] = (
            index if callable(index) and not isinstance(index, ToolIndex) else BM25ToolIndex.build
        )
        """Builds indexes of per-request tools: the ``index`` factory, else BM25."""
        self.state_ready: Callable[[Any], bool] = _always_ready
        """Whether the graph state can carry this package's keys (the node checks its
        schema; the middleware's schema always has them). Loads are refused otherwise."""
        store_kwargs: dict[str, Any] = {"ttl": float(ttl)}
        if clock is not None:
            store_kwargs["clock"] = clock
        self.store = InMemoryLoadedToolStore(**store_kwargs)
        self.langgraph_store: BaseStore | None = store
        """``storage="store"``: the explicit store (wins over the graph's store)."""

    # -- texts -----------------------------------------------------------------

    @property
    def system_hint(self) -> str:
        """The short system-prompt hint for the configured flow."""
        return P.SYSTEM_HINT_ONE_STEP if self.auto_load else P.SYSTEM_HINT_TWO_STEP

    @property
    def meta_tool_names(self) -> tuple[str, ...]:
        """The meta tools exposed to the model, in binding order."""
        if self.auto_load:
            return (P.SEARCH_TOOL_NAME,)
        return (P.SEARCH_TOOL_NAME, P.LOAD_TOOL_NAME)

    # -- filter helpers ----------------------------------------------------------

    def _args(
        self, entry: LibraryTool, config: RunnableConfig, phase: FilterPhase
    ) -> ToolSearchFilterArgs:
        return ToolSearchFilterArgs(
            tool_name=entry.name, tool=entry.tool, config=config, phase=phase
        )

    def _allowed(
        self, entries: Sequence[LibraryTool], config: RunnableConfig, phase: FilterPhase
    ) -> Decisions[list[LibraryTool]]:
        if not entries or not self.policy.enabled:
            return list(entries)
        verdicts = yield [self._args(e, config, phase) for e in entries]
        return [e for e, ok in zip(entries, verdicts, strict=True) if ok]

    # -- search ------------------------------------------------------------------------

    def search(self, query: object, config: RunnableConfig) -> Decisions[SearchOutcome]:
        """Rank the library for ``query``; denied hits do not use up ``top_k``.

        Denied means phase ``search``, and with ``auto_load`` also phase ``load``.
        """
        if not isinstance(query, str) or not query.strip():
            return SearchOutcome(results=[], message=P.SEARCH_EMPTY_QUERY, error=True)
        note = ""
        if len(query) > MAX_QUERY_CHARS:
            query = query[:MAX_QUERY_CHARS]
            note = " " + P.SEARCH_QUERY_TOO_LONG.format(limit=MAX_QUERY_CHARS)
        ranked = self.index.rank(query)
        results: list[ToolSearchResult] = []
        exhausted = False
        while len(results) < self.top_k and not exhausted:
            want = self.top_k - len(results)
            batch: list[tuple[LibraryTool, float, float]] = []
            for hit in ranked:
                # compare the score as reported (4 decimals): no shown score <= min_score
                if round(hit.score, 4) <= self.min_score:
                    exhausted = True
                    break
                entry = self.library.get(hit.name)
                if entry is not None:
                    batch.append((entry, hit.score, hit.raw_score))
                if len(batch) >= want:
                    break
            else:
                exhausted = True
            allowed = yield from self._allowed([b[0] for b in batch], config, "search")
            if self.auto_load:  # every hit shown is loaded: load-denied hits are not hits
                allowed = yield from self._allowed(allowed, config, "load")
            keep = {e.name for e in allowed}
            results.extend(
                ToolSearchResult(
                    name=e.name,
                    description=e.short_description(),
                    score=round(score, 4),
                    raw_score=raw,
                )
                for e, score, raw in batch
                if e.name in keep
            )
        if not results:
            return SearchOutcome(
                results=[], message=P.SEARCH_NO_RESULTS.format(query=query[:100]) + note
            )
        followup = P.SEARCH_FOUND_FOLLOWUP_AUTO if self.auto_load else P.SEARCH_FOUND_FOLLOWUP_LOAD
        message = P.SEARCH_FOUND.format(count=len(results), followup=followup) + note
        return SearchOutcome(results=results, message=message)

    # -- loaded state ---------------------------------------------------------------------

    def backend(self, store: BaseStore | None = None) -> LoadedToolStore | None:
        """The per-thread store for a run (``None``: ``"context"``, or no LangGraph store).

        Args:
            store: The graph's LangGraph store for this run; the constructor's
                ``store=`` wins over it.
        """
        if self.storage == "in-memory":
            return self.store
        chosen = self.langgraph_store if self.langgraph_store is not None else store
        if self.storage == "store" and chosen is not None:
            return BaseStoreLoadedToolStore(chosen)
        return None

    def check_store(self, config: RunnableConfig, store: BaseStore | None) -> None:
        """Raise if ``storage="store"`` needs a LangGraph store this run does not have.

        Raises:
            ValueError: Saying where to pass a store.
        """
        if (
            self.storage == "store"
            and thread_id_of(config) is not None
            and self.backend(store) is None
        ):
            raise ValueError(
                'storage="store" keeps loaded tools in a LangGraph store, but this graph has '
                "none: compile it with one (create_agent(..., store=InMemoryStore()) or "
                "builder.compile(store=...); PostgresStore at scale) or pass store=... to "
                "the tool search"
            )

    def loaded_names(
        self, config: RunnableConfig, state: Any, store: BaseStore | None = None
    ) -> Decisions[list[str]]:
        """Loaded tool names for this run, in load order, before the ``active`` filter.

        ``"context"`` receipts are not filter-checked here; :meth:`active_tools`
        re-checks them. ``store`` is the graph's LangGraph store (``"store"`` mode).
        """
        tid = thread_id_of(config)
        backend = self.backend(store)
        if self.storage == "context":
            names = receipts_in(messages_of(state), self.library.resolve)
        elif tid is None:
            names = _state_loaded(state)
        elif backend is None:
            names = []  # "store" without a store: nothing can be loaded (check_store)
        else:
            names = yield from ask(StoreCall(partial(backend.get, tid), partial(backend.aget, tid)))
        return [n for n in names if n in self.library]

    def _unstorable(self, config: RunnableConfig, state: Any, store: BaseStore | None) -> str:
        """Why loads cannot be stored for this run (model-facing), or ``""``."""
        to_state = self.storage != "context" and thread_id_of(config) is None
        if to_state and not self.state_ready(state):
            logger.warning(
                "tool search: a run without a thread id cannot keep loads because the graph "
                "state has no 'toolsearch_loaded' key; use ToolSearchState (node) or pass a "
                "thread id"
            )
            return P.LOAD_NOT_PERSISTED
        if self.storage == "store" and thread_id_of(config) and self.backend(store) is None:
            return P.LOAD_NO_STORE
        return ""

    def _record(
        self,
        config: RunnableConfig,
        names: list[str],
        origin: str | None,
        store: BaseStore | None,
    ) -> Decisions[dict[str, Any]]:
        """Store loads; return the graph-state update that carries them (if any)."""
        if self.storage == "context" or not names:
            return {}  # the receipt in the ToolMessage is the record
        tid = thread_id_of(config)
        backend = self.backend(store)
        if tid is None:
            return {LOADED_KEY: list(names)}
        assert backend is not None  # _unstorable() refused the load otherwise
        yield from ask(
            StoreCall(
                partial(backend.add, tid, names, origin=origin),
                partial(backend.aadd, tid, names, origin=origin),
            )
        )
        return {}

    def active_tools(
        self, config: RunnableConfig, state: Any, *, store: BaseStore | None = None
    ) -> Decisions[list[LibraryTool]]:
        """Loaded tools to bind for this request, in load order, filter-checked."""
        names = yield from self.loaded_names(config, state, store)
        return (yield from self._usable([e for n in names if (e := self.library.get(n))], config))

    def _usable(
        self, entries: Sequence[LibraryTool], config: RunnableConfig
    ) -> Decisions[list[LibraryTool]]:
        """Loaded ``entries`` this request may use (context receipts re-checked at ``load``)."""
        if self.storage == "context":
            entries = yield from self._allowed(entries, config, "load")
        return (yield from self._allowed(entries, config, "active"))

    # -- load ------------------------------------------------------------------------------

    def load(
        self,
        args: Mapping[str, Any],
        config: RunnableConfig,
        state: Any,
        call_id: str | None = None,
        *,
        store: BaseStore | None = None,
    ) -> Decisions[tuple[LoadOutcome, dict[str, Any]]]:
        """Run ``load_tool``: returns the outcome and the graph-state update to apply.

        ``call_id`` is the ``load_tool`` call's id (tools it loads cannot run in
        the same model step).
        """
        tool_name = args.get("tool_name")
        tool_names = args.get("tool_names")
        if tool_names is not None and len(tool_names) == 0:
            return LoadOutcome(success=False, message=P.LOAD_EMPTY_LIST), {}
        requested = list(dict.fromkeys(_requested_names(args)))
        if not requested:
            return LoadOutcome(success=False, message=P.LOAD_NO_NAMES), {}
        if len(requested) > MAX_LOAD_NAMES:
            msg = P.LOAD_TOO_MANY.format(count=len(requested), limit=MAX_LOAD_NAMES)
            return LoadOutcome(success=False, message=msg), {}
        del tool_name
        known = [(n, self.library.get(n)) for n in requested]
        candidates = [e for _, e in known if e is not None]
        allowed = yield from self._allowed(candidates, config, "load")
        # a tool this request could not call is not offered as loaded (no load/refuse loop)
        allowed = yield from self._allowed(allowed, config, "active")
        allowed_names = {e.name for e in allowed}
        not_found = [n for n, e in known if e is None or e.name not in allowed_names]
        resolved = list(dict.fromkeys(e.name for _, e in known if e and e.name in allowed_names))
        current = set((yield from self.loaded_names(config, state, store)))
        already = [n for n in resolved if n in current]
        fresh = [n for n in resolved if n not in current]
        unstorable = self._unstorable(config, state, store) if fresh else ""
        if unstorable:
            return LoadOutcome(success=False, message=unstorable), {}
        update = yield from self._record(config, fresh, call_id, store)
        parts: list[str] = []
        if fresh:
            parts.append(P.LOAD_LOADED.format(names=", ".join(fresh)))
        if already:
            parts.append(P.LOAD_ALREADY.format(names=", ".join(already)))
        if not_found:
            text = P.LOAD_NOT_FOUND.format(names=", ".join(not_found))
            suggestions = yield from self._suggestions(not_found, config)
            if suggestions:
                text += P.LOAD_SUGGEST.format(names=", ".join(suggestions))
            text += P.LOAD_SEARCH_HINT
            parts.append(text)
        outcome = LoadOutcome(
            success=bool(resolved),
            message=" ".join(parts),
            loaded=fresh,
            not_found=not_found,
            already_loaded=already,
        )
        return outcome, update

    def _suggestions(self, missing: Sequence[str], config: RunnableConfig) -> Decisions[list[str]]:
        refused = {r for m in missing if (r := self.library.resolve(m))} | set(missing)
        names: dict[str, None] = {}
        for m in missing:
            names.update(dict.fromkeys(self.library.suggest(m)))
        entries = [e for n in names if (e := self.library.get(n)) and e.name not in refused]
        for phase in ("search", "load", "active"):  # only names the model could really use
            entries = yield from self._allowed(entries, config, phase)
        return [e.name for e in entries][:5]

    def activate(
        self,
        outcome: SearchOutcome,
        config: RunnableConfig,
        state: Any,
        call_id: str | None = None,
        *,
        store: BaseStore | None = None,
    ) -> Decisions[tuple[SearchOutcome, dict[str, Any]]]:
        """Load a search's hits (phase ``load``) and add the activation receipt."""
        entries = [e for r in outcome.results if (e := self.library.get(r.name))]
        allowed = yield from self._allowed(entries, config, "load")
        allowed_names = [e.name for e in allowed]
        current = set((yield from self.loaded_names(config, state, store)))
        already = [n for n in allowed_names if n in current]
        fresh = [n for n in allowed_names if n not in current]
        unstored = self._unstorable(config, state, store) if fresh else ""
        if unstored:
            fresh, unstored = [], " " + unstored
        update = yield from self._record(config, fresh, call_id, store)
        message = (
            outcome.message
            + P.SEARCH_FOUND_AUTO_DETAIL.format(
                loaded=", ".join(fresh) or "none", already=", ".join(already) or "none"
            )
            + unstored
        )
        return (
            SearchOutcome(
                results=outcome.results,
                message=message,
                loaded=fresh,
                already_loaded=already,
            ),
            update,
        )

    def search_receipt(self, outcome: SearchOutcome) -> dict[str, Any]:
        """The model-facing JSON shape of a search (also the ToolMessage artifact)."""
        body: dict[str, Any] = {
            "results": [r.to_dict() for r in outcome.results],
            "message": outcome.message,
        }
        if self.auto_load and not outcome.error:
            body["activation"] = {
                "type": AUTO_LOAD_RECEIPT_TYPE,
                "version": 1,
                "loaded": [*outcome.loaded, *outcome.already_loaded],
            }
        return body

    # -- binding ----------------------------------------------------------------------------

    def check_direct_tools(
        self, direct: Sequence[BaseTool | Mapping[str, Any]], meta: Sequence[BaseTool]
    ) -> None:
        """Raise if a tool bound directly on the agent clashes with the library or meta tools.

        Args:
            direct: Tools bound on the agent (may include ``meta`` itself).
            meta: This instance's meta tools (compared by identity).

        Raises:
            ValueError: Naming the clashing tools and what to change.
        """
        others = [t for t in direct if not any(t is m for m in meta)]
        reserved = sorted(n for t in others if (n := _tool_name(t)) in P.META_TOOL_NAMES)
        if reserved:
            raise ValueError(
                f"a tool bound on the agent is named {reserved}, which is reserved for the "
                "tool-search meta tools; rename it (or use a single ToolSearchMiddleware)"
            )
        clash = sorted(
            n for t in others if (n := _tool_name(t)) is not None and self.library.get(n)
        )
        if clash:
            raise ValueError(
                f"tools {clash} are both bound directly on the agent and in the tool-search "
                "library; a tool must be in one of the two (remove it from the agent's tools "
                "or from the library passed as tools=...)"
            )

    @staticmethod
    def order_tools(
        meta: Sequence[BaseTool],
        direct: Sequence[BaseTool | Mapping[str, Any]],
        loaded: Sequence[LibraryTool],
    ) -> list[BaseTool | dict[str, Any]]:
        """Binding order: meta tools, tools bound directly, then loaded tools in load order."""
        out: list[BaseTool | dict[str, Any]] = list(meta)
        out.extend(
            t if isinstance(t, BaseTool) else dict(t)
            for t in direct
            if not any(t is m for m in meta)
        )
        out.extend(e.tool for e in loaded)
        return out

    # -- execution guard -------------------------------------------------------------------------

    def guard(
        self,
        call: ToolCall,
        config: RunnableConfig,
        state: Any,
        *,
        registered: bool,
        store: BaseStore | None = None,
    ) -> Decisions[LibraryTool | ToolMessage | None]:
        """Decide whether a tool call may run.

        Args:
            call: The model's tool call.
            config: The run's config.
            state: The graph state.
            registered: Whether the tool node knows a tool of that name
                (meta tools and tools bound directly).
            store: The graph's LangGraph store (``"store"`` mode).

        Returns:
            ``None`` to run the registered tool as is, a :class:`LibraryTool`
            to run instead, or an error :class:`ToolMessage` to answer with.
        """
        name = call["name"]
        call_id = call.get("id") or ""
        if name in _META_ARGS and registered:
            extra = sorted(set(call.get("args") or {}) - _META_ARGS[name])
            if extra:
                detail = f"unexpected argument(s) {extra}; " + (
                    "expected query (string)"
                    if name == P.SEARCH_TOOL_NAME
                    else "expected tool_name (string) or tool_names (list of strings)"
                )
                return _error(P.ARGUMENT_ERROR.format(tool=name, detail=detail), call_id, name)
            return None
        missing = P.TOOL_NOT_LOADED_AUTO if self.auto_load else P.TOOL_NOT_LOADED
        entry = self.library.get(name)
        if entry is None:
            if registered:
                return None
            return _error(missing, call_id, name)
        loaded = yield from self.loaded_names(config, state, store)
        if entry.name not in loaded:
            return _error(missing, call_id, name)
        if not (yield from self._usable([entry], config)):  # only the called tool is checked
            return _error(missing, call_id, name)
        if (yield from self._loaded_in_same_step(entry.name, call, config, state, store)):
            return _error(P.TOOL_LOADED_THIS_STEP, call_id, name)
        return entry

    def _loaded_in_same_step(
        self,
        name: str,
        call: ToolCall,
        config: RunnableConfig,
        state: Any,
        store: BaseStore | None,
    ) -> Decisions[bool]:
        """Whether ``name`` was loaded by a call of the same ``AIMessage`` as ``call``.

        Sibling calls run concurrently, so without this check a tool loaded and
        called in one step would run or not depending on timing. Graph-state and
        context storage only see the load after the step, so they need no check.
        """
        tid = thread_id_of(config)
        backend = self.backend(store)
        if self.storage == "context" or tid is None or backend is None:
            return False
        origin = yield from ask(
            StoreCall(partial(backend.origin, tid, name), partial(backend.aorigin, tid, name))
        )
        if origin is None:
            return False
        for message in reversed(messages_of(state)):
            if isinstance(message, AIMessage) and any(
                c.get("id") == call.get("id") for c in message.tool_calls
            ):
                return any(c.get("id") == origin for c in message.tool_calls)
        return False

    @staticmethod
    def finish(result: _R, call: ToolCall) -> _R:
        """Make sure a failed tool's error message is never empty."""
        if isinstance(result, ToolMessage) and result.status == "error":
            text = result.content if isinstance(result.content, str) else str(result.content)
            stripped = text.strip()
            if not stripped or stripped.rstrip(".:") in {"Error", "Error:"}:
                return result.model_copy(
                    update={"content": P.TOOL_FAILED_NO_TEXT.format(name=call["name"])}
                )
        return result


def _always_ready(state: Any) -> bool:
    return True


def _validate_store(storage: object, store: object) -> None:
    if store is None:
        return
    if storage != "store":
        raise ValueError(
            f'store=... is only used with storage="store" (got storage={storage!r}); '
            'pass storage="store" or drop store='
        )
    if not isinstance(store, BaseStore):
        raise TypeError(
            "store must be a LangGraph BaseStore (e.g. InMemoryStore, PostgresStore), "
            f"got {type(store)!r}"
        )


def _tool_name(tool: BaseTool | Mapping[str, Any]) -> str | None:
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        fn = tool.get("function")
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            return cast(str, fn["name"])
        name = tool.get("name")
        return name if isinstance(name, str) else None
    return None


def _error(text: str, call_id: str, name: str) -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call_id, name=name, status="error")
