"""Smoke test of an installed wheel, run from a folder outside the repository (``make smoke``).

``python smoke.py CATALOG`` with the clean environment's interpreter checks that
the package is imported from that environment (not a clone), that the repository
folders are not part of it, that ``toolsearch --version`` and ``toolsearch search``
work on ``CATALOG`` (the GitHub MCP server's tool definitions), and that an offline
``create_agent`` turn with ``ScriptedToolSearchModel`` searches, loads and calls a
tool. Exits non-zero with the reason on the first failure.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path


def main(catalog: str) -> int:
    """Run every check; returns 0."""
    import langchain_toolsearch

    where = Path(langchain_toolsearch.__file__).resolve()
    assert "site-packages" in where.parts, f"imported from {where}, not the installed wheel"
    for gone in ("bench", "datasets", "demo", "config", "ui", "cli"):  # the editor ships those
        assert importlib.util.find_spec(f"langchain_toolsearch.{gone}") is None, gone
    assert importlib.util.find_spec("rank_bm25") is None, "rank-bm25 is not a runtime dependency"
    import langchain_toolsearch.testing

    bindir = Path(sys.executable).parent
    version = subprocess.run(
        [bindir / "toolsearch", "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout.startswith("toolsearch "), version.stdout
    found = subprocess.run(
        [bindir / "toolsearch", "search", "create a pull request", "--catalog", catalog, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    hits = json.loads(found.stdout)
    assert hits[0]["name"] == "create_pull_request", hits

    # MCP needs the [mcp] extra: without it, one line naming it
    config = Path("mcp.json")
    config.write_text(json.dumps({"mcpServers": {"x": {"command": "x"}}}))
    if importlib.util.find_spec("langchain_mcp_adapters") is None:
        refused = subprocess.run(
            [bindir / "toolsearch", "search", "x", "--mcp-config", str(config)],
            capture_output=True,
            text=True,
        )
        assert refused.returncode == 2, refused
        assert "langchain-toolsearch[mcp]" in refused.stderr, refused.stderr
        assert refused.stderr.count("\n") == 1, refused.stderr
    else:
        from langchain_toolsearch.mcp import multi_server_mcp_client

        assert multi_server_mcp_client().__name__ == "MultiServerMCPClient"

    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    from langchain_toolsearch import ToolSearchMiddleware
    from langchain_toolsearch.testing import ScriptedToolSearchModel

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return f"sunny in {city}"

    model = ScriptedToolSearchModel.search_load_call(
        query="weather", tool="get_weather", args={"city": "Paris"}
    )
    agent = create_agent(model, tools=[], middleware=[ToolSearchMiddleware(tools=[get_weather])])
    result = agent.invoke({"messages": [HumanMessage("Weather in Paris?")]})
    outputs = [m.content for m in result["messages"] if isinstance(m, ToolMessage)]
    assert outputs[-1] == "sunny in Paris", outputs
    assert model.bound[-1] == ["search_tools", "load_tool", "get_weather"], model.bound
    print(f"smoke ok: {version.stdout.strip()} from {where.parent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
