"""What a resolution reads and keeps: `RequestPlanner` (store -> plan + key), `ResolutionCache`.

The cache has two layers, safe to share between callers: stored records with the
request fields their rules read (a head re-read at most every ``refresh_interval``
seconds), and resolved tool sets keyed by a salted SHA-256 of everything a
resolution depends on (`ResolutionCache.key`), kept ``cache_ttl`` seconds
(``refresh_interval`` after an outage), the ``cache_size`` most recent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, SecretBytes, SecretStr

from langchain_toolsearch._effects import Flow
from langchain_toolsearch.types import SourceKind
from langchain_toolsearch_editor._models import (
    AUTH_TOKEN_KEY,
    MASTRA_AUTH_TOKEN_KEY,
    AgentToolConfig,
    MCPClientRef,
    Versioned,
    VersionInfo,
    VersionSelector,
    parse_agent_config,
)
from langchain_toolsearch_editor._parsing import MISSING, lookup, request_context
from langchain_toolsearch_editor._records import VersionedRecords
from langchain_toolsearch_editor._rules import MAX_RULE_DEPTH, Condition, RuleGroup
from langchain_toolsearch_editor._servers import MCPClientConfig
from langchain_toolsearch_editor._sources import (
    RequestPlan,
    ResolvedTools,
    active_variants,
    merge_conditional,
)
from langchain_toolsearch_editor._store import ToolConfigStore
from langchain_toolsearch_editor.errors import RecordNotFoundError, UncacheableError

_SALT = os.urandom(16)
"""Per-process salt of cache keys: a credential is never kept, only a salted hash."""


@dataclass(frozen=True)
class StoredRecord:
    """A record as last read (clock ``read_at``), with its `rule_fields` (``None``: not cached).

    ``writes``: the records object's write count then (a write through it re-reads).
    """

    value: Versioned[Any]
    fields: frozenset[str] | None
    read_at: float
    writes: int = 0


class _Entry(NamedTuple):
    resolved: ResolvedTools
    expires: float


@dataclass(kw_only=True, eq=False)
class ResolutionCache:
    """Stored records and resolved tool sets of one `ToolResolver` (thread-safe; its arguments)."""

    refresh_interval: float
    cache_ttl: float
    cache_size: int
    clock: Callable[[], float]
    mode: str
    token_key: str
    hits: int = field(default=0, init=False)
    misses: int = field(default=0, init=False)
    _records: dict[tuple[str, str, VersionSelector], StoredRecord] = field(
        default_factory=dict, init=False, repr=False
    )
    _resolved: OrderedDict[str, _Entry] = field(default_factory=OrderedDict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def record(
        self, records: VersionedRecords[Any], kind: str, record_id: str, selector: VersionSelector
    ) -> Flow[StoredRecord]:
        """A record, its head re-read at most every ``refresh_interval``; `RecordNotFoundError`."""
        key = (kind, record_id, selector)
        now = self.clock()
        with self._lock:
            known = self._records.get(key)
        writes = records.writes
        if (
            known is not None
            and known.writes == writes
            and now - known.read_at < self.refresh_interval
        ):
            return known
        head = yield from records._info(record_id)
        number = records._number(head, selector)
        if known is not None and known.value.info.version == number:
            fresh = StoredRecord(known.value, known.fields, now, writes)
        else:
            found = yield from records._get(record_id, number)
            fresh = StoredRecord(found, rule_fields(found.value), now, writes)
        with self._lock:
            self._records[key] = fresh
        return fresh

    def key(
        self,
        versions: Mapping[str, Any],
        fields: set[str],
        ctx: Mapping[str, Any],
        providers: bool,
        failures: Mapping[str, str],
    ) -> str | None:
        """Salted fingerprint of a resolution's inputs (``None``: not cacheable).

        The records' ``versions``, the values at the rules' ``fields``, the token,
        all of ``ctx`` when ``providers`` take part, the plan's ``failures``. Values
        count by what they hold, never their ``repr``: JSON scalars, lists, tuples,
        dicts, pydantic secrets, models and dataclasses; anything else: ``None``.
        """
        token_key = self.token_key
        if token_key == AUTH_TOKEN_KEY and ctx.get(token_key) is None:
            token_key = MASTRA_AUTH_TOKEN_KEY
        try:
            material = {
                "mode": self.mode,
                "versions": versions,
                "fields": {path: _read(ctx, path) for path in sorted(fields)},
                "token": _canonical(ctx.get(token_key)),
                "context": _canonical(dict(ctx)) if providers else None,
                "plan_failures": sorted(failures.items()),
            }
            text = json.dumps(material, sort_keys=True, allow_nan=True)
        except UncacheableError:
            return None
        return hashlib.sha256(_SALT + text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str | None) -> ResolvedTools | None:
        """The set kept under ``key`` while it lives, else ``None`` (counted)."""
        if key is None or self.cache_ttl <= 0:
            return None
        now = self.clock()
        with self._lock:
            entry = self._resolved.get(key)
            if entry is None or entry.expires <= now:
                self.misses += 1
                return None
            self._resolved.move_to_end(key)
            self.hits += 1
            return entry.resolved

    def put(self, key: str | None, resolved: ResolvedTools) -> None:
        """Keep ``resolved``: ``cache_ttl`` seconds, ``refresh_interval`` after an outage."""
        if key is None or self.cache_ttl <= 0:
            return
        outage = any(error.unavailable for error in resolved.errors)
        expires = self.clock() + (
            min(self.cache_ttl, self.refresh_interval) if outage else self.cache_ttl
        )
        with self._lock:
            self._resolved[key] = _Entry(resolved, expires)
            self._resolved.move_to_end(key)
            while len(self._resolved) > self.cache_size:
                self._resolved.popitem(last=False)


MAX_RECORD_DEPTH = 64
"""Deepest nesting walked in a record outside its rule groups; a deeper one is not cached."""


def rule_fields(value: Any) -> frozenset[str] | None:
    """Every condition's ``field`` in ``value``; ``None`` past the depth bounds (not cached)."""
    found: set[str] = set()
    return frozenset(found) if _walk(value, found, 0) else None


