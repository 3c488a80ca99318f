"""Learning from use (``learning=``): past queries that led to a tool raise it for similar ones.

A successful guarded call of a tool reads the thread's own messages: the searches before
the tool's latest load (not yet followed by a successful call of it) become evidence for it,
redacted and kept per scope key (the developer's ``Learning.scope(config)``) in the LangGraph store
(namespace :data:`NAMESPACE` + ``(<scope>,)``, one item per tool) or, without one, in memory
(:data:`_MEMORY` characters of queries in all; the least recently taught scopes go). A search of the
same scope ranks with :class:`LearnedIndex`: a small BM25 over each tool's past queries
(the package's analyzer), fused with the index's own scores. Nothing learned is shown.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from heapq import merge
from itertools import islice
from typing import Any

from langgraph.store.base import BaseStore

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._access import LOADED_ON_CALL
from langchain_toolsearch._effects import Effect, Logic
from langchain_toolsearch._scope import RequestScope
from langchain_toolsearch._steps import MAX_QUERY_CHARS, query_list
from langchain_toolsearch._support import CauseLog, positive_seconds, redact
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch.search import ScoredTool, ToolIndex
from langchain_toolsearch.search._analysis import tokenize
from langchain_toolsearch.storage._context import answered, receipt_of
from langchain_toolsearch.types import Learning

NAMESPACE: tuple[str, ...] = ("toolsearch", "learned")
"""Namespace prefix of evidence in a LangGraph store; the scope key is the last label."""
_MEMORY = 20_000_000  # characters of queries kept in memory without a store, all scopes
_TERMS = 20_000  # query texts kept analysed (a rebuilt Matcher analyses only new ones)
_QUERIES = 8  # the latest queries of the searches before a load
_HISTORY = 200  # the latest messages read for a call's load and its searches
_MATCHERS = 64  # versions of scopes' evidence kept analysed (the oldest built go)
_POOL = 100  # the index's best hits fused with the learned ones
_K1, _B = 1.2, 0.75
_FAILURES = CauseLog(logging.getLogger(__name__), "tool search: learning skipped a step (%s): %s")
"""A store outage or a failing ``Learning.scope``: no evidence for that step; answers stand."""


def succeeded(result: object) -> bool:
    """Whether a tool step's answer holds messages, none an error (a ``Command``: its own)."""
    update = getattr(result, "update", None)
    messages = update.get("messages") or [] if isinstance(update, Mapping) else [result]
    return bool(messages) and all(getattr(m, "status", "error") != "error" for m in messages)


def clock() -> float:
    """Now, in epoch seconds (what evidence is stamped and expired with)."""
    return time.time()


def label(key: str) -> str:
    """``key`` as a store namespace label (no ``.`` or NUL; reversible)."""
    return key.replace("%", "%25").replace(".", "%2E").replace("\x00", "%00")


class _Bounded(OrderedDict[Any, Any]):
    """A map whose entries ``cost`` at most ``budget`` in all (the least recently kept go)."""

    def __init__(self, budget: int, cost: Callable[[Any], int] = lambda value: 1) -> None:
        super().__init__()
        self.budget, self.cost, self.used, self.lock = budget, cost, 0, threading.Lock()

    def keep(self, key: Any, value: Any) -> None:
        self.drop(key)
        self[key], self.used = value, self.used + self.cost(value)
        while self.used > self.budget:
            self.drop(next(iter(self)))

    def drop(self, key: Any) -> None:
        if key in self:
            self.used -= self.cost(self.pop(key))


def _chars(evidence: Mapping[str, Sequence[Sequence[Any]]]) -> int:
    return sum(len(q) + 32 for e in evidence.values() for _, q in e)


class Matcher:
    """A scope's evidence (``{tool: [[time, query], ...]}``) as a BM25 over each tool's queries."""

    def __init__(
        self, evidence: Mapping[str, Sequence[Sequence[Any]]], terms: Callable[[str], list[str]]
    ) -> None:
        self.docs = {t: Counter(w for _, q in e for w in terms(q)) for t, e in evidence.items()}
        self.df: Counter[str] = Counter(w for doc in self.docs.values() for w in doc)
        self.avg = sum(map(_size, self.docs.values())) / max(1, len(self.docs))

    def match(self, query: str) -> dict[str, float]:
        """Each tool's match in ``[0, 1]``: ``c * (c / c_best) ** 2``.

        ``c``: the tool's BM25 score over the query's best possible (how much of the query
        its past queries cover); ``c_best``: the best tool's.
        """
        n, terms = len(self.docs), set(tokenize(query))
        idf = {w: math.log(1 + (n - self.df[w] + 0.5) / (self.df[w] + 0.5)) for w in terms}
        best = sum(idf.values()) * (_K1 + 1)
        found: dict[str, float] = {}
        for tool, doc in self.docs.items():
            norm = _K1 * (1 - _B + _B * _size(doc) / self.avg)
            score = sum(idf[w] * doc[w] * (_K1 + 1) / (doc[w] + norm) for w in terms if w in doc)
            if score > 0:
                found[tool] = score / best
        top = max(found.values(), default=0.0)
        return {t: m * (m / top) ** 2 for t, m in found.items()}  # the closest matches count


