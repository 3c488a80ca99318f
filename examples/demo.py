"""The demo: a ``create_agent`` agent searching real MCP servers' tools.

``python examples/demo.py`` (or ``make demo``) starts ``mcp-server-time``, ``mcp-server-git`` (on a
temporary repository) and ``mcp-server-fetch`` over stdio, adds any
``--catalog`` of tool definitions, and answers a few requests end to end:
the model searches, loads, calls a real MCP tool, and answers with the
tool's real output. Without ``--model`` a scripted offline model
(:func:`demo_model`, a ``ScriptedToolSearchModel``) drives the steps, since no LLM API is reachable
here; the demo says so plainly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import _prompts as P
from langchain_toolsearch.middleware import ToolSearchMiddleware
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search

__all__ = [
    "DEMO_REQUESTS",
    "BoundToolsRecorder",
    "DemoRequest",
    "demo_connections",
    "demo_model",
    "find_server_command",
    "make_demo_repo",
    "run_demo",
    "schema_tokens",
]

SERVERS_BIN_ENV = "TOOLSEARCH_MCP_SERVERS_BIN"


@dataclass(frozen=True)
class DemoRequest:
    """One scripted request: what the user asks and how the offline model proceeds.

    Attributes:
        prompt: The user's message.
        query: What the offline model passes to ``search_tools``.
        tool: The tool it loads and calls (must be among the hits).
        args: Arguments for that call; ``{repo}`` in a string is replaced by
            the demo repository's path.
    """

    prompt: str
    query: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


DEMO_REQUESTS: tuple[DemoRequest, ...] = (
    DemoRequest(
        prompt="What time is it in Tokyo right now?",
        query="current time in a timezone",
        tool="get_current_time",
        args={"timezone": "Asia/Tokyo"},
    ),
    DemoRequest(
        prompt="What was the last commit in the repository?",
        query="git commit log history",
        tool="git_log",
        args={"repo_path": "{repo}", "max_count": 1},
    ),
    DemoRequest(
        prompt="Convert 9:00 in New York to Tokyo time.",
        query="convert time between timezones",
        tool="convert_time",
        args={
            "source_timezone": "America/New_York",
            "time": "09:00",
            "target_timezone": "Asia/Tokyo",
        },
    ),
)


def demo_model(repo: str, requests: Sequence[DemoRequest] = DEMO_REQUESTS) -> BaseChatModel:
    """The offline model of the demo: one search -> load -> call -> answer script per request.

    A `ScriptedToolSearchModel` (the package's offline test model); ``{repo}`` in
    a string argument becomes ``repo``. It never invents tool output: its answer
    quotes what the tool returned.
    """
    scripts: dict[str, list[Any]] = {}
    for request in requests:
        args = {
            k: v.replace("{repo}", repo) if isinstance(v, str) else v
            for k, v in request.args.items()
        }
        scripts[request.prompt] = [
            Search(request.query),
            Load(request.tool),
            Call(request.tool, args),
            Answer(),
        ]
    return ScriptedToolSearchModel(scripts=scripts)


def schema_tokens(tools: Sequence[BaseTool | dict[str, Any]]) -> int:
    """Estimated tokens of tool schemas as sent to a model: JSON characters / 4.

    An estimate, not a tokenizer count; providers' counts differ by a few tens
    of percent, the ratio between two bindings much less.
    """
    return sum(len(json.dumps(convert_to_openai_tool(t))) for t in tools) // 4


class BoundToolsRecorder(AgentMiddleware[Any, Any]):
    """Records the tool names bound to each model call (place after tool search)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[BaseTool | dict[str, Any]]] = []

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        """Record, then call the model."""
        self.calls.append(list(request.tools))
        return handler(request)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Record, then call the model."""
        self.calls.append(list(request.tools))
        return await handler(request)


REPO_SERVERS_BIN = Path(__file__).resolve().parents[1] / ".venv-mcp-servers" / "bin"
"""The repository's server environment that ``make demo`` builds."""


def find_server_command(name: str, servers_bin: str | None = None) -> list[str]:
    """The command that starts the MCP server ``name`` (e.g. ``mcp-server-time``).

    Looks in ``servers_bin`` (the explicit option), then
    ``$TOOLSEARCH_MCP_SERVERS_BIN``, then ``PATH``, then the repository's server
    environment (``.venv-mcp-servers/bin``, which ``make demo`` builds), then
    falls back to ``uvx name``.

    Raises:
        FileNotFoundError: If none of these has it; the message says how to
            install the servers.
    """
    for folder in (servers_bin, os.environ.get(SERVERS_BIN_ENV)):
        if folder and (Path(folder) / name).exists():
            return [str(Path(folder) / name)]
    found = shutil.which(name)
    if found:
        return [found]
    if (REPO_SERVERS_BIN / name).exists():
        return [str(REPO_SERVERS_BIN / name)]
    if shutil.which("uvx"):
        return ["uvx", name]
    raise FileNotFoundError(
        f"cannot find the MCP server {name!r}: run `make demo` (it installs the reference "
        f"servers into .venv-mcp-servers), pass --servers-bin or set {SERVERS_BIN_ENV} to a "
        "bin folder that has it, or install uv so that `uvx` can run it"
    )


