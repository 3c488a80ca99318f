"""What the middleware and the node share: the engine, the meta tools, the tool-call wrapper.

Each step builds one ``RequestScope`` from its own inputs; nothing of a request is kept.
:func:`build_meta_tools` makes ``search_tools`` and ``load_tool``;
:func:`wrap_tool_call` / :func:`awrap_tool_call` guard one tool call (the guard, the
started-call records, output bounds).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from datetime import timedelta
from functools import cache, partial
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.tools.base import ArgsSchema
from langgraph.config import get_config, get_store
from langgraph.prebuilt import ToolRuntime
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import get_runtime
from langgraph.store.base import BaseStore
from langgraph.types import Command
from pydantic import BaseModel, model_validator
from pydantic.json_schema import SkipJsonSchema

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Attached, Effect, Logic, adrive, attached, drive
from langchain_toolsearch._engine import Engine, ThreadState
from langchain_toolsearch._guard import (
    CURRENT_STEP,
    NEEDS_SCOPE,
    StepCalls,
    error_message,
    finish,
    shape_error,
)
from langchain_toolsearch._learning import succeeded
from langchain_toolsearch._library import ToolLibrary, ToolsInput
from langchain_toolsearch._modes import call_tool, references, unwrap
from langchain_toolsearch._options import (
    DEFAULT_CATALOG_MAX_TOKENS,
    KeywordOptions,
    Mode,
    NativeProvider,
    StorageOption,
    ToolSearchOptions,
)
from langchain_toolsearch._prompts import CALL_OUTCOME_UNKNOWN, META_TOOL_NAMES, model_content
from langchain_toolsearch._prompts import model_text as _text
from langchain_toolsearch._scope import RequestScope, thread_id_of
from langchain_toolsearch._steps import query_list
from langchain_toolsearch._support import bound_result, count
from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchTypeError,
    ToolSearchWiringError,
)
from langchain_toolsearch.search import IndexOption, ToolIndex
from langchain_toolsearch.storage._context import messages_of, parse_names
from langchain_toolsearch.storage._store import (
    TOOL_STEP,
    StartedCalls,
    StoreStartedCalls,
    idempotent,
    started_calls,
)
from langchain_toolsearch.types import (
    FilterFn,
    Learning,
    OnError,
    ResolveToolsFn,
    ToolSearchResult,
)

# -- meta_tools: The meta tools the model calls: ``search_tools`` and ``load_tool``.

AnyRuntime = ToolRuntime[Any, Any]
"""The runtime the meta tools take: any context type, so pydantic never prints a context."""

Answer = tuple[dict[str, Any], bool, dict[str, Any]]
"""An engine step's answer: (receipt, is error, graph-state update)."""
Step = Callable[[RequestScope, dict[str, Any], "str | None"], Logic[Answer]]


def _command(
    name: str, runtime: ToolRuntime, result: Answer, *, native: bool = False
) -> Command[Any]:
    body, error, update = result
    refs = references(body) if native and not error else []
    message = ToolMessage(
        content=refs or json.dumps(body, ensure_ascii=False),
        artifact=body,
        tool_call_id=runtime.tool_call_id or "",
        name=name,
        status="error" if error else "success",
    )
    return Command(update={"messages": [message], **update})


def _search_signature(
    runtime: AnyRuntime,
    query: str | SkipJsonSchema[None] = None,
    queries: list[str] | SkipJsonSchema[None] = None,
) -> None:
    """Search the tool library.

    Args:
        runtime: Injected by LangGraph.
        query: Keywords for the capability you need, e.g. "create github issue".
        queries: Several needs at once, keywords for each, e.g. ["find a route", "book a table"].
    """


def _load_signature(
    runtime: AnyRuntime,
    tool_name: str | SkipJsonSchema[None] = None,
    tool_names: list[str] | SkipJsonSchema[None] = None,
) -> None:
    """Load tools found with search_tools.

    Args:
        runtime: Injected by LangGraph.
        tool_name: One tool name from search_tools results.
        tool_names: Several tool names from search_tools results.
    """