class LearnedIndex:
    """``base`` with the tools of a scope's evidence raised (``matcher``)."""

    def __init__(self, base: ToolIndex, matcher: Matcher, weight: float) -> None:
        self.base, self.matcher, self.weight = base, matcher, weight

    def __len__(self) -> int:
        return len(self.base)

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """The base hits with learned tools raised: ``s + weight * match * (1 - s)``."""
        learned = self.matcher.match(query)
        stream = self.base.rank(query)
        head = {h.name: h for h in islice(stream, _POOL)}
        for name in learned.keys() - head.keys():
            head[name] = ScoredTool(name, 0.0, 0.0)
        fused = sorted(
            (
                replace(h, score=h.score + self.weight * learned.get(n, 0.0) * (1 - h.score))
                for n, h in head.items()
            ),
            key=lambda h: (-h.score, h.name),
        )
        seen: set[str] = set()
        for hit in merge(fused, stream, key=lambda h: -h.score):
            if hit.name not in seen and hit.score > 0:
                seen.add(hit.name)
                yield hit


def _size(doc: Counter[str]) -> int:
    return sum(doc.values())


def awaiting(messages: Sequence[Any], tool: str) -> list[str]:
    """The queries behind ``tool``'s latest load in ``messages`` not yet followed by its call.

    The searches answered without error since the load before them (at most
    :data:`_QUERIES`, redacted), if no successful call of ``tool`` answered after its load;
    only the last :data:`_HISTORY` messages are read.
    """
    group: list[str] = []
    found: list[str] = []
    closed = False
    for call, message in answered(messages[-_HISTORY:]):
        name, args, ok = call["name"], call["args"], message.status != "error"
        args = args if isinstance(args, Mapping) else {}
        searched = query_list(args.get("query"), args.get("queries"))
        if name == P.SEARCH_TOOL_NAME and ok and searched:
            group, closed = [*([] if closed else group), *searched][-_QUERIES:], False
        receipt, artifact = receipt_of(call, message), message.artifact
        listed = receipt.listed if receipt is not None else ()
        if isinstance(artifact, Mapping) and artifact.get(LOADED_ON_CALL) == name:
            listed = (name,)  # loaded on call
        if listed:  # a load: the searches before it are its own
            found, closed = group if tool in listed else found, True
        elif ok and (args.get("tool_name") if name == P.CALL_TOOL_NAME else name) == tool:
            found = []  # taught by that call
    return [redact(q[:MAX_QUERY_CHARS]) for q in found]


