"""Learning from use (``learning=``): held-out recall after replaying half of each tool's queries.

For every tool with at least :data:`MIN_QUERIES` queries naming it as gold, its queries
in file order alternate: the even ones are *replayed*, the odd ones *held out*. Each
replay is one turn of a real ``create_agent`` with ``ToolSearchMiddleware`` and a
scripted model, in its own thread under one scope key: ``search_tools(query)``,
``load_tool(tool)``, a successful call of the tool, an answer (the public path that
turns a query into evidence). Then each held-out (query, tool) pair is searched in the
same scope: recall@5 is the share of pairs whose tool is in the top 5, against the same
search without learning (BM25, and the hybrid with ``local_embeddings()`` when the
``[local-embeddings]`` model is installed). The validation set is reported, never tuned on.

Run alone with ``python -m benchmarks.learning``.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from benchmarks.datasets import EvalQuery, ToolDef
    from benchmarks.report import BenchConfig, _Report

__all__ = ["Split", "held_out_recall", "section", "split"]

MIN_QUERIES = 4
"""Queries a tool needs (as a gold tool) to be in the benchmark."""
K = 5
SCOPE = "bench"


@dataclass(frozen=True)
class Split:
    """Replayed turns (a query, its gold tools) and held-out (query, tool) pairs."""

    replay: list[tuple[str, tuple[str, ...]]]
    held_out: list[tuple[str, str]]
    others: list[tuple[str, str]]
    """Pairs of the tools left out (fewer queries): what learning must not push down."""


def split(queries: Sequence[EvalQuery], min_queries: int = MIN_QUERIES) -> Split:
    """Each tool's distinct queries (``min_queries`` or more) alternately replayed and held out.

    A query text is in one half only (the first tool to place it decides), so no held-out
    text was ever replayed; a replayed turn loads and calls its gold tools in the benchmark.
    """
    gold: dict[str, list[str]] = defaultdict(list)
    for q in queries:
        gold[q.query] += [t for t in q.gold if t not in gold[q.query]]
    by_tool: dict[str, list[str]] = defaultdict(list)
    for text, tools in gold.items():
        for tool in tools:
            by_tool[tool].append(text)
    counted = [tool for tool, texts in by_tool.items() if len(texts) >= min_queries]
    replayed: dict[str, bool] = {}
    for tool in counted:  # in first-seen order: the same split in every run
        for i, text in enumerate(by_tool[tool]):
            replayed.setdefault(text, i % 2 == 0)
    replay = [
        (text, tuple(t for t in gold[text] if t in counted)) for text, r in replayed.items() if r
    ]
    held = [(text, t) for text, r in replayed.items() if not r for t in gold[text] if t in counted]
    others = [(text, t) for text, tools in gold.items() if not replayed.get(text) for t in tools]
    return Split(replay, held, [(text, t) for text, t in others if t not in counted])


def _tool(defn: ToolDef) -> BaseTool:
    """A tool of ``defn``'s schema that answers ``"ok"`` (a successful call)."""
    return StructuredTool.from_function(
        func=lambda **_: "ok",
        name=defn.name,
        description=defn.description,
        args_schema=defn.parameters,
    )


def _scope(config: RunnableConfig) -> str | None:
    found: str | None = config.get("configurable", {}).get("scope")
    return found