def _names_form(data: Any) -> Any:
    """``load_tool`` arguments with every shape of "one or more names" made plain (or refused)."""
    if not isinstance(data, dict):
        return data
    one, many = data.get("tool_name"), data.get("tool_names")
    names: list[str] = []
    for value in (one, many):
        parsed = parse_names(value) if value is not None else []
        if parsed is None:
            raise ValueError(P.LOAD_BAD_FORM)
        names.extend(parsed)
    if many is None and isinstance(one, str) and len(names) == 1:
        return {**data, "tool_name": names[0]}
    if one is None and many is None:
        return data
    return {**data, "tool_name": None, "tool_names": names}


def _queries_form(data: Any) -> Any:
    """``search_tools`` arguments with every shape of "one or more queries" made plain."""
    if not isinstance(data, dict):
        return data
    one, many = data.get("query"), data.get("queries")
    plain_one = one is None or (isinstance(one, str) and not one.strip().startswith("["))
    if plain_one and (many is None or isinstance(many, list)):
        return data  # the schema's own shapes
    found = query_list(one, many)
    if found is None:
        raise ValueError(P.SEARCH_BAD_FORM)
    return {**data, "query": None, "queries": found}  # empty or too many: the engine answers


@cache
def _args_schema(signature: Callable[..., None]) -> ArgsSchema:
    """The input schema of a meta tool, built once per process."""
    schema = StructuredTool.from_function(
        func=signature, name=signature.__name__, description="-", parse_docstring=True
    ).args_schema
    assert isinstance(schema, type) and issubclass(schema, BaseModel)
    form = _names_form if signature is _load_signature else _queries_form

    class MetaToolArgs(schema):  # type: ignore[valid-type,misc]
        __doc__ = schema.__doc__
        _form = model_validator(mode="before")(form)

    MetaToolArgs.__name__ = schema.__name__
    # never dumped: LangChain validates then dumps a tool's input per call, and a dumped
    # ToolRuntime copies the whole graph state (quadratic in one message's calls);
    # LangChain passes an injected argument missing from the dump as it came
    MetaToolArgs.model_fields["runtime"].exclude = True
    MetaToolArgs.model_rebuild(force=True)
    return MetaToolArgs


def _tool(
    engine: Engine,
    step: Step,
    name: str,
    description: str,
    signature: Callable[..., None],
    scope_of: Callable[[ToolRuntime], Logic[RequestScope]],
) -> BaseTool:
    """A meta tool over one engine step, run on the request's own scope in both flavours."""
    native = engine.options.provider is not None and name == P.SEARCH_TOOL_NAME

    def logic(runtime: ToolRuntime, args: dict[str, Any]) -> Logic[Any]:
        scope = yield from scope_of(runtime)
        return (yield from step(scope, args, runtime.tool_call_id))

    def run(runtime: ToolRuntime, **args: Any) -> Command[Any]:
        return _command(name, runtime, drive(logic(runtime, args)), native=native)

    async def arun(runtime: ToolRuntime, **args: Any) -> Command[Any]:
        return _command(name, runtime, await adrive(logic(runtime, args)), native=native)

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=description,
        args_schema=_args_schema(signature),
        metadata={"toolsearch_meta": True},
    )


def build_meta_tools(
    engine: Engine,
    scope_of: Callable[[ToolRuntime], Logic[RequestScope]],
) -> list[BaseTool]:
    """The meta tools in binding order (no ``load_tool`` with auto-load; ``call_tool`` if stable).

    Args:
        engine: The engine answering them.
        scope_of: A tool step's request scope from its ``ToolRuntime``, as logic.
    """
    auto = engine.options.auto_load
    followup = P.SEARCH_FOLLOWUP_AUTO if auto else P.SEARCH_FOLLOWUP_LOAD
    description = (
        P.SEARCH_TOOL_DESCRIPTION_NATIVE
        if engine.options.provider
        else P.SEARCH_TOOL_DESCRIPTION.format(followup=followup)
    )
    search_step, search_name = engine.search_step, P.SEARCH_TOOL_NAME
    search = _tool(engine, search_step, search_name, description, _search_signature, scope_of)
    tools = [search]
    if not auto:
        load_description = P.LOAD_TOOL_DESCRIPTION
        load_step, load_name = engine.load_step, P.LOAD_TOOL_NAME
        tools.append(
            _tool(engine, load_step, load_name, load_description, _load_signature, scope_of)
        )
    return [*tools, call_tool()] if engine.stable else tools


