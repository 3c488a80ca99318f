"""Learning from use (``learning=``): past queries that led to a tool raise it for similar ones.

A successful guarded call of a tool reads the thread's own messages: the searches before
the tool's latest load (not yet followed by a successful call of it) become evidence for it,
redacted and kept per scope key (the developer's ``Learning.scope(config)``) in the LangGraph store
(namespace :data:`NAMESPACE` + ``(<scope>,)``) or, without one, in memory. A search of the
same scope ranks with :class:`LearnedIndex`: a small BM25 over each tool's past queries
(the package's analyzer), fused with the index's own scores. Nothing learned is shown.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from heapq import merge
from itertools import islice
from typing import Any

from langgraph.store.base import BaseStore

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Effect, Logic
from langchain_toolsearch._scope import RequestScope
from langchain_toolsearch._steps import query_list
from langchain_toolsearch._support import CauseLog, positive_seconds, redact
from langchain_toolsearch.errors import ToolSearchTypeError
from langchain_toolsearch.search import ScoredTool, ToolIndex
from langchain_toolsearch.search._analysis import tokenize
from langchain_toolsearch.storage._context import answered, receipt_of
from langchain_toolsearch.types import Learning

NAMESPACE: tuple[str, ...] = ("toolsearch", "learned")
"""Namespace prefix of evidence in a LangGraph store; the scope key is the last label."""
_KEY = "evidence"
_SCOPES = 10_000  # scopes kept in memory without a store
_QUERIES = 8  # the latest queries of the searches before a load
_HISTORY = 200  # the latest messages read for a call's load and its searches
_MATCHERS = 64  # versions of scopes' evidence kept analysed (the oldest built go)
_POOL = 100  # the index's best hits fused with the learned ones
_K1, _B = 1.2, 0.75
_FAILURES = CauseLog(
    logging.getLogger(__name__), "tool search: learning skipped a store read or write (%s): %s"
)
"""A store outage: the search ranks without evidence, a call's answer stands."""


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
    """A map of at most ``size`` entries (the least recently written go), with a lock."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size, self.lock = size, threading.Lock()

    def keep(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class Matcher:
    """A scope's evidence (``{tool: [[time, query], ...]}``) as a BM25 over each tool's queries."""

    def __init__(self, evidence: Mapping[str, Sequence[Sequence[Any]]]) -> None:
        self.docs = {t: Counter(w for _, q in e for w in tokenize(q)) for t, e in evidence.items()}
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
        receipt = receipt_of(call, message)
        if receipt is not None and receipt.listed:  # a load: the searches before it are its own
            found, closed = group if tool in receipt.listed else found, True
        elif ok and (args.get("tool_name") if name == P.CALL_TOOL_NAME else name) == tool:
            found = []  # taught by that call
    return [redact(q) for q in found]


class Learner:
    """The evidence of one middleware or node: the queries kept per scope, and their ranking.

    Args:
        config: The ``learning=`` option.
        store: The ``store=`` option (else a run's graph store, else memory).
    """

    def __init__(self, config: Learning, store: BaseStore | None) -> None:
        self.config, self.store = config, store
        self.retention = positive_seconds("Learning.retention", config.retention)
        self.memory, self.matchers = _Bounded(_SCOPES), _Bounded(_MATCHERS)

    def key(self, scope: RequestScope) -> str | None:
        """The run's scope key (``None``: no learning in this run).

        Raises:
            ToolSearchTypeError: ``Learning.scope`` returned neither a string nor ``None``.
        """
        key = self.config.scope(scope.config)
        if key is not None and not isinstance(key, str):
            raise ToolSearchTypeError(
                f"Learning.scope must return a string (the scope key) or None, got {key!r}"
            )
        return key or None

    def called(self, scope: RequestScope, name: str, messages: Sequence[Any]) -> Logic[None]:
        """``name`` answered without error: its load's searches (``messages``) become evidence."""
        key = self.key(scope)
        queries = awaiting(messages, name) if key is not None else []
        if not queries or key is None:
            return
        try:
            yield from self._keep(key, name, queries, self.store or scope.graph_store)
        except Exception as exc:  # a store outage: the call's answer stands
            _FAILURES.failed(exc)

    def _keep(
        self, key: str, name: str, queries: Sequence[str], store: BaseStore | None
    ) -> Logic[None]:
        evidence = yield from self._read(key, store)
        now = clock()
        fresh = [[now, q] for q in dict.fromkeys(reversed(queries))]
        kept = [e for e in evidence.pop(name, []) if e[1] not in queries]
        evidence = {name: [*fresh, *kept][: self.config.max_queries], **evidence}
        evidence = dict(islice(evidence.items(), self.config.max_tools))
        if store is None:
            with self.memory.lock:
                self.memory.keep(key, evidence)
        else:
            yield Effect.method(store, "put", (*NAMESPACE, label(key)), _KEY, {"tools": evidence})

    def _read(self, key: str, store: BaseStore | None) -> Logic[dict[str, list[list[Any]]]]:
        """The scope's evidence within retention, most recently used tool first."""
        if store is None:
            found = self.memory.get(key) or {}
        else:
            item = yield Effect.method(store, "get", (*NAMESPACE, label(key)), _KEY)
            found = item.value.get("tools", {}) if item is not None else {}
        oldest = clock() - self.retention
        fresh = {t: [e for e in q if e[0] >= oldest] for t, q in found.items()}
        return {t: q for t, q in fresh.items() if q}

    def scoped(self, scope: RequestScope) -> Logic[RequestScope]:
        """``scope`` ranking with its scope's evidence (as it is when there is none)."""
        key = self.key(scope)
        if key is None:
            return scope
        try:
            evidence = yield from self._read(key, self.store or scope.graph_store)
        except Exception as exc:  # a store outage: rank without evidence
            _FAILURES.failed(exc)
            return scope
        if not evidence:
            return scope
        stamp = (key, *((t, len(q), *q[0]) for t, q in evidence.items()))
        with self.matchers.lock:
            matcher = self.matchers.get(stamp)
        if matcher is None:  # built once per version of the scope's evidence
            matcher = Matcher(evidence)
            with self.matchers.lock:
                self.matchers.keep(stamp, matcher)
        return replace(scope, index=LearnedIndex(scope.index, matcher, self.config.weight))

    def forget(self, key: str, store: BaseStore | None) -> Logic[None]:
        """Drop the evidence of scope ``key`` (memory, and ``store`` or the ``store=`` option)."""
        with self.memory.lock:
            self.memory.pop(key, None)
        store = store or self.store
        if store is not None:
            yield Effect.method(store, "delete", (*NAMESPACE, label(key)), _KEY)
