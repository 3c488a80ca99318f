"""The five small tool documents the index tests build their indexes from."""

from __future__ import annotations

from langchain_toolsearch.search.index import ToolDocument

PLAY_MUSIC = ToolDocument("play_music", "Play a song or playlist", (("song", "Song title"),))
SEND_EMAIL = ToolDocument("send_email", "Send an email to a recipient", (("to", "Email address"),))
GET_WEATHER = ToolDocument("get_weather", "Current weather for a city", (("city", "City name"),))
GET_FORECAST = ToolDocument("get_forecast", "Weather forecast for a city", (("city", "City name"),))
CREATE_ISSUE = ToolDocument("create_issue", "Create a GitHub issue in a repository")