# -- shell: What the middleware and the node share: the engine, the meta tools, the public helpers.


def current_config() -> RunnableConfig:
    """The running graph's config, or ``{}`` outside a run."""
    try:
        return get_config()
    except RuntimeError:
        return {}


def current_store() -> BaseStore | None:
    """The running graph's LangGraph store (``compile(store=...)``), or ``None``."""
    try:
        return get_store()
    except (RuntimeError, KeyError):  # outside a graph run
        return None


def current_context() -> Any:
    """The running graph's context (``invoke(..., context=...)``), or ``None``."""
    try:
        runtime = get_runtime()
    except (RuntimeError, KeyError):  # outside a graph run
        return None
    return getattr(runtime, "context", None)


class ToolSearchBase(ThreadState, KeywordOptions):
    """The constructor, engine, meta tools and state helpers of the middleware and the node."""

    def __init__(
        self,
        *,
        tools: ToolsInput | ToolLibrary | None = None,
        bound_tools: Sequence[BaseTool] = (),
        top_k: int = 5,
        min_score: float = 0.0,
        auto_load: bool = False,
        storage: StorageOption = "in-memory",
        ttl: float | timedelta | None = None,
        filter: FilterFn | None = None,
        include_resolved_tools: bool = False,
        resolve_tools: ResolveToolsFn | None = None,
        system_hint: bool = True,
        store: BaseStore | None = None,
        index: IndexOption | None = None,
        filter_timeout: float | timedelta = 10.0,
        resolve_timeout: float | timedelta = 30.0,
        on_error: OnError = "skip",
        embeddings: Embeddings | None = None,
        inject_catalog: bool = False,
        catalog_max_tokens: int = DEFAULT_CATALOG_MAX_TOKENS,
        max_tool_output_chars: int | None = None,
        provider: NativeProvider | None = None,
        mode: Mode = "search",
        auto_max_tokens: int | None = None,
        auto_max_tools: int | None = None,
        max_loaded: int | None = None,
        max_loaded_tokens: int | None = None,
        pinned: Sequence[str | BaseTool] = (),
        pinned_max_tokens: int = 2000,
        load_on_call: bool = False,
        learning: Learning | None = None,
        name: str | None = None,
    ) -> None:
        """Build the middleware or the node (the library is indexed here).

        Args:
            tools: The searchable library: tools, a mapping id -> tool, or a
                :class:`~langchain_toolsearch.ToolLibrary`; bound once loaded. Required
                unless ``include_resolved_tools=True``.
            bound_tools: ``ToolSearchNode`` only: tools your model binds directly, after
                the meta tools (searchable and withheld until loaded with
                ``include_resolved_tools``). The middleware takes them from
                ``create_agent(tools=...)`` and refuses this option.
            top_k: Most hits per search (>= 1).
            min_score: Relevance floor in ``[0, 1)``; hits with ``score <= min_score`` drop.
            auto_load: ``search_tools`` loads its hits at once; no ``load_tool``.
            storage: ``"in-memory"`` (per thread id, TTL), ``"context"`` (from the
                messages), ``"store"`` (a LangGraph store) or a ``LoadedToolStore``.
            ttl: Seconds an idle thread's in-memory state lives (``0``: forever; default
                3600); ``"in-memory"`` only.
            filter: ``(ToolSearchFilterArgs) -> bool | Awaitable[bool]`` for phases
                ``search``, ``load`` and ``active``; fails closed, never on the event loop.
            include_resolved_tools: Search each request's own tools (``resolve_tools``, the
                ``toolsearch_resolve_tools`` config key, the agent's tools or the node's
                ``bound_tools``), withheld until loaded.
            resolve_tools: ``(RunnableConfig) -> Sequence[BaseTool] | Awaitable[...]`` or a
                ``ToolResolver``; once per run. Needs ``include_resolved_tools=True``.
            system_hint: Append a short explanation of the flow to the system message (the
                node: whether :attr:`system_prompt_hint` is meant to be used).
            store: ``storage="store"`` only: a ``BaseStore`` instead of the graph's.
            index: A ``ToolIndex`` or ``(documents) -> ToolIndex``; default ``BM25ToolIndex``.
            filter_timeout: Seconds one filter decision may take (then denied).
            resolve_timeout: Seconds a resolver may take (then the step goes on without it).
            on_error: A failing tool source: ``"skip"`` (logged once per cause, in
                ``get_state_stats().source_failures``) or ``"raise"`` (``ToolSourceError``).
            embeddings: Any LangChain ``Embeddings``, fused with BM25; not with ``index=``.
            inject_catalog: List the allowed tools in the system hint (the node: in
                :meth:`hint_for`, per request). Needs ``system_hint``.
            catalog_max_tokens: The catalog's budget (estimated tokens, UTF-8 bytes / 4).
            max_tool_output_chars: Bound (characters) on tool answers but the meta tools';
                ``None``: none.
            provider: ``"anthropic"`` (experimental): every allowed tool bound deferred
                (``defer_loading``); ``search_tools`` answers ``tool_reference`` blocks and
                loads its hits. Needs ``langchain-anthropic``.
            mode: ``"search"``; ``"auto"``: bind a request's allowed tools whole when they
                fit ``auto_max_tokens`` and ``auto_max_tools`` (no meta tool, no hint);
                ``"stable"``: the bound tools never change (the prompt cache holds), the model
                gets loaded tools' definitions in answers and calls them with ``call_tool``.
            auto_max_tokens: ``mode="auto"``: the budget in estimated schema tokens
                (default 10,000).
            auto_max_tools: ``mode="auto"``: at most this many tools bound whole.
            max_loaded: Most loaded tools kept bound per thread (least recently used evicted;
                the model told). ``None``: loads only grow.
            max_loaded_tokens: The same bound in estimated schema tokens.
            pinned: Library tools (names or tools) bound from the first step before loaded
                ones, never evicted nor counted by ``max_loaded*``, still filtered; plus
                tools asking for it of MCP servers trusted with ``trust_always_load``.
            pinned_max_tokens: The pins' budget (estimated schema tokens): the developer's
                over it raise, a server's that do not fit are left out (logged).
            load_on_call: A call of an allowed library tool not loaded loads it for the next
                step and is answered with its parameters and how to call it, never run.
            learning: ``Learning(scope=...)``: a thread's search, then a load and a successful
                call of a tool, raise that tool for similar queries in the same scope (a key
                from the run's config); kept in the LangGraph store if any, else in memory.
            name: The name in the graph: the middleware's (default: the class name) or the
                node's ``Runnable.name`` (default ``"tool_search"``).

        Raises:
            ToolSearchConfigError: A bad option value, duplicate or reserved tool names, no
                ``tools=`` without ``include_resolved_tools``, an unknown storage, ``ttl``
                with a storage other than ``"in-memory"``, a LangGraph store as ``storage``,
                a bound tool named as a library or meta tool, or ``bound_tools`` given to
                the middleware.
            ToolSearchTypeError: A library entry that is not a tool or function, a filter
                not callable, a bad ``index`` or ``name``, a positional argument, or a
                misspelled option (naming the closest one).
        """
        if name is not None and (not isinstance(name, str) or not name):
            raise ToolSearchTypeError(f"name must be a non-empty string, got {name!r}")
        self.options = ToolSearchOptions(
            tools=tools,
            top_k=top_k,
            min_score=min_score,
            auto_load=auto_load,
            storage=storage,
            ttl=ttl,
            filter=filter,
            include_resolved_tools=include_resolved_tools,
            resolve_tools=resolve_tools,
            system_hint=system_hint,
            store=store,
            index=index,
            filter_timeout=filter_timeout,
            resolve_timeout=resolve_timeout,
            on_error=on_error,
            embeddings=embeddings,
            inject_catalog=inject_catalog,
            catalog_max_tokens=catalog_max_tokens,
            max_tool_output_chars=max_tool_output_chars,
            provider=provider,
            mode=mode,
            auto_max_tokens=auto_max_tokens,
            auto_max_tools=auto_max_tools,
            max_loaded=max_loaded,
            max_loaded_tokens=max_loaded_tokens,
            pinned=pinned,
            pinned_max_tokens=pinned_max_tokens,
            load_on_call=load_on_call,
            learning=learning,
        )
        self._engine = Engine(self.options, state_ready=self._state_ready)
        self.meta_tools: list[BaseTool] = build_meta_tools(self._engine, self._runtime_scope)
        self._setup(name, list(bound_tools))

    def _setup(self, name: str | None, bound_tools: list[BaseTool]) -> None:
        """The shell's own part of the constructor: its ``name`` and ``bound_tools``.

        Each shell defines it: the middleware refuses ``bound_tools``, the node splits them.
        """

    def _state_ready(self, state: Any) -> bool:
        """Whether a graph state can carry this package's keys (else loads are refused)."""
        return True

    # -- scopes ----------------------------------------------------------------------------

    def _bound(self, tools: Sequence[BaseTool] | None) -> list[BaseTool]:
        """The step's tool-node tools this request searches (per-request only)."""
        if self._engine.scopes.resolver is None:
            return []
        bound, _ = self._engine.split_agent_tools(tools or (), self.meta_tools)
        return bound

    def _runtime_scope(self, runtime: ToolRuntime) -> Logic[RequestScope]:
        """A tool step's scope, from its ``ToolRuntime``."""
        return self._engine.scopes.scope(
            runtime.config or {},
            runtime.state,
            graph_store=runtime.store,
            context=runtime.context,
            bound=self._bound(runtime.tools),
        )

    def _outside_scope_bound(self) -> Sequence[BaseTool]:
        """Tools of this form a scope outside a run includes (node: ``bound_tools``)."""
        return ()

    def _step_parts(self) -> dict[str, Any]:
        """Keyword arguments of ``scopes.build`` for a step of the running graph."""
        return {"context": current_context(), "bound": self._outside_scope_bound()}

    def _build(self, config: RunnableConfig | None, state: Any) -> Logic[RequestScope]:
        return self._engine.scopes.scope(config or {}, state, **self._step_parts())

    # -- public helpers --------------------------------------------------------------------

    def hint_for(self, state: Any = None) -> str:
        """The running request's system hint: :attr:`system_prompt_hint` and what it adds.

        Adds the allowed tools (``inject_catalog=True``) and the evicted tools (``max_loaded``
        / ``max_loaded_tokens``); ``""`` with ``mode="auto"`` when the tools are bound whole.
        """
        return drive(self._hint(state))

    async def ahint_for(self, state: Any = None) -> str:
        """Async :meth:`hint_for`."""
        return await adrive(self._hint(state))

    def _hint(self, state: Any) -> Logic[str]:
        if self._engine.static_hint:  # nothing per request: no scope to build
            return self._engine.hint
        scope = yield from self._build(current_config(), state or {})
        return (yield from self._engine.hint_for(scope))

    @property
    def library(self) -> ToolLibrary:
        """The static library (validated, provider-safe names)."""
        return self._engine.library

    @property
    def index(self) -> ToolIndex:
        """The index over the static library (see ``index=``)."""
        return self._engine.scopes.index

    @property
    def system_prompt_hint(self) -> str:
        """The short text explaining the search/load flow to the model."""
        return self._engine.hint

    def search(
        self,
        query: str | Sequence[str],
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
    ) -> list[ToolSearchResult]:
        """Search as ``search_tools`` would in a run with ``config``, filter included.

        Args:
            query: Keywords, or up to 8 queries (one per need, sharing ``top_k``; each hit's
                ``query`` says which it answers).
            config: The run's ``RunnableConfig`` (``{}`` if omitted).
            context: The run's context, as the filter would see it.

        Returns:
            Up to ``top_k`` hits, best first, scores in ``[0, 1]``; ``[]`` when none.
        """
        return drive(self._search(query, config, context))

    async def asearch(
        self,
        query: str | Sequence[str],
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
    ) -> list[ToolSearchResult]:
        """Async :meth:`search`."""
        return await adrive(self._search(query, config, context))

    def _search(
        self, query: str | Sequence[str], config: RunnableConfig | None, context: Any
    ) -> Logic[list[ToolSearchResult]]:
        bound = self._outside_scope_bound()
        scope = yield from self._engine.scopes.scope(config or {}, {}, context=context, bound=bound)
        return (yield from self._engine.search_results(scope, query))

    def _loaded_scope(
        self, operation: str, config: RunnableConfig, state: Any, store: BaseStore | None
    ) -> RequestScope:
        scope = self._engine.scopes.build(
            config, state or {}, graph_store=store, bound=self._outside_scope_bound()
        )
        storage = self._engine.storage
        if (
            scope.thread_id is not None
            and storage.mode == "store"
            and storage.backend(store) is None
        ):
            raise StoreMissingError(
                f'{operation} with storage="store" needs the store the loads live in: pass '
                f"store=<the graph's store> to {operation}, or store=... to the tool search "
                "(the graph's store is only known inside a run)"
            )
        return scope

    def get_loaded_tools(
        self, config: RunnableConfig, state: Any = None, *, store: BaseStore | None = None
    ) -> list[str]:
        """Names loaded for the run of ``config``: pinned, then loads in order (the working set).

        Args:
            config: A run config; its thread id selects the thread.
            state: The graph state, where ``storage="context"`` and thread-less runs keep loads.
            store: ``storage="store"`` without ``store=``: the graph's store.

        Raises:
            StoreMissingError: ``storage="store"``, a thread id, and no store.
        """
        scope = self._loaded_scope("get_loaded_tools", config, state, store)
        return drive(self._engine.loaded(scope))

    async def aget_loaded_tools(
        self, config: RunnableConfig, state: Any = None, *, store: BaseStore | None = None
    ) -> list[str]:
        """Async :meth:`get_loaded_tools`."""
        scope = self._loaded_scope("aget_loaded_tools", config, state, store)
        return await adrive(self._engine.loaded(scope))

    # -- tool step ------------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run loaded library tools; refuse tools that are not loaded (the execution guard)."""
        return drive(_tool_call(self, request, lambda r: Effect.same(partial(handler, r))))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        return await adrive(
            _tool_call(self, request, lambda r: Effect.awaiting(partial(handler, r)))
        )