class Learner:
    """The evidence of one middleware or node: the queries kept per scope, and their ranking.

    Args:
        config: The ``learning=`` option.
        store: The ``store=`` option (else a run's graph store, else memory).
    """

    def __init__(self, config: Learning, store: BaseStore | None) -> None:
        self.config, self.store = config, store
        self.retention = positive_seconds("Learning.retention", config.retention)
        self.memory, self.matchers = _Bounded(_MEMORY, _chars), _Bounded(_MATCHERS)
        self.terms = _Bounded(_TERMS)
        self.written: weakref.WeakSet[BaseStore] = weakref.WeakSet()
        """The graph stores this instance kept evidence in (:meth:`forget` clears them too)."""

    def key(self, scope: RequestScope) -> str | None:
        """The run's scope key (``None``: no learning in this step; a failure is logged)."""
        try:
            key = self.config.scope(scope.config)
            if key is not None and not isinstance(key, str):
                raise ToolSearchTypeError(
                    f"Learning.scope must return a string (the scope key) or None, got {key!r}"
                )
        except Exception as exc:  # learning is skipped, the step goes on
            _FAILURES.failed(exc)
            return None
        return key or None

    def called(self, scope: RequestScope, name: str, messages: Sequence[Any]) -> Logic[None]:
        """``name`` answered without error: its load's searches (``messages``) become evidence."""
        key = self.key(scope)
        queries = awaiting(messages, name) if key is not None else []
        if not queries or key is None:
            return
        store = self.store or scope.graph_store
        try:
            yield from self._keep(key, name, queries, store)
        except Exception as exc:  # a store outage: the call's answer stands
            _FAILURES.failed(exc)
        if store is not None and store is not self.store:
            self.written.add(store)

    def _keep(
        self, key: str, name: str, queries: Sequence[str], store: BaseStore | None
    ) -> Logic[None]:
        """Keep ``queries`` first in ``name``'s evidence (a store: one item per tool).

        Beyond ``max_tools``, the least recently used tools go. Writers of other tools never
        clash; two writers of one tool at once: the last write wins.
        """
        if store is None:
            with self.memory.lock:
                evidence = self._fresh(self.memory.get(key) or {})
                evidence = {name: self._merged(evidence.pop(name, []), queries), **evidence}
                self.memory.keep(key, dict(islice(evidence.items(), self.config.max_tools)))
            return
        found = yield from self._read(key, store, 2 * self.config.max_tools)
        evidence = self._fresh(found)
        space = (*NAMESPACE, label(key))
        value = {"queries": self._merged(evidence.pop(name, []), queries)}
        yield Effect.method(store, "put", space, name, value)
        kept = {name, *islice(evidence, self.config.max_tools - 1)}
        for stale in found.keys() - kept:  # expired or beyond max_tools
            yield Effect.method(store, "delete", space, stale)

    def _merged(self, kept: list[list[Any]], queries: Sequence[str]) -> list[list[Any]]:
        now = clock()
        fresh = [[now, q] for q in dict.fromkeys(reversed(queries))]
        return [*fresh, *(e for e in kept if e[1] not in queries)][: self.config.max_queries]

    def _fresh(self, found: Mapping[str, list[list[Any]]]) -> dict[str, list[list[Any]]]:
        """``found`` within retention, most recently used tool first."""
        oldest = clock() - self.retention
        fresh = {t: [e for e in q if e[0] >= oldest] for t, q in found.items()}
        return dict(sorted(((t, q) for t, q in fresh.items() if q), key=lambda i: -i[1][0][0]))

    def _read(
        self, key: str, store: BaseStore | None, limit: int
    ) -> Logic[dict[str, list[list[Any]]]]:
        """The scope's evidence as kept (``{tool: [[time, query], ...]}``)."""
        if store is None:
            return dict(self.memory.get(key) or {})
        items = yield Effect.method(store, "search", (*NAMESPACE, label(key)), limit=limit)
        return {i.key: i.value.get("queries", []) for i in items}

    def _terms(self, query: str) -> list[str]:
        found: list[str] | None = self.terms.get(query)
        if found is None:
            found = tokenize(query)
            with self.terms.lock:
                self.terms.keep(query, found)
        return found

    def scoped(self, scope: RequestScope) -> Logic[RequestScope]:
        """``scope`` ranking with its scope's evidence (as it is when there is none)."""
        key = self.key(scope)
        if key is None:
            return scope
        try:
            store = self.store or scope.graph_store
            found = self._fresh((yield from self._read(key, store, self.config.max_tools)))
        except Exception as exc:  # a store outage: rank without evidence
            _FAILURES.failed(exc)
            return scope
        if not found:
            return scope
        stamp = (key, *((t, len(q), *q[0]) for t, q in found.items()))
        with self.matchers.lock:
            matcher = self.matchers.get(stamp)
        if matcher is None:  # built once per version of the scope's evidence
            matcher = Matcher(found, self._terms)
            with self.matchers.lock:
                self.matchers.keep(stamp, matcher)
        return replace(scope, index=LearnedIndex(scope.index, matcher, self.config.weight))

    def forget(self, key: str, store: BaseStore | None) -> Logic[None]:
        """Drop the evidence of scope ``key``.

        In memory, in ``store``, the ``store=`` option and the graph stores this instance
        kept evidence in.
        """
        with self.memory.lock:
            self.memory.drop(key)
        space = (*NAMESPACE, label(key))
        for where in {
            id(s): s for s in (store, self.store, *self.written) if s is not None
        }.values():
            gone: set[str] = set()  # a store whose delete keeps items cannot loop forever
            while True:
                found = yield Effect.method(where, "search", space, limit=100)
                items = [item for item in found if item.key not in gone]
                if not items:
                    break
                for item in items:
                    yield Effect.method(where, "delete", space, item.key)
                    gone.add(item.key)
