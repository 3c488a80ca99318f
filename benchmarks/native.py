"""Prompt tokens and prompt cache per step of each mode (search, native, stable, bind all).

Two scripted user turns on one thread (each: find a tool, call it, answer; on GitHub's
tools also eight) through a real ``create_agent`` and a real ``ChatAnthropic`` whose HTTP
transport is a fake Messages API (nothing is sent anywhere): the request bodies it would
send are recorded and measured, for

* **bind all**: every tool bound on the agent; the model calls each tool at once;
* **today**: ``ToolSearchMiddleware`` (``search_tools``, ``load_tool``, call);
* **today, auto_load**: ``search_tools`` loads its hits, then the call;
* **native**: ``provider="anthropic"``: every tool deferred, ``search_tools``
  answers ``tool_reference`` blocks, then the call;
* **stable**: ``mode="stable"``: the bound tools never change; ``load_tool``
  (or, with ``auto_load``, ``search_tools``) answers the tool's definition and
  the model calls it through ``call_tool``.

Per step, the prompt the model reads is rendered in the Messages API's
cache order (tools, system, messages) as segments: each non-deferred tool
definition, the system text, each message content block, a ``tool_reference``
replaced by the definition it expands to (deferred definitions are not in
the prompt until referenced). Tokens are UTF-8 bytes / 4 (an estimate). The
share servable from the prompt cache at a step is the leading segments
identical to the previous step's (what a cache written at every step could
serve; real caching also needs ``cache_control`` breakpoints and a minimum
length), over the step's tokens; the first step is cold. Over a thread that
share cannot pass 1 - (tokens first sent at some step) / (all tokens), whatever
the mode: what a step adds is never cached. "Of resent" divides the cached
tokens by the tokens each step resends (segments also in the step before):
the part of what could come from the cache that does.

Run alone with ``python -m benchmarks.native``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from benchmarks.datasets import ToolDef
    from benchmarks.report import BenchConfig, _Report

__all__ = ["Turn", "measure", "native_section", "render", "section"]

MODEL = "claude-sonnet-4-5-20250929"
SYSTEM = "You are a helpful assistant."
GITHUB_NEEDS = ("create an issue in a repository", "list the pull requests of a repository")
"""The two user turns on GitHub's MCP tools."""
GITHUB_LONG_NEEDS = (
    *GITHUB_NEEDS,
    "search code in repositories",
    "get the contents of a file",
    "create a new branch",
    "list commits of a branch",
    "merge a pull request",
    "add a comment to an issue",
)
"""A longer thread on the same tools: eight user turns, one tool each."""


