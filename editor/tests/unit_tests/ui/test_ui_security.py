"""The UI is safe by default: access token or auth hook, CSRF on every write, secrets never sent."""

from __future__ import annotations

import html
import json
import re

import pytest
from starlette.testclient import TestClient

from editor.tests.support.ui_app import UIClient, csrf_of, problems_of
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch_editor._commands import main
from langchain_toolsearch_editor.errors import ConfigCommandError
from langchain_toolsearch_editor.ui._masking import KEEP
from langchain_toolsearch_editor.ui._serve import check_binding

TOKEN = "s3cret-token-0123456789"
SECRET = "sk-live-abcdef123456"
CLIENT = {
    "servers": {
        "crm": {"command": "crm-mcp", "env": {"CRM_API_KEY": SECRET, "EMPTY": ""}},
        "docs": {"url": "https://docs.example.com/mcp"},
    }
}


def test_every_write_needs_the_sessions_csrf_token(ui: UIClient) -> None:
    ui.get("/")
    form = {"config": "{}", "if_version": "0"}
    for csrf in (None, "", "0" * 64):
        data = dict(form) if csrf is None else {**form, "csrf": csrf}
        page = ui.http.post("/agents/support/edit", data=data)
        assert page.status_code == 403 and "CSRF" in page.text
    assert ui.http.post("/agents/support/publish", data={"version": "1"}).status_code == 403
    assert ui.http.post("/import", data={"text": "{}"}).status_code == 403
    assert ui.http.post("/api/validate", json={"kind": "agent", "text": "{}"}).status_code == 403
    assert ui.configs.agents.list_records() == []


def test_a_token_from_another_session_is_refused(ui: UIClient) -> None:
    ui.get("/")
    other = TestClient(ui.app)
    other.get("/")
    page = other.post(
        "/agents/support/edit", data={"csrf": ui.csrf, "config": "{}", "if_version": "0"}
    )
    assert page.status_code == 403 and ui.configs.agents.list_records() == []


def test_a_write_from_another_origin_is_refused(ui: UIClient) -> None:
    ui.get("/")
    page = ui.http.post(
        "/agents/support/edit",
        data={"csrf": ui.csrf, "config": "{}", "if_version": "0"},
        headers={"Origin": "https://evil.example"},
    )
    assert page.status_code == 403 and "another site" in page.text
    assert ui.configs.agents.list_records() == []


def test_session_cookie_and_security_headers(ui: UIClient) -> None:
    page = ui.http.get("/")
    cookie = page.headers["set-cookie"]
    assert "tsui_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert ui.http.get("/static/ui.js").status_code == 200


