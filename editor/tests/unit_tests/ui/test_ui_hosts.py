"""Every way to serve the page refuses a foreign ``Host`` on loopback (DNS rebinding).

`create_app` with no options, mounted in another ASGI app, reached through
httpx's ASGI transport, and `serve` over a real socket: a rebound name gets a
400 (no page, no CSRF token, no save, no stdio server started); loopback names
and explicitly allowed hosts work; a write's ``Origin`` must be an allowed host.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.store.memory import InMemoryStore
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from editor.tests.support.ui_app import csrf_of
from langchain_toolsearch_editor.ui import create_app

LOCAL = "http://127.0.0.1:8765"
EVIL = "evil.example:8765"
LOOPBACK_HOSTS = ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "localhost"]


def _client(app: Any) -> TestClient:
    return TestClient(app, base_url=LOCAL)


def _save(http: TestClient, host: str, csrf: str, origin: str | None = None) -> Any:
    headers = {"host": host, **({"origin": origin} if origin else {})}
    form = {"csrf": csrf, "config": "{}", "if_version": "0"}
    return http.post("/agents/support/edit", data=form, headers=headers)


def test_a_rebound_name_gets_no_page_no_token_and_cannot_save() -> None:
    app = create_app(InMemoryStore())
    http = _client(app)
    csrf = csrf_of(http.get("/", headers={"host": "127.0.0.1:8765"}).text)
    for path in ("/", "/agents", "/transfer", "/export?kind=agent&id=support"):
        page = http.get(path, headers={"host": EVIL})
        assert page.status_code == 400, path
        assert "csrf-token" not in page.text and "set-cookie" not in page.headers
    forged = _save(http, EVIL, csrf, origin=f"http://{EVIL}")
    assert forged.status_code == 400
    assert _save(http, EVIL, csrf).status_code == 400
    assert app.state.ui.configs.agents.list_records() == []


@pytest.mark.parametrize("host", LOOPBACK_HOSTS)
def test_loopback_names_get_the_page_and_can_save(host: str) -> None:
    app = create_app(InMemoryStore())
    http = _client(app)
    page = http.get("/", headers={"host": host})
    assert page.status_code == 200
    saved = _save(http, host, csrf_of(page.text), origin=f"http://{host}")
    assert saved.status_code == 200, saved.text
    assert [r.record_id for r in app.state.ui.configs.agents.list_records()] == ["support"]


@pytest.mark.parametrize(
    "origin",
    [f"http://{EVIL}", "http://localhost:3000", "http://127.0.0.1:9999", "http://[::1]:8765"],
)
def test_a_write_from_another_origin_than_the_served_one_is_refused(origin: str) -> None:
    app = create_app(InMemoryStore())
    http = _client(app)
    csrf = csrf_of(http.get("/", headers={"host": "localhost:8765"}).text)
    refused = _save(http, "localhost:8765", csrf, origin=origin)
    assert refused.status_code == 403 and "another site" in refused.text
    referred = http.post(
        "/agents/support/edit",
        data={"csrf": csrf, "config": "{}", "if_version": "0"},
        headers={"host": "localhost:8765", "referer": f"{origin}/agents"},
    )
    assert referred.status_code == 403
    assert app.state.ui.configs.agents.list_records() == []


def test_a_rebound_name_never_starts_a_saved_stdio_server(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    script = f"open({str(marker)!r}, 'w').close()"
    app = create_app(InMemoryStore(), mcp_timeout=10)
    configs = app.state.ui.configs
    configs.mcp_clients.save(
        "crm", {"servers": {"crm": {"command": sys.executable, "args": ["-c", script]}}}
    )
    configs.agents.save("support", {"mcp_clients": {"crm": {"tools": "*"}}})
    http = _client(app)
    csrf = csrf_of(http.get("/", headers={"host": "localhost:8765"}).text)
    headers = {"host": EVIL, "x-csrf-token": csrf, "origin": f"http://{EVIL}"}
    assert http.post("/api/clients/crm/tools", json={}, headers=headers).status_code == 400
    assert http.get("/agents/support/preview", headers={"host": EVIL}).status_code == 400
    assert http.get("/agents/support/search?q=x", headers={"host": EVIL}).status_code == 400
    assert not marker.exists()
    own = {"host": "localhost:8765", "x-csrf-token": csrf, "origin": "http://localhost:8765"}
    listed = http.post("/api/clients/crm/tools", json={}, headers=own)
    assert listed.status_code == 200 and listed.json()["failures"]  # not an MCP server
    assert marker.exists()  # the same request on the page's own name does run it


def test_explicit_allowed_hosts_are_served_and_others_refused() -> None:
    app = create_app(InMemoryStore(), allowed_hosts=["ui.example.com", "*.corp.example"])
    http = _client(app)
    for n, host in enumerate(("ui.example.com", "ui.example.com:443", "a.corp.example:8765")):
        page = http.get("/", headers={"host": host})
        assert page.status_code == 200, host
        form = {"csrf": csrf_of(page.text), "config": "{}", "if_version": "0"}
        headers = {"host": host, "origin": f"https://{host}"}
        assert http.post(f"/agents/a{n}/edit", data=form, headers=headers).status_code == 200
    for host in (EVIL, "localhost:8765", "corp.example.evil:1"):
        assert http.get("/", headers={"host": host}).status_code == 400, host
    anything = _client(create_app(InMemoryStore(), allowed_hosts=["*"]))
    assert anything.get("/", headers={"host": EVIL}).status_code == 200


def test_a_server_beyond_loopback_answers_its_names() -> None:
    http = TestClient(create_app(InMemoryStore(), token="t" * 16), base_url="http://10.1.2.3:8765")
    page = http.get("/", headers={"host": "tools.lan:8765", "authorization": "Bearer " + "t" * 16})
    assert page.status_code == 200


def test_the_app_mounted_in_another_server_refuses_a_rebound_name() -> None:
    app = create_app(InMemoryStore())
    outer = Starlette(routes=[Mount("/config", app=app)])
    http = _client(outer)
    assert http.get("/config/", headers={"host": EVIL}).status_code == 400
    page = http.get("/config/", headers={"host": "localhost:8765"})
    assert page.status_code == 200 and "csrf-token" in page.text
    assert app.state.ui.configs.agents.list_records() == []


async def test_the_app_through_httpx_asgi_transport_refuses_a_rebound_name() -> None:
    app = create_app(InMemoryStore())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=LOCAL) as http:
        assert (await http.get("/", headers={"host": EVIL})).status_code == 400
        page = await http.get("/", headers={"host": "127.0.0.1:8765"})
        assert page.status_code == 200 and "csrf-token" in page.text


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_serve_on_loopback_refuses_a_rebound_name(tmp_path: Path) -> None:
    port = _free_port()
    code = (
        "from langgraph.store.memory import InMemoryStore\n"
        "from langchain_toolsearch_editor.ui import create_app, serve\n"
        f"serve(create_app(InMemoryStore()), port={port})\n"
    )
    server = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 60
        while True:
            try:
                own = httpx.get(url, timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert own.status_code == 200 and "csrf-token" in own.text
        rebound = httpx.get(url, headers={"host": f"evil.example:{port}"}, timeout=5)
        assert rebound.status_code == 400 and "csrf-token" not in rebound.text
        body = json.dumps({"kind": "agent", "text": "{}"})
        post = httpx.post(
            url + "api/validate", content=body, headers={"host": f"evil.example:{port}"}
        )
        assert post.status_code == 400
    finally:
        server.terminate()
        server.wait(10)
        if server.stderr is not None:
            server.stderr.close()