def _walk(value: Any, found: set[str], depth: int, rule_depth: int = 0) -> bool:
    """Add the fields of ``value``'s conditions; ``False`` past a depth bound."""
    if isinstance(value, RuleGroup):
        return rule_depth < MAX_RULE_DEPTH and all(
            _walk(item, found, depth, rule_depth + 1) for item in value.conditions
        )
    if isinstance(value, Condition):
        found.add(value.field)
        return True
    if isinstance(value, str | bytes | int | float | type(None)):
        return True
    if depth >= MAX_RECORD_DEPTH:
        return False
    if isinstance(value, BaseModel):
        items: Any = [getattr(value, name) for name in type(value).model_fields]
        items += list((value.model_extra or {}).values())
    elif isinstance(value, Mapping):
        items = list(value.values())
    elif isinstance(value, list | tuple | set | frozenset):
        items = list(value)
    else:
        return True
    return all(_walk(item, found, depth + 1) for item in items)


def _read(ctx: Mapping[str, Any], path: str) -> Any:
    """The tagged value at ``path``; a value that raises when read keys as unreadable."""
    try:
        value = lookup(ctx, path)
    except GraphBubbleUp:
        raise
    except Exception as exc:  # the rules see it as false: one key for every such request
        return ["unreadable", type(exc).__name__]
    return _canonical(value)


_SCALARS = (str, int, float, bool, type(None))


def _canonical(value: Any) -> Any:
    """A request value tagged so that a missing path never equals any value."""
    return ["missing"] if value is MISSING else ["value", _held(value, 0)]