def test_with_a_token_nothing_is_shown_without_it() -> None:
    ui = UIClient(token=TOKEN)
    ui.configs.agents.save("zebra42", {"tools": {}})
    page = ui.http.get("/agents/zebra42")
    assert page.status_code == 401 and "zebra42" not in page.text and "name='token'" in page.text
    assert ui.http.get("/?token=wrong-token-0123456789").status_code == 401
    assert ui.http.get("/", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_the_token_once_in_the_address_sets_a_cookie_and_is_dropped() -> None:
    ui = UIClient(token=TOKEN)
    first = ui.http.get(f"/agents?token={TOKEN}&x=1", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/agents?x=1"
    assert TOKEN not in first.headers["set-cookie"]  # the cookie holds an HMAC, not the token
    assert ui.http.get("/").status_code == 200


def test_the_login_form() -> None:
    ui = UIClient(token=TOKEN)
    bad = ui.http.post("/login", data={"token": "nope"})
    assert bad.status_code == 401 and "wrong token" in bad.text
    good = ui.http.post("/login", data={"token": TOKEN})
    assert good.status_code == 200 and good.url.path == "/"


def test_an_auth_hook_decides() -> None:
    ui = UIClient(auth=lambda request: request.headers.get("x-user") == "alice")
    assert ui.http.get("/").status_code == 401
    assert ui.http.get("/", headers={"x-user": "alice"}).status_code == 200


def test_short_tokens_are_refused() -> None:
    with pytest.raises(ToolSearchConfigError, match="16 characters"):
        UIClient(token="short")


def test_binding_beyond_loopback_needs_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    check_binding("127.0.0.1", token=None)
    check_binding("0.0.0.0", token=TOKEN)
    check_binding("0.0.0.0", token=None, auth=lambda r: True)
    with pytest.raises(ConfigCommandError, match="needs an access token"):
        check_binding("0.0.0.0", token=None)
    assert main(["ui", "--host", "0.0.0.0", "--store", ":memory:"]) == 1
    assert "--token" in capsys.readouterr().err


def test_allowed_hosts_refuse_other_host_headers() -> None:
    ui = UIClient(allowed_hosts=["127.0.0.1", "localhost"])
    assert ui.http.get("/", headers={"host": "evil.example"}).status_code == 400
    assert ui.http.get("/", headers={"host": "localhost:8765"}).status_code == 200


def _everything_shown(ui: UIClient, record: str = "crm") -> str:
    pages = [
        ui.get("/"),
        ui.get(f"/clients/{record}"),
        ui.get(f"/clients/{record}?version=1"),
        ui.get(f"/clients/{record}/edit"),
        ui.get(f"/clients/{record}/diff?a=1&b=draft"),
        ui.get(f"/export?kind=mcp-client&id={record}"),
        ui.get(f"/export?kind=mcp-client&id={record}&format=mastra"),
    ]
    assert all(page.status_code == 200 for page in pages)
    return "\n".join(page.text for page in pages)


def test_client_secrets_are_never_sent_to_the_page(ui: UIClient) -> None:
    ui.configs.mcp_clients.save("crm", CLIENT)
    shown = _everything_shown(ui)
    assert SECRET not in shown
    editor = ui.get("/clients/crm/edit").text
    assert "&lt;secret: unchanged&gt;" in editor
    assert '<code>CRM_API_KEY</code></td><td><span class="tag live">set</span>' in editor
    assert '<code>EMPTY</code></td><td><span class="tag">not set</span>' in editor


def test_saving_keeps_a_secret_unless_a_new_one_is_typed(ui: UIClient) -> None:
    ui.configs.mcp_clients.save("crm", CLIENT)
    ui.get("/clients/crm/edit")
    masked = json.loads(json.dumps(CLIENT).replace(SECRET, KEEP))
    masked["name"] = "CRM"
    ui.save("crm", json.dumps(masked), 1, base="1", kind="clients")
    stored = ui.configs.mcp_clients.get("crm")
    assert stored.name == "CRM" and stored.servers["crm"].env["CRM_API_KEY"] == SECRET
    masked["servers"]["crm"]["env"]["CRM_API_KEY"] = "sk-new"
    ui.save("crm", json.dumps(masked), 2, base="2", kind="clients")
    assert ui.configs.mcp_clients.get("crm").servers["crm"].env["CRM_API_KEY"] == "sk-new"


def test_keeping_a_secret_that_is_not_stored_is_an_error(ui: UIClient) -> None:
    ui.configs.mcp_clients.save("crm", CLIENT)
    masked = json.loads(json.dumps(CLIENT).replace(SECRET, KEEP))
    masked["servers"]["crm"]["env"]["OTHER"] = KEEP
    page = ui.save("crm", json.dumps(masked), 1, base="1", kind="clients")
    assert page.status_code == 400
    assert problems_of(page.text) == [
        "servers.crm.env.OTHER: no stored value to keep: type the value"
    ]
    assert ui.configs.mcp_clients.info("crm").latest_version == 1


def test_the_page_refuses_stored_headers_as_the_api_does(ui: UIClient) -> None:
    bad = {"servers": {"docs": {"url": "https://d.example/mcp", "headers": {"X": "y"}}}}
    page = ui.save("docs", json.dumps(bad), 0, kind="clients")
    assert page.status_code == 400 and "custom headers cannot be stored" in page.text
    assert ui.configs.mcp_clients.list_records() == []


def test_csrf_token_is_in_every_page(ui: UIClient) -> None:
    assert csrf_of(ui.get("/").text) == csrf_of(ui.get("/transfer").text)


def test_the_registry_is_loaded_from_module_attribute(capsys: pytest.CaptureFixture[str]) -> None:
    from editor.tests.support import ui_app
    from langchain_toolsearch_editor.ui._serve import load_object

    assert load_object("editor.tests.support.ui_app:REGISTRY") is ui_app.REGISTRY
    for spec, problem in (
        ("no_colon", "expected module:attribute"),
        ("no_such_module_xyz:TOOLS", "cannot import"),
        ("editor.tests.support.ui_app:NOPE", "has no attribute"),
    ):
        with pytest.raises(ConfigCommandError, match=problem):
            load_object(spec)
    assert main(["ui", "--store", ":memory:", "--registry", "nope"]) == 1
    assert "toolsearch ui: error: --registry: expected module:attribute" in capsys.readouterr().err


URL_SECRETS = ["pa55-alice-x", "tok-123456", "ak-999999", "k-777777", "s-888888", "pw-666666"]
URL_SECRETS += ["au-555555", "bob-user-y"]
SECRET_URL = (
    "https://bob-user-y:pa55-alice-x@docs.example.com/mcp?token=tok-123456&api_key=ak-999999"
    "&key=k-777777&secret=s-888888&password=pw-666666&auth=au-555555&region=eu"
)
URL_CLIENT = {"servers": {"docs": {"url": SECRET_URL}, "plain": {"url": "https://p.example/mcp"}}}


def test_credentials_in_server_urls_are_never_sent_to_the_page(ui: UIClient) -> None:
    ui.configs.mcp_clients.save("docs", URL_CLIENT)
    other = SECRET_URL.replace("tok-123456", "tok-new-654321")
    ui.configs.mcp_clients.save(
        "docs", {"servers": {**URL_CLIENT["servers"], "docs": {"url": other}}}
    )
    shown = _everything_shown(ui, "docs")
    for secret in [*URL_SECRETS, "tok-new-654321"]:
        assert secret not in shown, secret
    assert "https://[redacted]@docs.example.com/mcp?token=[redacted]&amp;" in shown
    assert "region=eu" in shown and "https://p.example/mcp" in shown  # the rest stays readable
    diff = ui.get("/clients/docs/diff?a=1&b=2").text
    assert "differ only in secrets" in diff and "tok-" not in diff
    editor = ui.get("/clients/docs/edit").text
    assert (
        '<td>docs</td><td><code>(URL credentials)</code></td><td><span class="tag live">set'
        in editor
    )


def test_saving_or_importing_a_masked_url_keeps_the_stored_one(ui: UIClient) -> None:
    ui.configs.mcp_clients.save("docs", URL_CLIENT)
    page = ui.get("/clients/docs/edit").text
    textarea = re.search(r'<textarea id="config"[^>]*>(.*?)</textarea>', page, re.S)
    assert textarea is not None
    masked = json.loads(html.unescape(textarea.group(1)))
    masked["name"] = "Docs"
    assert ui.save("docs", json.dumps(masked), 1, base="1", kind="clients").status_code == 200
    stored = ui.configs.mcp_clients.get("docs")
    assert stored.name == "Docs" and stored.servers["docs"].url == SECRET_URL
    exported = ui.get("/export?kind=mcp-client&id=docs").text
    again = ui.post("/import", {"text": exported, "format": "ours"})
    assert "unchanged mcp-client docs version 2" in again.text
    mastra = ui.get("/export?kind=mcp-client&id=docs&format=mastra").text
    assert (
        "unchanged mcp-client docs" in ui.post("/import", {"text": mastra, "format": "mastra"}).text
    )
    assert ui.configs.mcp_clients.get("docs").servers["docs"].url == SECRET_URL


def test_a_masked_url_with_nothing_stored_to_keep_is_an_error(ui: UIClient) -> None:
    ui.configs.mcp_clients.save("docs", URL_CLIENT)
    exported = ui.get("/export?kind=mcp-client&id=docs").text
    other = UIClient()
    page = other.post("/import", {"text": exported, "format": "ours"})
    assert page.status_code == 400 and other.configs.mcp_clients.list_records() == []
    assert problems_of(page.text) == [
        "mcp_clients.docs.servers.docs.url: no stored URL to take the [redacted] parts from: "
        "type the whole URL"
    ]
    typed = json.loads(exported)["mcp_clients"]["docs"]
    typed["servers"]["docs"]["url"] = typed["servers"]["docs"]["url"].replace("eu", "us")
    edit = ui.save("docs", json.dumps(typed), 1, base="1", kind="clients")
    assert edit.status_code == 400
    assert problems_of(edit.text)[0].startswith("servers.docs.url: no stored URL")
    assert ui.configs.mcp_clients.info("docs").latest_version == 1