# -- execution: The tool-step wrapper for LangGraph's ``ToolNode`` (middleware and node alike).

logger = logging.getLogger(__name__)

CALL_RERUN = (
    "tool search: tool call %s (%s, thread %s) started before and never returned (the "
    "process running it died, the run stopped or the call raised; the record is in this "
    "%s): %s"
)
"""WARNING logged when a resumed step meets a call that already started."""
RERUN_AGAIN = "running it again"
RERUN_REFUSED = (
    "not run again (the tool is not idempotent); the model is told the outcome is unknown"
)

ToolResult = ToolMessage | Command[Any]

GUARD_MARK = "toolsearch_guarded"
"""Key set to ``True`` in ``response_metadata`` of every answer the wrapper returns."""

_GUARD: ContextVar[object | None] = ContextVar("toolsearch_guard", default=None)
"""The instance whose wrapper is running the current tool call (``None`` outside one)."""

LISTED_LIBRARY_TOOLS = (
    "tool search: the tools node lists library tools {names}; it would run them by "
    "their exact name without a load. List only the meta tools and your bound tools: "
    "use search.tool_node() in a hand-built graph (it runs loaded library tools through "
    "the execution guard), and keep library tools out of create_agent(tools=...)"
)


def guarded_by(base: object) -> bool:
    """Whether the current tool call runs inside ``base``'s wrapper."""
    return _GUARD.get() is base