def _held(value: Any, depth: int) -> Any:
    """JSON of what ``value`` holds, tagged with exact types; `UncacheableError` if it cannot."""
    kind = type(value)
    if depth > 32:
        raise UncacheableError
    if kind in _SCALARS:
        return value if kind is not float else ["float", repr(value)]
    if kind in (list, tuple):
        return [kind.__name__, [_held(item, depth + 1) for item in value]]
    if kind is dict:
        items = [[_held(k, depth + 1), _held(v, depth + 1)] for k, v in value.items()]
        return ["dict", sorted(items, key=lambda item: json.dumps(item[0]))]
    if isinstance(value, SecretStr | SecretBytes):
        secret = value.get_secret_value()
        return [_name(kind), secret if isinstance(secret, str) else secret.hex()]
    if isinstance(value, BaseModel):
        fields = {name: getattr(value, name) for name in kind.model_fields}
        extra = {**(value.model_extra or {}), **(value.__pydantic_private__ or {})}
        return [_name(kind), _held(fields, depth + 1), _held(extra, depth + 1)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return [
            _name(kind),
            _held(fields, depth + 1),
            _held(dict(getattr(value, "__dict__", {})), depth + 1),
        ]
    raise UncacheableError


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


def failure_kind(path: str) -> SourceKind:
    """What a `ResolvedTools.failures` path names: an outage, or the configuration."""
    if path.startswith("mcp_clients.") and ".servers." in path:
        return "mcp"
    if path.startswith("tool_providers."):
        return "provider"
    return "config"


_RESOLVER_LOG = logging.getLogger("langchain_toolsearch_editor._resolver")


@dataclass(frozen=True, kw_only=True, eq=False)
class RequestPlanner:
    """Reads the store (through ``cache``) into a request's `RequestPlan` and its cache key."""

    store: ToolConfigStore | None
    agent_id: str | None
    mode: str
    version: VersionSelector
    code_agent: bool
    cache: ResolutionCache
    warned_empty: set[str] = field(default_factory=set)  # clients whose reference selects none

    def plan(
        self,
        config: RunnableConfig,
        context: Any,
        version: VersionSelector | None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None,
    ) -> Flow[tuple[RequestPlan, str | None]]:
        """The plan, and its resolution's cache key (``None``: not cached)."""
        ctx = request_context(config, context)
        failures: dict[str, str] = {}
        info: VersionInfo | None = None
        stored = AgentToolConfig()
        read: list[StoredRecord] = []  # the records read, the agent's first: the cache key
        selector = self.version if version is None else version
        # A reference without a version follows the agent: published -> published.
        client_default: VersionSelector = "published" if selector == "published" else "draft"
        if self.mode == "ignore":
            pass
        elif agent_config is not None:
            stored = parse_agent_config(agent_config)
        elif self.store is not None and self.agent_id is not None:
            try:
                record = yield from self.cache.record(
                    self.store.agents, "agent", self.agent_id, selector
                )
            except RecordNotFoundError as exc:
                failures["agent_config"] = f"{exc}; resolved without a stored config"
            else:
                read.append(record)
                stored, info = record.value.value, record.value.info

        def keyed(plan: RequestPlan, providers: bool = False) -> tuple[RequestPlan, str | None]:
            if agent_config is not None or any(r.fields is None for r in read):
                return plan, None  # a record's rule fields cannot all be listed: not cached
            fields = set[str]().union(*(r.fields or () for r in read))
            ids = [[r.value.info.record_id, r.value.info.version] for r in read]
            versions = {"agent": ids.pop(0) if info is not None else None, "clients": ids}
            return plan, self.cache.key(versions, fields, ctx, providers, plan.failures)

        tools = active_variants(merge_conditional(stored.tools, ctx), ctx)
        if self.mode != "tools":
            return keyed(RequestPlan(ctx, tools, [], {}, {}, failures, info, stored))

        refs = active_variants(merge_conditional(stored.mcp_clients, ctx), ctx) or {}
        mcp: list[tuple[str, int, MCPClientRef, MCPClientConfig]] = []
        # By id: jsonb keeps no key order, and which client wins a tool id must not vary.
        for client_id, ref in sorted(refs.items()):
            where = f"mcp_clients.{client_id}"
            if not ref.tools:  # omitted, null or {}: selects nothing (as the seed)
                self._warn_empty(client_id)
                continue
            if self.store is None:
                failures[where] = "no ToolConfigStore given to the resolver to load saved clients"
                continue
            client_version = ref.version if ref.version is not None else client_default
            try:
                client = yield from self.cache.record(
                    self.store.mcp_clients, "mcp_client", client_id, client_version
                )
            except (RecordNotFoundError, ValueError) as exc:
                failures[where] = str(exc)
                continue
            read.append(client)
            mcp.append((client_id, client.value.info.version, ref, client.value.value))
        integrations = active_variants(merge_conditional(stored.integration_tools, ctx), ctx) or {}
        providers = active_variants(merge_conditional(stored.tool_providers, ctx), ctx) or {}
        if providers and self.code_agent:
            why = "not used: a code-defined agent's stored config merges code, registry, MCP "
            failures["tool_providers"] = why + (
                "and integration tools only (tool providers serve stand-alone stored agents)"
            )
            providers = {}
        plan = RequestPlan(ctx, tools, mcp, integrations, providers, failures, info, stored)
        return keyed(plan, bool(providers))

    def _warn_empty(self, client_id: str) -> None:
        if client_id in self.warned_empty:
            return
        self.warned_empty.add(client_id)
        _RESOLVER_LOG.warning(
            "agent %r: the reference to saved MCP client %r selects no tools ('tools' omitted, "
            'null or {}); use "tools": "*" for every tool of the client',
            self.agent_id,
            client_id,
        )
