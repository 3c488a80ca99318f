"""`langchain_toolsearch.evaluation` (metrics, evaluate(), load_queries) and the rank-bm25 baseline of `benchmarks`."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from benchmarks.baseline import baseline_bm25okapi_search
from benchmarks.datasets import EvalQuery, ToolDef, default_data_dir, load_bfcl
from langchain_toolsearch.catalog import load_catalog
from langchain_toolsearch.evaluation import (
    EvalReport,
    evaluate,
    ndcg_at_k,
    recall_at_k,
)

# Hand-computed discounts: 1/log2(rank + 1)
D1, D2, D3, D4 = 1.0, 1 / math.log2(3), 0.5, 1 / math.log2(5)  # 1, 0.6309, 0.5, 0.4307

# --------------------------------------------------------------------------- metrics


def test_recall_at_k_by_hand() -> None:
    ranked = ["a", "b", "c", "d"]
    assert recall_at_k(ranked, ["b", "e"], 1) == 0.0
    assert recall_at_k(ranked, ["b", "e"], 2) == 0.5
    assert recall_at_k(ranked, ["b", "e"], 10) == 0.5  # ranked shorter than k
    assert recall_at_k(ranked, ["a", "c", "d"], 3) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, ["b", "b"], 2) == 1.0  # duplicate gold counts once
    assert recall_at_k(["b", "b", "x"], ["b", "x"], 2) == 0.5  # duplicate results too
    assert recall_at_k([], ["a"], 5) == 0.0


def test_ndcg_at_k_by_hand() -> None:
    # hits at ranks 2 and 4 of 2 gold: (0.6309 + 0.4307) / (1 + 0.6309) = 0.650921
    assert ndcg_at_k(["x", "a", "y", "b"], ["a", "b"], 10) == pytest.approx((D2 + D4) / (D1 + D2))
    assert ndcg_at_k(["x", "a", "y", "b"], ["a", "b"], 10) == pytest.approx(0.650921, abs=1e-6)
    # cut at k=2: only the rank-2 hit counts, ideal is still 2 hits
    assert ndcg_at_k(["x", "a", "y", "b"], ["a", "b"], 2) == pytest.approx(D2 / (D1 + D2))
    # more gold than k: ideal has k hits
    assert ndcg_at_k(["a", "b"], ["a", "b", "c"], 2) == 1.0
    # a repeated result counts once: (1 + 0.5) / (1 + 0.6309) = 0.9197
    assert ndcg_at_k(["a", "a", "b"], ["a", "b"], 10) == pytest.approx((D1 + D3) / (D1 + D2))
    assert ndcg_at_k(["a", "b"], ["b", "a"], 10) == 1.0
    assert ndcg_at_k(["x", "y"], ["a"], 10) == 0.0
    assert ndcg_at_k(["x", "a"], ["a"]) == pytest.approx(D2)  # default k=10


@pytest.mark.parametrize("metric", [recall_at_k, ndcg_at_k])
def test_metric_errors(metric: Callable[..., float]) -> None:
    with pytest.raises(ValueError, match="k must be >= 1"):
        metric(["a"], ["a"], 0)
    with pytest.raises(ValueError, match="at least one tool"):
        metric(["a"], [], 5)


def test_evaluate_averages_over_queries() -> None:
    results = {"q1": ["a", "b", "c"], "q2": ["x", "y", "z"], "q3": ["m"] + ["n"] * 11 + ["g"]}
    calls: list[tuple[str, int]] = []

    def search(query: str, k: int) -> list[str]:
        calls.append((query, k))
        return results[query]

    queries = [
        EvalQuery("1", "q1", ("a",)),
        EvalQuery("2", "q2", ("y", "w")),
        EvalQuery("3", "q3", ("g",)),  # at rank 13, beyond the depth
    ]
    report = evaluate(search, queries)
    assert calls == [("q1", 10), ("q2", 10), ("q3", 10)]
    assert report.queries == 3
    assert report.recall == pytest.approx({1: 1 / 3, 5: 1.5 / 3, 10: 1.5 / 3})
    assert report.ndcg10 == pytest.approx((1.0 + D2 / (D1 + D2) + 0.0) / 3)
    assert isinstance(report, EvalReport)
    assert report.summary().startswith("recall@1 0.333  recall@5 0.500  recall@10 0.500")

    calls.clear()
    deep = evaluate(search, queries, ks=(20,))
    assert calls[0] == ("q1", 20)
    assert deep.recall == pytest.approx({20: 2.5 / 3})
    assert deep.ndcg10 == pytest.approx(report.ndcg10)  # NDCG stays at 10

    with pytest.raises(ValueError, match="at least one query"):
        evaluate(search, [])
    with pytest.raises(ValueError, match="cut-off"):
        evaluate(search, queries, ks=())


# --------------------------------------------------------------------------- baseline


def test_baseline_reproduces_the_readme_figures() -> None:
    tools, queries = load_bfcl()
    report = evaluate(baseline_bm25okapi_search(tools), queries)
    # README: recall@5 0.587, recall@10 0.651, NDCG@10 0.529 (±0.01 allowed).
    assert report.recall[5] == pytest.approx(0.587, abs=0.01)
    assert report.recall[10] == pytest.approx(0.651, abs=0.01)
    assert report.ndcg10 == pytest.approx(0.529, abs=0.01)
    # Exact figures with ties broken by library order (regression guard).
    assert report.recall[1] == pytest.approx(0.3943, abs=1e-4)
    assert report.recall[5] == pytest.approx(0.5872, abs=1e-4)
    assert report.recall[10] == pytest.approx(0.6533, abs=1e-4)
    assert report.ndcg10 == pytest.approx(0.5298, abs=1e-4)
    assert report.queries == 2501


def test_baseline_scores_equal_bm25okapi_get_scores() -> None:
    tools, queries = load_bfcl()
    search = baseline_bm25okapi_search(tools)
    for query in queries[::50]:
        expected = search.index.get_scores(query.query.lower().split())
        assert np.array_equal(search.scores(query.query), expected), query.id
    # unknown words and repeated words behave as in get_scores
    text = "zzzunknown weather weather"
    assert np.array_equal(search.scores(text), search.index.get_scores(text.split()))


def test_baseline_ranking_and_ties() -> None:
    tools = [
        ToolDef("alpha", "send an email", {}),
        ToolDef("beta", "read a file", {}),
        ToolDef("gamma", "send an email", {}),
        ToolDef("delta", "delete a file", {}),
        ToolDef("epsilon", "list folders", {}),
    ]
    search = baseline_bm25okapi_search(tools)
    assert search("Send EMAIL", 2) == ["alpha", "gamma"]  # tie: library order
    assert search("read file", 1) == ["beta"]
    assert search("nothing matches", 3) == ["alpha", "beta", "gamma"]  # all zero
    assert len(search("email", 50)) == 5
    assert search("email", 0) == []
    with pytest.raises(ValueError, match="at least one tool"):
        baseline_bm25okapi_search([])


def test_baseline_accepts_langchain_tools() -> None:
    tools = load_catalog(default_data_dir() / "github-mcp-server-tools")
    search = baseline_bm25okapi_search(tools)
    top = search("list the branches of a repository", 3)
    assert "list_branches" in top