def is_guarded(message: object) -> bool:
    """Whether ``message`` is an answer returned by the wrapper (see :data:`GUARD_MARK`)."""
    metadata = getattr(message, "response_metadata", None)
    return isinstance(metadata, Mapping) and metadata.get(GUARD_MARK) is True


def _check_tool_node(base: ToolSearchBase, runtime: ToolRuntime | None) -> None:
    """Refuse a tool node that lists library tools (they run by exact name, unloaded).

    Raises:
        ToolSearchWiringError: The message names the tools and the fix.
    """
    tools: Sequence[Any] = getattr(runtime, "tools", None) or ()
    meta = set(map(id, base.meta_tools))  # the instance's own, alive as long as it is
    others = [t for t in tools if id(t) not in meta and isinstance(t, BaseTool)]
    if not others:  # only the meta tools (create_agent with no tools of its own)
        return
    library = base._engine.library
    listed = sorted(t.name for t in others if library.get(t.name) is not None)
    if listed:
        raise ToolSearchWiringError(LISTED_LIBRARY_TOOLS.format(names=[n[:64] for n in listed]))


def _mark_messages(value: object, call_id: str | None) -> None:
    if isinstance(value, ToolMessage):
        value = [value]
    if isinstance(value, list):
        for message in value:
            if isinstance(message, ToolMessage) and message.tool_call_id == call_id:
                message.response_metadata[GUARD_MARK] = True
                message.content = model_content(message.content)


