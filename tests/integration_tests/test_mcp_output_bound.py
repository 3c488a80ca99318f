"""An MCP tool's output is bounded in characters (default 100,000), cut with
a marker the model reads, through a real stdio server (``pool_server.py``'s ``echo``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient

from langchain_toolsearch._support import DEFAULT_MAX_OUTPUT_CHARS
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.mcp import MCPSessionPool, load_mcp_library
from tests.integration_tests.test_mcp_pool import by_name, stdio, text


async def echo(pool: MCPSessionPool, log: Path, size: int, **options: Any) -> ToolMessage:
    lib = await load_mcp_library(
        MultiServerMCPClient({"p": stdio(log)}),
        pool=pool,
        timeout=60,
        namespace="always",
        **options,
    )
    call = {"id": "1", "name": "p_echo", "args": {"text": "x" * size}, "type": "tool_call"}
    message = await by_name(lib)["p_echo"].ainvoke(call)
    assert isinstance(message, ToolMessage)
    return message


async def test_a_large_answer_is_cut_at_the_default_bound_with_a_marker(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    size = 2_000_000
    message = await echo(pool, tmp_path / "s.log", size)
    content = text(message.content)
    assert content.count("x") == DEFAULT_MAX_OUTPUT_CHARS
    assert f"first {DEFAULT_MAX_OUTPUT_CHARS:,} of {size:,} characters are shown" in content
    assert message.artifact is None  # structured content {"result": 2 MB} dropped too
    assert len(content) < DEFAULT_MAX_OUTPUT_CHARS + 300


async def test_the_bound_is_an_option_and_none_keeps_everything(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    small = await echo(pool, tmp_path / "s.log", 5_000, max_output_chars=1_000)
    assert text(small.content).count("x") == 1_000 and "output truncated" in text(small.content)
    whole = await echo(pool, tmp_path / "s.log", 150_000, max_output_chars=None)
    assert text(whole.content) == "x" * 150_000
    fits = await echo(pool, tmp_path / "s.log", 1_000)
    assert text(fits.content) == "x" * 1_000 and fits.artifact is not None


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "100"])
async def test_a_bad_bound_is_refused_when_the_library_is_built(
    tmp_path: Path, pool: MCPSessionPool, bad: Any
) -> None:
    with pytest.raises(ToolSearchConfigError, match="max_output_chars must be an int >= 1"):
        await load_mcp_library(
            MultiServerMCPClient({"p": stdio(tmp_path / "s.log")}), pool=pool, max_output_chars=bad
        )
