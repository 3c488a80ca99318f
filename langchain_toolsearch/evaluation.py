"""Retrieval metrics for a tool library: recall@k, NDCG@10, and an evaluation loop.

A search function is ``search(query: str, k: int) -> Sequence[str]`` (up to ``k``
tool names, best first); ``toolsearch eval LIBRARY QUERIES`` runs the package's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchDataError

__all__ = [
    "EvalQuery",
    "EvalReport",
    "SearchFn",
    "evaluate",
    "load_queries",
    "ndcg_at_k",
    "recall_at_k",
]


@dataclass(frozen=True)
class EvalQuery:
    r"""One retrieval query with its gold tools.

    Attributes:
        id: Source identifier (e.g. BFCL's ``"multiple_0"``, or the line number).
        query: The request text.
        gold: Names of the tools the query needs, de-duplicated, in order (never empty).
    """

    id: str
    query: str
    gold: tuple[str, ...]


SearchFn = Callable[[str, int], Sequence[str]]
"""``search(query, k)`` -> up to ``k`` tool names, best first."""


def _check(gold: Iterable[str], k: int) -> set[str]:
    if k < 1:
        msg = f"k must be >= 1, got {k}"
        raise ToolSearchConfigError(msg)
    gold_set = set(gold)
    if not gold_set:
        msg = "gold must name at least one tool"
        raise ToolSearchConfigError(msg)
    return gold_set


def recall_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of the gold tools found in the top ``k`` results, in ``[0, 1]``.

    Args:
        ranked: Tool names, best first (may be shorter than ``k``).
        gold: Relevant tool names; duplicates count once.
        k: Cut-off (>= 1).

    Returns:
        ``|top_k & gold| / |gold|``.

    Raises:
        ValueError: ``k < 1`` or ``gold`` is empty.
    """
    gold_set = _check(gold, k)
    return len(gold_set.intersection(ranked[:k])) / len(gold_set)


def ndcg_at_k(ranked: Sequence[str], gold: Sequence[str], k: int = 10) -> float:
    """NDCG at ``k`` with binary relevance, in ``[0, 1]``.

    ``DCG = sum(1 / log2(rank + 1))`` over 1-based ranks ``<= k`` holding a gold tool
    (first rank only); ``IDCG`` is the DCG of ``min(|gold|, k)`` hits at ranks 1, 2, ...

    Args:
        ranked: Tool names, best first.
        gold: Relevant tool names; duplicates count once.
        k: Cut-off (>= 1).

    Returns:
        ``DCG / IDCG``.

    Raises:
        ValueError: ``k < 1`` or ``gold`` is empty.
    """
    gold_set = _check(gold, k)
    seen: set[str] = set()
    dcg = 0.0
    for index, name in enumerate(ranked[:k]):
        if name in gold_set and name not in seen:
            seen.add(name)
            dcg += 1.0 / math.log2(index + 2)
    idcg = sum(1.0 / math.log2(index + 2) for index in range(min(len(gold_set), k)))
    return dcg / idcg


@dataclass
class EvalReport:
    """Mean retrieval quality over a query set.

    Attributes:
        recall: ``{k: mean recall@k}`` for each requested ``k``, in ``[0, 1]``.
        ndcg10: Mean NDCG@10, in ``[0, 1]``.
        queries: Number of queries averaged over.
    """

    recall: dict[int, float]
    ndcg10: float
    queries: int

    def summary(self) -> str:
        """One line, e.g. ``"recall@1 0.394  recall@5 0.587  ndcg@10 0.530  (n=2501)"``."""
        parts = [f"recall@{k} {value:.3f}" for k, value in sorted(self.recall.items())]
        parts.append(f"ndcg@10 {self.ndcg10:.3f}")
        return "  ".join(parts) + f"  (n={self.queries})"


def evaluate(
    search: SearchFn, queries: Sequence[EvalQuery], ks: Sequence[int] = (1, 5, 10)
) -> EvalReport:
    """Run ``search(query.query, max(*ks, 10))`` per query; average recall@k and NDCG@10.

    Args:
        search: ``(query text, k) -> tool names`` best first.
        queries: Queries with non-empty ``gold``.
        ks: Recall cut-offs (each >= 1).

    Returns:
        An :class:`EvalReport` over all queries.

    Raises:
        ValueError: ``queries`` or ``ks`` is empty, a ``k < 1``, or an empty ``gold``.
    """
    if not queries:
        msg = "evaluate needs at least one query"
        raise ToolSearchConfigError(msg)
    if not ks:
        msg = "ks must name at least one cut-off"
        raise ToolSearchConfigError(msg)
    depth = max(*ks, 10)
    recall_sums = dict.fromkeys(ks, 0.0)
    ndcg_sum = 0.0
    for query in queries:
        ranked = list(search(query.query, depth))[:depth]
        for k in ks:
            recall_sums[k] += recall_at_k(ranked, query.gold, k)
        ndcg_sum += ndcg_at_k(ranked, query.gold, 10)
    count = len(queries)
    return EvalReport(
        recall={k: total / count for k, total in recall_sums.items()},
        ndcg10=ndcg_sum / count,
        queries=count,
    )


def load_queries(path: str | Path) -> list[EvalQuery]:
    """Read evaluation queries from a JSON list or a JSONL file.

    Records are ``{"query": str, "gold": [names] or name, "id": str (optional)}``; a
    record without ``id`` gets its 1-based position.

    Args:
        path: A ``.json`` list of records, or one record per line (blank lines skipped).

    Returns:
        The queries in file order.

    Raises:
        OSError: The file cannot be read.
        ValueError: The file is empty or not JSON, or a record lacks ``query`` or ``gold``.
    """
    text = Path(path).read_text(encoding="utf-8")
    stripped = text.lstrip()
    records: list[Any]
    try:
        if stripped.startswith("["):
            records = json.loads(text)
        else:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise ToolSearchDataError(f"{path}: not JSON or JSONL ({exc})") from exc
    if not records:
        raise ToolSearchDataError(f"{path}: no queries")
    queries: list[EvalQuery] = []
    for position, record in enumerate(records, 1):
        where = f"{path}: record {position}"
        if not isinstance(record, dict):
            raise ToolSearchDataError(f'{where}: expected {{"query": ..., "gold": [...]}}')
        query = record.get("query")
        gold = record.get("gold")
        if isinstance(gold, str):
            gold = [gold]
        if not isinstance(query, str) or not query.strip():
            raise ToolSearchDataError(f"{where}: needs a non-empty string 'query'")
        if not isinstance(gold, list) or not gold or not all(isinstance(g, str) for g in gold):
            raise ToolSearchDataError(f"{where}: needs 'gold', a non-empty list of tool names")
        queries.append(
            EvalQuery(
                id=str(record.get("id", position)), query=query, gold=tuple(dict.fromkeys(gold))
            )
        )
    return queries