def _mark(result: object, call_id: str | None) -> None:
    """Set :data:`GUARD_MARK` on the answers to ``call_id`` in ``result`` (in place)."""
    if isinstance(result, ToolMessage):
        _mark_messages(result, call_id)
    elif isinstance(result, list):
        for item in result:
            _mark(item, call_id)
    elif isinstance(result, Command):
        update = result.update
        if isinstance(update, Mapping):
            _mark_messages(update.get("messages"), call_id)
        elif isinstance(update, list | tuple):
            for pair in update:
                if isinstance(pair, tuple) and len(pair) == 2 and pair[0] == "messages":
                    _mark_messages(pair[1], call_id)
        else:
            _mark_messages(getattr(update, "messages", None), call_id)


def _bounded(base: ToolSearchBase, result: ToolResult, call: ToolCall) -> ToolResult:
    """``result`` with a ToolMessage's content cut at ``max_tool_output_chars`` (opt-in).

    Meta tools' answers and ``Command`` results are returned as they are.
    """
    limit = base._engine.options.max_tool_output_chars
    if limit is None or not isinstance(result, ToolMessage) or call["name"] in META_TOOL_NAMES:
        return result
    bounded: ToolMessage = bound_result(result, limit)
    return bounded


_Started = tuple[StartedCalls, str, str]