def _message(number: int, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": f"msg_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _use(number: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": name, "input": args}
    return _message(number, [block], "tool_use")


def _text(number: int) -> dict[str, Any]:
    return _message(number, [{"type": "text", "text": "Done."}], "end_turn")


def _wired(replies: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    """A ``ChatAnthropic`` answering ``replies`` in order from a fake transport, and its log."""
    import anthropic
    import httpx2
    from langchain_anthropic import ChatAnthropic

    sent: list[dict[str, Any]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content.decode("utf-8")))
        return httpx2.Response(200, json=replies.pop(0))

    http = anthropic.DefaultHttpxClient(
        transport=httpx2.MockTransport(handle), base_url="https://api.anthropic.com"
    )
    model = ChatAnthropic(model=MODEL, api_key="sk-bench", max_tokens=1024, max_retries=0)  # type: ignore[call-arg,arg-type]
    model.__dict__["_client"] = anthropic.Anthropic(
        api_key="sk-bench", max_retries=0, http_client=http
    )
    return model, sent


def render(body: dict[str, Any]) -> list[str]:
    """The prompt of one request as segments, in cache order (see the module docstring)."""
    tools = body.get("tools") or []
    definitions = {t["name"]: {k: v for k, v in t.items() if k != "defer_loading"} for t in tools}
    segments = [json.dumps(t, sort_keys=True) for t in tools if not t.get("defer_loading")]
    segments.append(json.dumps(body.get("system"), sort_keys=True))
    for message in body.get("messages") or []:
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            inner = block.get("content") if block.get("type") == "tool_result" else None
            if isinstance(inner, list) and inner and inner[0].get("type") == "tool_reference":
                expanded = [definitions.get(r["tool_name"], r) for r in inner]
                block = {**block, "content": expanded}
            segments.append(message["role"] + json.dumps(block, sort_keys=True))
    return segments


def _tokens(segments: Sequence[str]) -> int:
    return sum(len(s.encode("utf-8")) for s in segments) // 4


def _resent(before: Sequence[str], now: Sequence[str]) -> int:
    """Tokens of the segments of ``now`` that ``before`` sent too (cacheable at best)."""
    sent = set(before)
    return _tokens([s for s in now if s in sent])


def _cached(before: Sequence[str], now: Sequence[str]) -> int:
    """Tokens of the leading segments of ``now`` identical to ``before``'s."""
    same = 0
    for a, b in zip(before, now, strict=False):
        if a != b:
            break
        same += 1
    return _tokens(now[:same])


@dataclass(frozen=True)
class Turn:
    """One configuration's turn: tokens per step and the cache-servable tokens per step."""

    label: str
    tokens: list[int]
    cached: list[int]
    prefix_changes: int
    """Steps whose tools + system differ from the step before (a broken cache prefix)."""
    resent: list[int]
    """Per step, the tokens the step before sent too (step 1: 0)."""

    @property
    def share(self) -> float:
        """Cache-servable share of all prompt tokens of the turn (the cold first step counts)."""
        return sum(self.cached) / max(1, sum(self.tokens))

    @property
    def resent_share(self) -> float:
        """Cache-servable share of the tokens the steps resend."""
        return sum(self.cached) / max(1, sum(self.resent))


def _head(body: dict[str, Any]) -> str:
    return json.dumps({"tools": body.get("tools"), "system": body.get("system")}, sort_keys=True)


def _turn(label: str, sent: Sequence[dict[str, Any]]) -> Turn:
    rendered = [render(b) for b in sent]
    cached = [0] + [_cached(a, b) for a, b in itertools.pairwise(rendered)]
    resent = [0] + [_resent(a, b) for a, b in itertools.pairwise(rendered)]
    changes = sum(_head(a) != _head(b) for a, b in itertools.pairwise(sent))
    return Turn(label, [_tokens(r) for r in rendered], cached, changes, resent)


def _plans(
    needs: Sequence[tuple[str, str, str]],
) -> list[tuple[str, dict[str, Any] | None, list[dict[str, Any]]]]:
    """(label, middleware options or ``None`` for bind all, replies) of each configuration.

    ``needs``: (query, library name of its first hit, the tool's own name) per turn.
    """
    plans: list[tuple[str, dict[str, Any] | None, list[dict[str, Any]]]] = []
    for label, options in (
        ("bind all", None),
        ("today (search, load)", {}),
        ("today, auto_load", {"auto_load": True}),
        ('native (provider="anthropic")', {"provider": "anthropic"}),
        ('stable (mode="stable")', {"mode": "stable"}),
        ("stable, auto_load", {"mode": "stable", "auto_load": True}),
    ):
        replies: list[dict[str, Any]] = []
        for query, name, own in needs:
            steps: list[tuple[str, dict[str, Any]]]
            via = ("call_tool", {"tool_name": name, "arguments": {}})
            if options is None:
                steps = [(own, {})]
            elif options.get("mode") == "stable":
                steps = [("search_tools", {"query": query}), via]
                if not options.get("auto_load"):
                    steps.insert(1, ("load_tool", {"tool_name": name}))
            elif options:
                steps = [("search_tools", {"query": query}), (name, {})]
            else:
                steps = [
                    ("search_tools", {"query": query}),
                    ("load_tool", {"tool_name": name}),
                    (name, {}),
                ]
            for tool, args in steps:
                replies.append(_use(len(replies) + 1, tool, args))
            replies.append(_text(len(replies) + 1))
        plans.append((label, options, replies))
    return plans


def measure(defs: Sequence[ToolDef], queries: Sequence[str]) -> list[Turn]:
    """The configurations over ``defs``: one user turn per query, its first hit called."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_toolsearch import ToolSearchMiddleware

    tools = [d.to_tool() for d in defs]
    probe = ToolSearchMiddleware(tools=tools)
    needs = []
    for query in queries:
        hit = probe.search(query)[0]
        needs.append((query, hit.name, hit.original_name or hit.name))
    turns: list[Turn] = []
    for label, options, replies in _plans(needs):
        model, sent = _wired(replies)
        saver = InMemorySaver()
        if options is None:
            agent = create_agent(model, tools=tools, system_prompt=SYSTEM, checkpointer=saver)
        else:
            middleware = ToolSearchMiddleware(tools=tools, **options)
            agent = create_agent(
                model, tools=[], middleware=[middleware], system_prompt=SYSTEM, checkpointer=saver
            )
        config: RunnableConfig = {"configurable": {"thread_id": "bench-native"}}
        for query in queries:
            agent.invoke({"messages": [{"role": "user", "content": query}]}, config)
        turns.append(_turn(label, sent))
    return turns


def _listed(values: Sequence[str], most: int = 8) -> str:
    """Per-step values joined by `` / ``; past ``most`` steps the first ones, then the last."""
    if len(values) <= most:
        return " / ".join(values)
    return " / ".join([*values[: most - 2], "...", *values[-2:]])


def native_section(
    rep: _Report, libraries: Sequence[tuple[str, Sequence[ToolDef], Sequence[str]]]
) -> None:
    """Print the section for each ``(label, tool definitions, one query per user turn)``."""
    rep.line("## Provider-native tool search: prompt tokens and prompt cache per step")
    rep.line()
    try:
        import langchain_anthropic  # noqa: F401
    except ImportError:
        rep.line("Skipped: langchain-anthropic is not installed (the [anthropic] extra).")
        rep.line()
        return
    rep.line(
        "Two scripted user turns on one thread (each: find a tool, call it, answer; on "
        "GitHub also eight) through "
        "create_agent and "
        "ChatAnthropic on a fake transport; the request bodies it would send, rendered in "
        "cache order (tools, system, messages; a tool_reference as the definition it "
        "expands to, deferred definitions left out). Tokens ~ UTF-8 bytes / 4. Cached: "
        "leading segments identical to the step before (step 1 is cold). Of resent: cached "
        "over the tokens each step resends (segments the step before sent too). Prefix "
        "breaks: steps whose tools or system differ from the step before."
    )
    rep.line()
    rows: list[list[object]] = []
    for label, defs, queries in libraries:
        for turn in measure(defs, queries):
            steps = _listed([f"{t:,}" for t in turn.tokens])
            shares = _listed(
                [
                    f"{100 * c / t:.0f}%" if t else "-"
                    for c, t in zip(turn.cached, turn.tokens, strict=True)
                ]
            )
            rows.append(
                [
                    f"{label} ({len(defs):,} tools)",
                    turn.label,
                    len(turn.tokens),
                    steps,
                    f"{sum(turn.tokens):,}",
                    f"{sum(turn.tokens) - sum(turn.cached):,}",
                    shares,
                    f"{100 * turn.share:.0f}%",
                    f"{100 * turn.resent_share:.0f}%",
                    turn.prefix_changes,
                ]
            )
    header = [
        "library",
        "mode",
        "steps",
        "prompt tokens per step",
        "total",
        "not cached",
        "cached per step",
        "cached, turn",
        "of resent",
        "prefix breaks",
    ]
    rep.table(header, rows)
    rep.line()


def section(
    rep: _Report, cfg: BenchConfig, bfcl: Sequence[ToolDef], github: Sequence[ToolDef]
) -> None:
    """The section of ``make bench``: GitHub's MCP tools (2 and 8 turns), then BFCL (2 turns)."""
    from benchmarks.datasets import load_bfcl

    bfcl_needs = [q.query for q in load_bfcl(cfg.data_dir)[1][:2]]
    native_section(
        rep,
        [
            ("GitHub MCP server", github, GITHUB_NEEDS),
            ("GitHub MCP server, 8 turns", github, GITHUB_LONG_NEEDS),
            ("BFCL", bfcl, bfcl_needs),
        ],
    )


def main() -> None:
    """Print the section alone on the shared data (``python -m benchmarks.native``)."""
    import sys

    from benchmarks.datasets import load_bfcl, load_github_mcp_tools
    from benchmarks.report import BenchConfig, _Report

    section(_Report(sys.stdout), BenchConfig(), load_bfcl()[0], load_github_mcp_tools())


if __name__ == "__main__":
    main()
