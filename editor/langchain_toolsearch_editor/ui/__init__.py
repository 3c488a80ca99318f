"""A web page for stored tool configuration (extra ``[ui]``; ``toolsearch ui``; docs/ui.md)."""

from __future__ import annotations

from langchain_toolsearch_editor.ui._app import create_app
from langchain_toolsearch_editor.ui._serve import serve

__all__ = ["create_app", "serve"]