def _started(base: ToolSearchBase, request: ToolCallRequest) -> _Started | None:
    """(records, thread id, key) for a call of a thread's run; ``None`` for meta tools."""
    call, runtime = request.tool_call, request.runtime
    thread_id = thread_id_of(getattr(runtime, "config", None))
    if thread_id is None or call["name"] in META_TOOL_NAMES:
        return None  # no checkpoint, no resume
    step = StepCalls.of(getattr(runtime, "state", None), call)
    CURRENT_STEP.set((call.get("id") or "", step))  # the guard reads the history no more
    store = base._engine.storage.started_store(getattr(runtime, "store", None))
    return started_calls(store), thread_id, f"{step.message_id}:{call.get('id') or ''}"


def _rerun(
    prior: object, started: _Started, call: ToolCall, tool: BaseTool | None
) -> ToolMessage | None:
    """Log a call that started before; the answer instead of running it, if it may not run."""
    if prior is None:
        return None
    again = tool is None or idempotent(tool)
    count("toolsearch.run.reruns", records=started[0].where, outcome="run" if again else "refused")
    logger.warning(
        CALL_RERUN,
        _text(str(call.get("id"))[:80]),
        _text(call["name"][:80]),
        _text(started[1][:80]),
        started[0].where,
        RERUN_AGAIN if again else RERUN_REFUSED,
    )
    return None if again else error_message(CALL_OUTCOME_UNKNOWN.format(tool=call["name"]), call)


