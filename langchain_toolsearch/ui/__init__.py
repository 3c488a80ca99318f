"""A web page for stored tool configuration: browse, edit, diff, publish, preview, search.

Needs the ``[ui]`` extra (Starlette, Jinja2, uvicorn). ``toolsearch ui``
serves it for the store given by ``--store``; `create_app` builds it over
any LangGraph ``BaseStore`` from Python. See ``docs/ui.md``.
"""

from __future__ import annotations

from langchain_toolsearch.ui.app import create_app
from langchain_toolsearch.ui.serve import serve

__all__ = ["create_app", "serve"]
