"""``toolsearch eval --misses``: which queries left a gold tool outside the top hits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_toolsearch._cli import main

SCHEMA = {"type": "object", "properties": {}}


def _catalog(tmp_path: Path) -> Path:
    tools = [
        {"name": "get_weather", "description": "Get the weather forecast for a city."},
        {"name": "send_email", "description": "Send an email message to someone."},
        {"name": "create_invoice", "description": "Create an invoice for a customer."},
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{**t, "inputSchema": SCHEMA} for t in tools]))
    return path


def _queries(tmp_path: Path) -> Path:
    path = tmp_path / "q.jsonl"
    lines = [
        {"id": "hit", "query": "weather forecast", "gold": ["get_weather"]},
        # no word within two edits of any word of send_email: BM25 (and its spelling
        # fallback) cannot find it
        {"id": "miss", "query": "notify a colleague", "gold": ["send_email"]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_misses_lists_each_query_with_a_gold_tool_outside_the_top(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, queries = _catalog(tmp_path), _queries(tmp_path)
    assert main(["eval", str(catalog), str(queries), "--misses", "--json", "-k", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["recall"] == {"2": 0.5}
    assert report["misses"] == [
        {"id": "miss", "query": "notify a colleague", "missing": ["send_email"], "top": []}
    ]

    assert main(["eval", str(catalog), str(queries), "--misses"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        "1 query missing a gold tool in the top 10:",
        "  miss: 'notify a colleague' missing send_email; top: (no hits)",
    ]


def test_without_misses_the_output_is_the_summary_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog, queries = _catalog(tmp_path), _queries(tmp_path)
    assert main(["eval", str(catalog), str(queries), "--json"]) == 0
    assert "misses" not in json.loads(capsys.readouterr().out)
    assert main(["eval", str(catalog), str(queries)]) == 0
    assert capsys.readouterr().out.startswith("3 tools, 2 queries: recall@1 0.500")
