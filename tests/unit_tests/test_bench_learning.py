"""``benchmarks.learning``: the split and the replay through ``create_agent`` on a tiny library."""

from __future__ import annotations

import io

from benchmarks.datasets import EvalQuery, ToolDef
from benchmarks.learning import measure, section, split
from benchmarks.report import BenchConfig, _Report

OBJECT = {"type": "object", "properties": {"target": {"type": "string"}}}
TOOLS = [
    ToolDef("fetch_statement", "Retrieve a quarterly report.", OBJECT),
    ToolDef("get_weather", "Current weather for a city.", OBJECT),
    ToolDef("send_email", "Send an email message.", OBJECT),
]
QUERIES = [
    *(
        EvalQuery(f"m{i}", f"how is company {i} doing money-wise", ("fetch_statement",))
        for i in range(4)
    ),
    EvalQuery("w0", "weather in Paris", ("get_weather",)),
    EvalQuery(
        "both", "how is company 9 doing money-wise, and mail it", ("fetch_statement", "send_email")
    ),
]


def test_split_alternates_distinct_texts_of_tools_with_enough_queries() -> None:
    found = split([*QUERIES, QUERIES[0]], min_queries=4)
    replayed = {text for text, _ in found.replay}
    assert replayed == {QUERIES[0].query, QUERIES[2].query, QUERIES[5].query}
    assert ("how is company 9 doing money-wise, and mail it", ("fetch_statement",)) in found.replay
    assert found.held_out == [
        (QUERIES[1].query, "fetch_statement"),
        (QUERIES[3].query, "fetch_statement"),
    ]
    assert not replayed & {text for text, _ in found.held_out}
    assert found.others == [("weather in Paris", "get_weather")]  # never replayed


def test_replayed_use_raises_held_out_recall() -> None:
    found = measure(TOOLS, QUERIES)
    assert (found["replayed"], found["held_out"]) == (3, 2)
    assert found["without"] == 0.0 and found["with"] == 1.0
    assert found["others_without"] == found["others_with"] == 1.0


def test_section_prints_its_table(monkeypatch: object) -> None:
    out = io.StringIO()
    import benchmarks.datasets as datasets

    sets = {"load_bfcl": (TOOLS, QUERIES), "load_restbench_toolalpaca": (TOOLS, QUERIES)}
    for name, value in sets.items():
        monkeypatch.setattr(datasets, name, lambda data_dir=None, value=value: value)  # type: ignore[attr-defined]
    section(_Report(out), BenchConfig.make(quick=True, semantic=False, data_dir=None))
    text = out.getvalue()
    assert "## Learning from use" in text
    assert "| BFCL: BM25 | 1 / 3 / 2 | 0.000 | 1.000 | +1.000 | 1.000 -> 1.000 |" in text
    assert "| validation: BM25 |" in text