def make_demo_repo(folder: Path) -> Path:
    """A small git repository with two commits, for ``mcp-server-git``."""
    repo = folder / "demo-repo"
    repo.mkdir(parents=True, exist_ok=True)
    git = ["git", "-c", "user.name=Demo", "-c", "user.email=demo@example.com", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("# demo\n")
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "Initial commit"], check=True)
    (repo / "tools.txt").write_text("search_tools\nload_tool\n")
    subprocess.run([*git, "add", "tools.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "Add the list of meta tools"], check=True)
    return repo


def demo_connections(repo: Path, servers_bin: str | None = None) -> dict[str, dict[str, Any]]:
    """Stdio connections for the time, git and fetch reference servers."""

    def stdio(name: str, *args: str) -> dict[str, Any]:
        command = find_server_command(name, servers_bin)
        return {"transport": "stdio", "command": command[0], "args": [*command[1:], *args]}

    return {
        "time": stdio("mcp-server-time", "--local-timezone", "UTC"),
        "git": stdio("mcp-server-git", "--repository", str(repo)),
        "fetch": stdio("mcp-server-fetch"),
    }


def _short(text: str, width: int) -> str:
    """``text`` on one line, cut between whole words (at whitespace) near ``width`` characters."""
    words = text.split()
    kept: list[str] = []
    for word in words:
        if kept and len(" ".join([*kept, word])) > width:
            return " ".join(kept) + " ..."
        kept.append(word)
    return " ".join(kept)


def _print_tool_message(out: TextIO, message: ToolMessage) -> None:
    receipt = message.artifact if isinstance(message.artifact, dict) else None
    if message.name == P.SEARCH_TOOL_NAME and receipt is not None:
        out.write(f"    search hits ({receipt.get('message', '')}):\n")
        for hit in receipt.get("results", []):
            out.write(
                f"      {hit['score']:.3f}  {hit['name']}: {_short(hit['description'], 70)}\n"
            )
    elif message.name == P.LOAD_TOOL_NAME and receipt is not None:
        out.write(f"    loaded: {receipt.get('loaded')}  ({receipt.get('message')})\n")
    else:
        text = textwrap.indent(message.text.strip(), "      ")
        out.write(f"    {message.name} -> [{message.status}]\n{text}\n")


async def run_demo(
    *,
    catalogs: Sequence[str] = (),
    model: str | None = None,
    servers_bin: str | None = None,
    out: TextIO = sys.stdout,
) -> int:
    """Run the demo; returns a process exit code (0 when every answer used real tool output).

    Args:
        catalogs: Paths of tool-definition catalogs to add to the library.
        model: ``provider:name`` for ``init_chat_model``; ``None`` uses the
            scripted :func:`demo_model`.
        servers_bin: Folder holding the MCP server executables.
        out: Where to print.
    """
    from langchain_toolsearch.catalog import load_catalog
    from langchain_toolsearch.mcp import load_mcp_library, multi_server_mcp_client

    MultiServerMCPClient = multi_server_mcp_client()  # ImportError naming the [mcp] extra
    with tempfile.TemporaryDirectory(prefix="toolsearch-demo-") as tmp:
        repo = make_demo_repo(Path(tmp))
        client = MultiServerMCPClient(demo_connections(repo, servers_bin))  # type: ignore[arg-type]
        mcp = await load_mcp_library(client)
        for server, reason in mcp.failures.items():
            out.write(f"! MCP server {server!r} failed and was skipped: {reason}\n")
        library: list[BaseTool] = list(mcp.tools)
        for path in catalogs:
            library.extend(load_catalog(path))
        servers = {route.server for route in mcp.routes.values()}
        out.write(
            f"Library: {len(mcp.tools)} tools from {len(servers)} MCP servers + "
            f"{len(library) - len(mcp.tools)} catalog tools = {len(library)} tools\n"
        )
        full_tokens = schema_tokens(library)
        search = ToolSearchMiddleware(tools=library, top_k=5)
        recorder = BoundToolsRecorder()
        chat: BaseChatModel
        if model:
            chat = make_model(model)
            out.write(f"Model: {model} (real chat model)\n")
        else:
            chat = demo_model(str(repo))
            out.write(
                "Model: scripted offline model (no LLM API is reachable here; it plays the "
                "search -> load -> call steps, and every answer quotes real MCP tool output). "
                "Pass --model provider:name to use a real chat model.\n"
            )
        agent = create_agent(
            chat,
            tools=[],
            middleware=[search, recorder],
            checkpointer=InMemorySaver(),
            system_prompt="You are a helpful assistant.",
        )
        out.write(
            "Token counts below are estimates (tool-schema JSON characters / 4), "
            "not a provider's tokenizer.\n"
        )
        failures = 0
        for i, request in enumerate(DEMO_REQUESTS):
            out.write(f"\n=== Request {i + 1}: {request.prompt}\n")
            config: RunnableConfig = {"configurable": {"thread_id": f"demo-{i}"}}
            shown_calls = len(recorder.calls)
            answered_by_tool = False
            async for update in agent.astream(
                {"messages": [HumanMessage(request.prompt)]},
                config,
                stream_mode="updates",
            ):
                for node_update in update.values():
                    if not isinstance(node_update, dict):
                        continue
                    for message in node_update.get("messages", []):
                        if isinstance(message, AIMessage):
                            # what this model call was given, before what it said
                            for bound in recorder.calls[shown_calls:]:
                                names = [getattr(t, "name", "?") for t in bound]
                                out.write(
                                    f"  model call bound {names}: ~{schema_tokens(bound)} "
                                    f"schema tokens (whole library: ~{full_tokens})\n"
                                )
                            shown_calls = len(recorder.calls)
                            for tc in message.tool_calls:
                                out.write(f"  model calls {tc['name']}({json.dumps(tc['args'])})\n")
                            if message.text and not message.tool_calls:
                                answer = textwrap.indent(message.text.strip(), "    ")
                                out.write(f"  answer:\n{answer}\n")
                        elif isinstance(message, ToolMessage):
                            _print_tool_message(out, message)
                            if message.name not in P.META_TOOL_NAMES and message.status != "error":
                                answered_by_tool = True
            if not answered_by_tool:
                failures += 1
                out.write("  ! no real tool output reached the answer\n")
        per_call = [schema_tokens(b) for b in recorder.calls]
        if per_call:
            mean = sum(per_call) / len(per_call)
            out.write(
                f"\nTool-schema tokens per model call (estimated): mean ~{mean:.0f} with tool "
                f"search vs ~{full_tokens} binding all {len(library)} tools "
                f"({100 * (1 - mean / max(full_tokens, 1)):.1f}% fewer)\n"
            )
        return 1 if failures else 0


def make_model(spec: str) -> BaseChatModel:
    """``init_chat_model(spec)`` with one-line errors.

    Raises:
        ValueError: If the provider package is missing (the message names it and
            the pip command) or ``spec`` names no known provider.
    """
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(spec)
    except ImportError as exc:
        found = re.search(r"requires the ([\w.-]+) package", str(exc))
        if found is None:
            raise ValueError(f"--model {spec}: {str(exc).splitlines()[0]}") from exc
        package = found.group(1)
        raise ValueError(f"--model {spec} needs {package}: pip install {package}") from exc
    except ValueError as exc:
        raise ValueError(f"--model {spec}: {str(exc).splitlines()[0]}") from exc


def main(argv: Sequence[str] | None = None) -> int:
    """``python examples/demo.py [--catalog PATH] [--model provider:name] [--servers-bin DIR]``."""
    parser = argparse.ArgumentParser(
        prog="examples/demo.py", description="Run an agent over real MCP servers' tools."
    )
    parser.add_argument(
        "--catalog", action="append", default=[], metavar="PATH", help="tool definitions to add"
    )
    parser.add_argument("--model", help="provider:name for a real chat model (needs its API key)")
    parser.add_argument("--servers-bin", help="folder with mcp-server-time/-git/-fetch")
    args = parser.parse_args(argv)
    from langchain_toolsearch.catalog import load_catalog
    from langchain_toolsearch.mcp import multi_server_mcp_client

    try:
        multi_server_mcp_client()  # the [mcp] extra, before anything starts
        for path in args.catalog:  # report a bad --catalog before starting servers
            load_catalog(path)
        if args.model:  # and a model that cannot be made
            make_model(args.model)
        return asyncio.run(
            run_demo(catalogs=args.catalog, model=args.model, servers_bin=args.servers_bin)
        )
    except (OSError, ValueError, ImportError) as exc:
        print(f"{parser.prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
