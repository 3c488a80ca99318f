"""Small tool documents and tools the index tests build their indexes from, and a ranking's names."""

from __future__ import annotations

import itertools
from typing import Any

from langchain_core.tools import BaseTool

from langchain_toolsearch.catalog import tool_from_definition
from langchain_toolsearch.search import ToolDocument

PLAY_MUSIC = ToolDocument("play_music", "Play a song or playlist", (("song", "Song title"),))
SEND_EMAIL = ToolDocument("send_email", "Send an email to a recipient", (("to", "Email address"),))
GET_WEATHER = ToolDocument("get_weather", "Current weather for a city", (("city", "City name"),))
GET_FORECAST = ToolDocument("get_forecast", "Weather forecast for a city", (("city", "City name"),))
CREATE_ISSUE = ToolDocument("create_issue", "Create a GitHub issue in a repository")


def defined_tool(name: str, description: str, **params: str) -> BaseTool:
    """A tool read from an MCP definition whose parameters are strings (``param="its text"``)."""
    schema = {
        "type": "object",
        "properties": {p: {"type": "string", "description": d} for p, d in params.items()},
    }
    return tool_from_definition({"name": name, "description": description, "inputSchema": schema})


def top_names(index: Any, query: str, k: int = 5) -> list[str]:
    """The names of ``index.rank(query)``'s first ``k`` hits."""
    return [h.name for h in itertools.islice(index.rank(query), k)]
