"""The two small tools of the README's examples, shared by the tests that mirror them."""

from __future__ import annotations

from langchain_core.tools import tool


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


@tool
def send_email(to: str, body: str) -> str:
    """Send an email message to someone."""
    return f"sent to {to}"