def _attach(started: _Started | None, call: ToolCall) -> AbstractContextManager[Attached | None]:
    """Send a store record's write with the guard's first store read (one round trip)."""
    records = started[0] if started is not None else None
    if started is None or not isinstance(records, StoreStartedCalls) or not records.combined:
        return nullcontext(None)
    _, thread_id, key = started
    return attached(records.store, records.begin_ops(thread_id, key, call["name"]))


def _sent(holder: Attached | None) -> bool:
    return holder is not None and holder.results is not None


def _prior(holder: Attached | None) -> tuple[bool, dict[str, Any] | None]:
    """(record written with the guard's read, the prior record it found)."""
    if holder is None or holder.results is None:
        return False, None
    return True, StoreStartedCalls.prior(holder.results)


def _begin(started: _Started, tool: str) -> Effect[dict[str, Any] | None]:
    """Record the call as started; the record of an earlier start, if any."""
    records, thread_id, key = started
    return Effect.method(records, "begin", thread_id, key, tool)


def _end(started: _Started) -> Effect[None]:
    """Drop the call's started record (it returned, or does not run)."""
    records, thread_id, key = started
    return Effect.method(records, "end", thread_id, key)


def _tool_call(
    base: ToolSearchBase,
    request: ToolCallRequest,
    handler: Callable[[ToolCallRequest], Effect[ToolResult]],
) -> Logic[ToolResult]:
    """Guard one tool call, then run it through ``handler`` (the tool node's, as an effect).

    Raises:
        ToolSearchWiringError: The tool node lists library tools.
    """
    _check_tool_node(base, request.runtime)
    CURRENT_STEP.set(None)  # only this call's wrapper and guard set it
    token, reuse = _GUARD.set(base), TOOL_STEP.set(True)
    try:
        engine, call, runtime = base._engine, request.tool_call, request.runtime
        shape = shape_error(call)  # args that are not an object: answered before anything
        if shape is None and engine.stable and call["name"] == P.CALL_TOOL_NAME:
            inner = unwrap(call)  # then guarded, run and answered as the tool it names
            if isinstance(inner, ToolMessage):
                shape = inner
            else:
                # the tool node's own tool of that name, if searched per request
                tools = (getattr(runtime, "tools", None) or ()) if engine.scopes.per_request else ()
                own = next((t for t in tools if getattr(t, "name", None) == inner["name"]), None)
                request = ToolCallRequest(inner, own, request.state, runtime)
                call = inner
        decision = shape if shape is not None else engine.pre_check(call, request.tool)
        started, holder = None, None
        scope: RequestScope | None = None
        if decision is NEEDS_SCOPE:
            started = _started(base, request)
            with _attach(started, call) as holder:
                scope = yield from base._runtime_scope(runtime)
                decision = yield from engine.tool_step(scope, call, request.tool)
        elif decision is None:
            started = _started(base, request)
        if isinstance(decision, ToolMessage):
            if started is not None and _sent(holder):  # recorded, but it does not run
                yield _end(started)
            result: ToolResult = decision
        else:
            assert decision is None or isinstance(decision, BaseTool)
            result = yield from _run(base, request, decision, handler, started, holder)
            if engine.learner and scope is not None and succeeded(result):  # it answered
                yield from engine.learner.called(scope, call["name"], messages_of(request.state))
    finally:
        TOOL_STEP.reset(reuse)
        _GUARD.reset(token)
    _mark(result, request.tool_call.get("id"))
    return result


def _run(
    base: ToolSearchBase,
    request: ToolCallRequest,
    tool: BaseTool | None,
    handler: Callable[[ToolCallRequest], Effect[ToolResult]],
    started: _Started | None,
    holder: Attached | None,
) -> Logic[ToolResult]:
    if started is not None:
        sent, prior = _prior(holder)
        if not sent:
            prior = yield _begin(started, request.tool_call["name"])
        refused = _rerun(prior, started, request.tool_call, tool or request.tool)
        if refused is not None:
            return refused
    answer = yield handler(request if tool is None else request.override(tool=tool))
    if started is not None:  # returned
        yield _end(started)
    return _bounded(base, finish(answer, request.tool_call), request.tool_call)
