"""``toolsearch ui --embeddings local``: the search playground ranks with the real local model.

Skipped only when the ``[local-embeddings]`` extra is not installed, unless
``TOOLSEARCH_REQUIRE_LOCAL_EMBEDDINGS=1`` makes that a failure.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from editor.tests.support.ui_app import csrf_of
from langchain_toolsearch_editor._commands import main
from langchain_toolsearch_editor._store import ToolConfigStore, open_store
from tests.support.local_embeddings import require_local_embeddings

require_local_embeddings()
pytestmark = pytest.mark.timeout(300)

QUERY = "temperature and rain forecast"
"""No word of it is in ``get_weather``'s name or description (BM25 finds nothing)."""


def _ranked(http: TestClient, csrf: str, mode: str) -> tuple[int, list[str]]:
    form = {"csrf": csrf, "version": "draft", "context": "{}", "query": QUERY, "mode": mode}
    page = http.post("/agents/support/search", data={**form, "top_k": "3"})
    return page.status_code, re.findall(r'<tr data-tool="(.*?)"><td>\d+</td>', page.text)


def test_the_search_screen_ranks_with_hybrid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_file = tmp_path / "toolsearch-config.sqlite"
    with open_store(str(store_file), create=True) as store:
        tools = {"send_email": {}, "get_weather": {}, "github_create_issue": {}}
        ToolConfigStore(store).agents.save("support", {"tools": tools})
    seen: dict[str, Any] = {}

    def serve(app: Any, *, host: str, port: int) -> None:  # instead of uvicorn: ask the app
        seen["embeddings"] = app.state.ui.embeddings
        with TestClient(app, base_url="http://127.0.0.1") as http:
            screen = http.get("/agents/support/search").text
            seen["hybrid offered"] = "no embeddings given" not in screen
            csrf = csrf_of(screen)
            seen["bm25"], seen["hybrid"] = (
                _ranked(http, csrf, "bm25"),
                _ranked(http, csrf, "hybrid"),
            )

    monkeypatch.setattr(
        importlib.import_module("langchain_toolsearch_editor.ui._serve"), "serve", serve
    )
    argv = ["ui", "--store", str(store_file), "--registry", "editor.tests.support.ui_app:REGISTRY"]
    assert main([*argv, "--embeddings", "local"]) == 0
    assert type(seen["embeddings"]).__name__ == "MiniLMEmbeddings" and seen["hybrid offered"]
    status, hybrid = seen["hybrid"]
    assert status == 200 and hybrid[0] == "get_weather", hybrid
    status, lexical = seen["bm25"]
    assert status == 200 and lexical == [], lexical
