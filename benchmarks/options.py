"""Two options measured in `make bench`: the hybrid (``embeddings=``) and the catalog.

* **hybrid on validation data**: recall@1/5/10 and NDCG@10 of
  ``ToolSearchMiddleware(tools=..., top_k=10)`` against the same with
  ``embeddings=E`` (BM25 and ``E`` fused by reciprocal rank fusion), through
  the public ``search``, on ``restbench-toolalpaca`` (134 real API endpoints,
  265 requests with gold tools): a set nothing was tuned on, reported only.
  ``E`` is :class:`~langchain_toolsearch.search.HashingEmbeddings`
  (a bag of words: a floor, no semantics) always, and each offline model of
  :mod:`benchmarks.embedding_models` installed with ``--semantic``.
* **catalog tokens** (``inject_catalog=True``): the estimated tokens
  (UTF-8 bytes / 4) of the catalog block in the system hint for GitHub's MCP
  server (117 tools) and the BFCL pool (1,437 tools), next to binding every
  schema, and whether the default ``catalog_max_tokens`` admits it.

Run alone with ``python -m benchmarks.options [--semantic]``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from benchmarks.datasets import ToolDef
from langchain_toolsearch.evaluation import EvalQuery, EvalReport, evaluate

if TYPE_CHECKING:
    from benchmarks.report import _Report

VALIDATION = "restbench-toolalpaca"


def load_validation(data_dir: Path) -> tuple[list[ToolDef], list[EvalQuery]]:
    """The validation set: tools and queries of ``restbench-toolalpaca`` (never tuned on)."""
    folder = data_dir / VALIDATION
    tools = [
        ToolDef(name=t["name"], description=t["description"], parameters=t["parameters"])
        for t in json.loads((folder / "tools.json").read_text())
    ]
    queries = [
        EvalQuery(id=str(i), query=q["query"], gold=tuple(dict.fromkeys(q["gold"])))
        for i, q in enumerate(json.loads((folder / "queries.json").read_text()))
    ]
    return tools, queries


def _measure(tools: Sequence[Any], queries: Sequence[EvalQuery], **options: Any) -> EvalReport:
    from langchain_toolsearch import ToolSearchMiddleware

    mw = ToolSearchMiddleware(tools=tools, top_k=10, **options)
    return evaluate(lambda query, k: [r.name for r in mw.search(query)][:k], queries)


def hybrid_section(rep: _Report, data_dir: Path, models: Sequence[tuple[str, Embeddings]]) -> None:
    """The hybrid against BM25 on the validation set (see the module doc)."""
    from langchain_toolsearch.search import HashingEmbeddings

    rep.line("## Hybrid search on validation data (embeddings=)")
    rep.line()
    defs, queries = load_validation(data_dir)
    tools = [t.to_tool() for t in defs]
    runs: list[tuple[str, dict[str, Any]]] = [
        ("BM25 (default)", {}),
        ("BM25 + HashingEmbeddings(256), RRF", {"embeddings": HashingEmbeddings(256)}),
        *((f"BM25 + {label}, RRF", {"embeddings": e}) for label, e in models),
    ]
    rows: list[list[object]] = []
    for label, options in runs:
        started = time.perf_counter()
        report = _measure(tools, queries, **options)
        took = time.perf_counter() - started
        rows.append(
            [
                label,
                f"{report.recall[1]:.3f}",
                f"{report.recall[5]:.3f}",
                f"{report.recall[10]:.3f}",
                f"{report.ndcg10:.3f}",
                f"{took:.1f} s",
            ]
        )
    rep.line(
        f"{VALIDATION}: {len(tools)} tools, {len(queries)} queries (validation only: "
        "nothing was tuned on it). ToolSearchMiddleware(tools=..., top_k=10[, embeddings=E])"
        ".search; time = build + all queries."
    )
    rep.line()
    rep.table(["search", "recall@1", "recall@5", "recall@10", "NDCG@10", "time"], rows)


def catalog_section(rep: _Report, libraries: Sequence[tuple[str, Sequence[ToolDef]]]) -> None:
    """Estimated catalog tokens at 117 and 1,437 tools (see the module doc)."""
    from examples.demo import schema_tokens
    from langchain_toolsearch._library import ToolLibrary
    from langchain_toolsearch._options import DEFAULT_CATALOG_MAX_TOKENS
    from langchain_toolsearch._steps import Catalog

    rep.line("## Catalog in the system hint (inject_catalog=True)")
    rep.line()
    rows: list[list[object]] = []
    for label, defs in libraries:
        tools = [t.to_tool() for t in defs]
        catalog = Catalog(ToolLibrary(tools), auto_load=False, max_tokens=2**62)
        per_tool = catalog.static_tokens / max(1, len(tools))
        admitted = catalog.static_tokens <= DEFAULT_CATALOG_MAX_TOKENS
        rows.append(
            [
                f"{label} ({len(tools):,} tools)",
                f"{catalog.static_tokens:,}",
                f"{per_tool:.1f}",
                f"{schema_tokens(tools):,}",
                "listed" if admitted else "refused at construction",
            ]
        )
    rep.line(
        "Tokens ~ UTF-8 bytes / 4 (the estimator catalog_max_tokens uses) of the catalog "
        "block: intro, header and one `- name: description` line per tool (descriptions cut "
        f"to 150 characters). Default catalog_max_tokens = {DEFAULT_CATALOG_MAX_TOKENS:,}."
    )
    rep.line()
    rep.table(
        ["library", "catalog tokens", "per tool", "bind every schema", "default budget"], rows
    )


def main() -> int:
    """``python -m benchmarks.options [--semantic]``."""
    import sys

    from benchmarks.datasets import default_data_dir, load_bfcl, load_github_mcp_tools
    from benchmarks.embedding_models import installed_models
    from benchmarks.report import _Report

    rep = _Report(sys.stdout)
    data_dir = default_data_dir()
    models: list[tuple[str, Embeddings]] = []
    if "--semantic" in sys.argv:
        loaded, skipped = installed_models(["minilm"])
        models = [(m.label, e) for m, e in loaded]
        for line in skipped:
            rep.line(f"- {line}")
    hybrid_section(rep, data_dir, models)
    catalog_section(
        rep,
        [
            ("GitHub MCP server", load_github_mcp_tools(data_dir)),
            ("BFCL", load_bfcl(data_dir)[0]),
        ],
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
