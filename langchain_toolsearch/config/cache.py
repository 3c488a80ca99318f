"""`ResolutionCache`: what `ToolResolver` keeps between requests, and for how long.

Two layers, both safe to share between callers (see
`langchain_toolsearch.config.resolver` for the contract):

* stored records (agent configs, saved MCP clients) with the request fields
  their rules read; a record's head is re-read at most every
  ``refresh_interval`` seconds;
* resolved tool sets, keyed by a salted SHA-256 of everything a resolution
  depends on (`ResolutionCache.key`), kept ``cache_ttl`` seconds
  (``refresh_interval`` when a source failed), the ``cache_size`` most recent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, SecretBytes, SecretStr

from langchain_toolsearch._internal.store_flow import Flow
from langchain_toolsearch.config.models import (
    AUTH_TOKEN_KEY,
    MASTRA_AUTH_TOKEN_KEY,
    Versioned,
    VersionSelector,
)
from langchain_toolsearch.config.parsing import MISSING, lookup
from langchain_toolsearch.config.records import VersionedRecords
from langchain_toolsearch.config.rules import MAX_RULE_DEPTH, Condition, RuleGroup
from langchain_toolsearch.config.sources import ResolvedTools
from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch.types import SourceKind

_SALT = os.urandom(16)
"""Per-process salt of cache keys: a credential is never kept, only a salted hash."""


@dataclass(frozen=True)
class StoredRecord:
    """A stored record as last read, the request fields its rules read, and when.

    Attributes:
        value: The record and its version.
        fields: Dot paths of every rule condition in it; ``None`` when they cannot
            all be listed (`rule_fields`): no resolution using the record is cached.
        read_at: Clock seconds of the last head read.
        writes: The records object's own write count at that read (a write through
            it in this process makes the next lookup re-read the head at once).
    """

    value: Versioned[Any]
    fields: frozenset[str] | None
    read_at: float
    writes: int = 0


@dataclass(frozen=True)
class _Entry:
    resolved: ResolvedTools
    expires: float


class ResolutionCache:
    """Stored records and resolved tool sets of one `ToolResolver` (thread-safe).

    Args:
        refresh_interval: Seconds a record's head is trusted.
        cache_ttl: Seconds a resolved set is reused; ``0``: never.
        cache_size: Most resolved sets kept (count).
        clock: Monotonic seconds.
        mode: The resolver's mode (part of every key).
        token_key: Request-context key of the caller's credential.
    """

    def __init__(
        self,
        *,
        refresh_interval: float,
        cache_ttl: float,
        cache_size: int,
        clock: Callable[[], float],
        mode: str,
        token_key: str,
    ) -> None:
        self._refresh = float(refresh_interval)
        self._ttl = float(cache_ttl)
        self._size = cache_size
        self._clock = clock
        self._mode = mode
        self._token_key = token_key
        self._records: dict[tuple[str, str, VersionSelector], StoredRecord] = {}
        self._resolved: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    # -- stored records -------------------------------------------------------------------

    def record(
        self,
        records: VersionedRecords[Any],
        kind: str,
        record_id: str,
        selector: VersionSelector,
    ) -> Flow[StoredRecord]:
        """A stored record, its head re-read at most every ``refresh_interval`` seconds.

        Raises:
            RecordNotFoundError: The record or the version does not exist.
        """
        key = (kind, record_id, selector)
        now = self._clock()
        with self._lock:
            known = self._records.get(key)
        writes = records.writes
        if known is not None and known.writes == writes and now - known.read_at < self._refresh:
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

    # -- resolved tool sets ----------------------------------------------------------------

    def key(
        self,
        versions: Mapping[str, Any],
        fields: set[str],
        ctx: Mapping[str, Any],
        providers: bool,
        failures: Mapping[str, str],
    ) -> str | None:
        """Salted fingerprint of everything a resolution depends on (``None``: not cacheable).

        Values count by what they hold, never their ``repr`` (which may mask a
        secret): JSON scalars, lists, tuples, dicts, pydantic secrets, models
        and dataclasses; anything else is not cached.

        Args:
            versions: The agent's and saved clients' ids and version numbers.
            fields: Request-context paths the rules read (their values count).
            ctx: The request context.
            providers: Whether tool providers take part (the whole context counts).
            failures: What planning already reported.
        """
        token_key = self._token_key
        if token_key == AUTH_TOKEN_KEY and ctx.get(token_key) is None:
            token_key = MASTRA_AUTH_TOKEN_KEY
        try:
            material = {
                "mode": self._mode,
                "versions": versions,
                "fields": {path: _read(ctx, path) for path in sorted(fields)},
                "token": _canonical(ctx.get(token_key)),
                "context": _canonical(dict(ctx)) if providers else None,
                "plan_failures": sorted(failures.items()),
            }
            text = json.dumps(material, sort_keys=True, allow_nan=True)
        except _Uncacheable:
            return None
        digest = hashlib.sha256(_SALT)
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def get(self, key: str | None) -> ResolvedTools | None:
        """The set kept under ``key`` while it lives, else ``None`` (counted)."""
        if key is None or self._ttl <= 0:
            return None
        now = self._clock()
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
        if key is None or self._ttl <= 0:
            return
        outage = any(error.unavailable for error in resolved.errors)
        expires = self._clock() + (min(self._ttl, self._refresh) if outage else self._ttl)
        with self._lock:
            self._resolved[key] = _Entry(resolved, expires)
            self._resolved.move_to_end(key)
            while len(self._resolved) > self._size:
                self._resolved.popitem(last=False)


MAX_RECORD_DEPTH = 64
"""Deepest nesting of models, mappings and lists walked in a record outside its rule
groups (rule groups are bounded by `MAX_RULE_DEPTH`); a deeper record is not cached."""


def rule_fields(value: Any) -> frozenset[str] | None:
    """The ``field`` of every rule condition inside ``value``; ``None`` (not cacheable) if unknown.

    ``None`` for groups deeper than `MAX_RULE_DEPTH` or other structure deeper
    than `MAX_RECORD_DEPTH`.
    """
    found: set[str] = set()
    return frozenset(found) if _walk(value, found, 0) else None


def _walk(value: Any, found: set[str], depth: int) -> bool:
    """Add condition fields under ``value`` to ``found``; ``False``: some not reached."""
    if isinstance(value, RuleGroup):
        return _group_fields(value, found, 1)
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


def _group_fields(group: RuleGroup, found: set[str], depth: int) -> bool:
    """Condition fields of ``group`` (at nesting ``depth``); ``False`` past `MAX_RULE_DEPTH`."""
    if depth > MAX_RULE_DEPTH:
        return False
    for item in group.conditions:
        if isinstance(item, RuleGroup):
            if not _group_fields(item, found, depth + 1):
                return False
        else:
            found.add(item.field)
    return True


def _read(ctx: Mapping[str, Any], path: str) -> Any:
    """The tagged value at ``path``; a value that raises when read keys as unreadable."""
    try:
        value = lookup(ctx, path)
    except GraphBubbleUp:
        raise
    except Exception as exc:  # the rules see it as false: one key for every such request
        return ["unreadable", type(exc).__name__]
    return _canonical(value)


class _Uncacheable(ToolSearchError):
    """A request value that cannot be fingerprinted by what it holds."""


_SCALARS = (str, int, float, bool, type(None))


def _canonical(value: Any) -> Any:
    """A request value tagged so that a missing path never equals any value."""
    return ["missing"] if value is MISSING else ["value", _held(value, 0)]


def _held(value: Any, depth: int) -> Any:
    """JSON of what ``value`` holds, each level tagged with its exact type.

    Raises:
        _Uncacheable: A type not listed in `ResolutionCache.key`, or nesting over 32.
    """
    kind = type(value)
    if depth > 32:
        raise _Uncacheable
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
    raise _Uncacheable


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


def failure_kind(path: str) -> SourceKind:
    """What a `ResolvedTools.failures` path names: an outage, or the configuration."""
    if path.startswith("mcp_clients.") and ".servers." in path:
        return "mcp"
    if path.startswith("tool_providers."):
        return "provider"
    return "config"
