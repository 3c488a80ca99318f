"""A web page for stored tool configuration (extra ``[ui]``; ``toolsearch ui``; docs/ui.md)."""

from __future__ import annotations

from langchain_toolsearch.ui.app import create_app
from langchain_toolsearch.ui.serve import serve

__all__ = ["create_app", "serve"]