def replay(search: Any, turns: Sequence[tuple[str, tuple[str, ...]]]) -> None:
    """Each turn scripted through ``create_agent`` in its own thread, scope :data:`SCOPE`."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search

    scripts = {
        f"need {i}": [Search(query), Load(*tools), *(Call(t, {}) for t in tools), Answer("done")]
        for i, (query, tools) in enumerate(turns)
    }
    model = ScriptedToolSearchModel(scripts=scripts)
    agent = create_agent(model, tools=[], middleware=[search], checkpointer=InMemorySaver())
    for i in range(len(turns)):
        config: RunnableConfig = {"configurable": {"thread_id": f"t{i}", "scope": SCOPE}}
        agent.invoke({"messages": [{"role": "user", "content": f"need {i}"}]}, config)


def held_out_recall(search: Any, pairs: Sequence[tuple[str, str]], scope: str | None) -> float:
    """The share of ``pairs`` whose tool is in the top :data:`K` of ``search`` in ``scope``."""
    config: RunnableConfig = {"configurable": {"scope": scope}}
    found = sum(tool in {r.name for r in search.search(query, config)} for query, tool in pairs)
    return found / max(1, len(pairs))


def measure(
    tools: Sequence[ToolDef],
    queries: Sequence[EvalQuery],
    embeddings: Embeddings | None = None,
    min_queries: int = MIN_QUERIES,
) -> dict[str, Any]:
    """Recall@5 on the held-out half without and with learning, and the replay's figures."""
    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.types import Learning

    search = ToolSearchMiddleware(
        tools=[_tool(t) for t in tools],
        top_k=K,
        embeddings=embeddings,
        learning=Learning(scope=_scope),
    )
    found = split(queries, min_queries)
    named = search.library.resolve  # the provider-safe name of a dotted one
    pairs = Split(
        [(q, tuple(named(t) or t for t in tools)) for q, tools in found.replay],
        [(q, named(t) or t) for q, t in found.held_out],
        [(q, named(t) or t) for q, t in found.others],
    )
    without = held_out_recall(search, pairs.held_out, None)  # no scope: no learning
    others = held_out_recall(search, pairs.others, None)
    started = time.perf_counter()
    replay(search, pairs.replay)
    seconds = time.perf_counter() - started
    return {
        "tools": len({tool for _, tool in pairs.held_out}),
        "replayed": len(pairs.replay),
        "held_out": len(pairs.held_out),
        "without": without,
        "with": held_out_recall(search, pairs.held_out, SCOPE),
        "others": len(pairs.others),
        "others_without": others,
        "others_with": held_out_recall(search, pairs.others, SCOPE),
        "ms_per_turn": 1000 * seconds / max(1, len(pairs.replay)),
    }


def _embeddings() -> Embeddings | None:
    """``local_embeddings()`` if its model is installed, else ``None`` (the hybrid skipped)."""
    try:
        from langchain_toolsearch.search import local_embeddings

        return local_embeddings()
    except ImportError:
        return None


def section(rep: _Report, cfg: BenchConfig) -> None:
    """The section of ``make bench``: BFCL (tuned on) and the validation set (reported)."""
    from benchmarks.datasets import load_bfcl, load_restbench_toolalpaca

    sets = [
        ("BFCL", *load_bfcl(cfg.data_dir)),
        ("validation", *load_restbench_toolalpaca(cfg.data_dir)),
    ]
    embeddings = None if cfg.quick else _embeddings()
    rows = []
    for name, tools, queries in sets:
        if cfg.quick:  # a slice: the first 40 tools' queries
            keep = {t.name for t in tools[:40]}
            queries = [q for q in queries if set(q.gold) <= keep]
        searches = [("BM25", None)] + ([("hybrid", embeddings)] if embeddings else [])
        for label, model in searches:
            found = measure(tools, queries, model)
            rows.append(
                [
                    f"{name}: {label}",
                    f"{found['tools']} / {found['replayed']} / {found['held_out']}",
                    f"{found['without']:.3f}",
                    f"{found['with']:.3f}",
                    f"{found['with'] - found['without']:+.3f}",
                    f"{found['others_without']:.3f} -> {found['others_with']:.3f}",
                    f"{found['ms_per_turn']:.0f}",
                ]
            )
    rep.line("## Learning from use")
    rep.line()
    rep.line(
        f"Half of each tool's queries (tools with >= {MIN_QUERIES}) replayed as scripted "
        "create_agent turns (search, load, successful call) in one scope; recall@5 on the "
        "other half in that scope, without and with learning; and on the queries of the "
        "tools left out (no evidence), which learning must not push down."
        + ("" if embeddings or cfg.quick else " Hybrid skipped: local_embeddings() not installed.")
    )
    rep.line()
    rep.table(
        [
            "set: search",
            "tools / replayed / held out",
            "recall@5 without",
            "recall@5 with",
            "gain",
            "other tools' queries",
            "ms per replayed turn",
        ],
        rows,
    )
    rep.line()


def main() -> None:
    """Print the section alone on the shared data (``python -m benchmarks.learning``)."""
    import sys

    from benchmarks.report import BenchConfig, _Report

    section(_Report(sys.stdout), BenchConfig())


if __name__ == "__main__":
    main()
