"""The configuration UI in a real browser (headless Chromium) against a real store.

One user's whole workflow, as a new user would do it on the page: create a
saved MCP client (a real ``mcp-server-time``) and an agent, add registered
tools with a description override and the client's live tools, add a
conditional tool set (the rule validated as typed), preview two request
contexts, publish, edit in a second tab and get the conflict (nothing
lost), save over it on purpose, roll back, search. On a SQLite file, and on
PostgreSQL. The screenshots of docs/ui/ come from this test
(``make screenshots`` sets ``TOOLSEARCH_UI_SCREENSHOTS=docs/ui``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from editor.tests.support.browser import SCREENSHOTS_ENV, chromium_context, screenshot, served
from editor.tests.support.ui_app import REGISTRY, SlackProvider, UIClient
from langchain_toolsearch_editor._store import ToolConfigStore, open_store
from langchain_toolsearch_editor.ui import create_app
from tests.support.mcp_fixtures import servers_bin

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(params=["sqlite", "postgres"])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "toolsearch-config.sqlite")
    else:
        yield request.getfixturevalue("pg_dsn")


def _client_json() -> str:
    time_server = str(servers_bin() / "mcp-server-time")
    return json.dumps(
        {
            "name": "Time",
            "servers": {
                "time": {"command": time_server, "args": ["--local-timezone", "UTC"],
                         "env": {"TIME_API_KEY": "sk-never-shown"}},
            },
        }
    )  # fmt: skip


def _fill(page: Any, selector: str, text: str) -> None:
    page.fill(selector, text)
    page.dispatch_event(selector, "input")


def test_the_whole_workflow_in_a_browser(store_spec: str, tmp_path: Path) -> None:
    shots = Path(os.environ.get(SCREENSHOTS_ENV) or tmp_path / "shots")
    take = store_spec.endswith(".sqlite")  # one set of screenshots
    with (
        open_store(store_spec, create=True) as store,
        served(
            create_app(store, registry=REGISTRY, tool_providers={"slack": SlackProvider()})
        ) as url,
        chromium_context() as browser,
    ):
        configs = ToolConfigStore(store)
        page = browser.new_page()
        page.goto(url + "/")

        # a saved MCP client
        page.fill("#new-client input[name=id]", "time")
        page.click("#new-client button")
        _fill(page, "#config", _client_json())
        page.check("#publish")
        page.fill("input[name=message]", "the time server (alice)")
        page.click("#save")
        page.wait_for_url(re.compile(r"/clients/time\?done=saved-1"))
        assert "sk-never-shown" not in page.content()

        # an agent: registered tools, one re-described, the client's live tools
        page.goto(url + "/")
        page.fill("#new-agent input[name=id]", "support")
        page.click("#new-agent button")
        page.fill('[data-override-for="send_email"]', "E-mail a customer (support team only).")
        page.click('[data-add-tool="send_email"]')
        page.click('[data-add-tool="get_weather"]')
        page.click('[data-list-client="time"]')
        page.wait_for_selector('[data-add-client-tool="time_get_current_time"]')
        page.click('[data-add-client-tool="time_get_current_time"]')
        page.click('[data-list-provider="slack"]')
        page.click('[data-add-provider-tool="SLACK_SEND_MESSAGE"]')

        # a conditional tool set; the rule is checked as it is typed
        _fill(page, "#rules", '{"operator": "and", "conditions": []}')
        page.wait_for_selector("#rules-status.bad")
        assert "rules.operator: group operator 'and'" in page.inner_text("#rules-status")
        rule = {"operator": "AND", "conditions": [
            {"field": "plan", "operator": "in", "value": ["pro", "enterprise"]}]}  # fmt: skip
        _fill(page, "#rules", json.dumps(rule))
        page.wait_for_selector("#rules-status.ok")
        page.fill("#conditional-tools", "github_create_issue")
        page.click("#add-conditional")
        page.wait_for_selector("#config-status.ok")
        config = json.loads(page.input_value("#config"))
        assert config["tools"][1] == {"value": {"github_create_issue": {}}, "rules": rule}
        assert config["mcp_clients"] == {"time": {"tools": {"time_get_current_time": {}}}}
        page.fill("input[name=message]", "first version (alice)")
        if take:
            screenshot(page, "editor", shots)
        page.click("#save")
        page.wait_for_url(re.compile(r"/agents/support\?done=saved-1"))
        stored = configs.agents.get("support").to_json()
        assert stored["tools"][0]["value"]["send_email"] == {
            "description": "E-mail a customer (support team only)."
        }

        # preview two request contexts
        page.goto(url + "/agents/support/preview")
        _fill(page, "#context", '{"plan": "free"}')
        page.click("#resolve")
        free = page.locator("#resolved tr.in").evaluate_all("rows => rows.map(r => r.dataset.tool)")
        assert sorted(free) == [
            "SLACK_SEND_MESSAGE", "get_weather", "send_email", "time_get_current_time"
        ]  # fmt: skip
        assert "no" in page.inner_text('#resolved tr[data-tool="github_create_issue"]')
        _fill(page, "#context", '{"plan": "pro"}')
        page.click("#resolve")
        pro = page.locator("#resolved tr.in").evaluate_all("rows => rows.map(r => r.dataset.tool)")
        assert "github_create_issue" in pro and len(pro) == 5
        if take:
            screenshot(page, "preview", shots)

        # publish
        page.goto(url + "/agents/support")
        page.click('button[name="publish_v1"]')
        page.wait_for_url(re.compile(r"done=published"))
        assert configs.agents.info("support").published_version == 1

        # two tabs edit at once: the second save gets the conflict and keeps its text
        first, second = browser.new_page(), browser.new_page()
        for tab in (first, second):
            tab.goto(url + "/agents/support/edit")
        edited = json.loads(first.input_value("#config"))
        edited["tools"][0]["value"].pop("get_weather")
        _fill(first, "#config", json.dumps(edited, indent=2))
        first.fill("input[name=message]", "drop the weather (bob)")
        first.click("#save")
        first.wait_for_url(re.compile(r"done=saved-2"))
        mine = json.loads(second.input_value("#config"))
        mine["tools"][0]["value"]["send_email"]["description"] = "Mine: e-mail a customer."
        _fill(second, "#config", json.dumps(mine, indent=2))
        second.click("#save")
        second.wait_for_selector("#conflict")
        assert "it is at v2 now" in second.inner_text("#conflict")
        assert "Mine: e-mail a customer." in second.input_value("#config")
        assert configs.agents.info("support").latest_version == 2
        if take:
            screenshot(second, "conflict", shots)
        second.click("#save-over")
        second.wait_for_url(re.compile(r"done=saved-3"))

        # history, diff, publish v3, roll back to v1
        page.goto(url + "/agents/support/diff?a=1&b=3")
        assert "Mine: e-mail a customer." in page.inner_text("#diff")
        if take:
            screenshot(page, "diff", shots)
        page.goto(url + "/agents/support")
        page.click('button[name="publish_v3"]')
        page.wait_for_url(re.compile(r"done=published"))
        page.click('button[name="rollback_v1"]')
        page.wait_for_url(re.compile(r"done=rolled-back"))
        assert configs.agents.info("support").published_version == 1
        if take:
            screenshot(page, "history", shots)

        # search the published library for a pro request
        page.goto(url + "/agents/support/search")
        page.fill("#query", "open a bug report")
        page.select_option("select[name=version]", "published")
        _fill(page, "#context", '{"plan": "pro"}')
        page.click("#search")
        first_hit = page.locator("#hits tbody tr").first.get_attribute("data-tool")
        assert first_hit == "github_create_issue"
        if take:
            screenshot(page, "search", shots)

        # the home page, the client (secret shown as set), import / export
        page.goto(url + "/clients/time/edit")
        assert "sk-never-shown" not in page.content() and "set" in page.inner_text("#secrets")
        if take:
            screenshot(page, "client", shots)
        page.goto(url + "/transfer")
        if take:
            screenshot(page, "transfer", shots)
        page.goto(url + "/")
        assert page.locator("#agents").inner_text().count("support") >= 1
        if take:
            screenshot(page, "home", shots)


def test_a_failing_client_shows_its_failure_in_the_editor(tmp_path: Path) -> None:
    with (
        open_store(str(tmp_path / "s.sqlite"), create=True) as store,
        served(create_app(store, registry=REGISTRY, mcp_timeout=5)) as url,
        chromium_context() as browser,
    ):
        configs = ToolConfigStore(store)
        configs.mcp_clients.save(
            "broken", {"servers": {"gone": {"command": str(tmp_path / "no-such-server")}}}
        )
        page = browser.new_page()
        page.goto(url + "/agents/support/edit")
        page.click('[data-list-client="broken"]')
        page.wait_for_selector("#client-tools-broken li.failure")
        assert "mcp_clients.broken.servers.gone" in page.inner_text("#client-tools-broken")


def test_a_client_listing_reports_its_failure() -> None:
    ui = UIClient()  # no browser: the listing endpoint, with a server that refuses connections
    ui.configs.mcp_clients.save(
        "gone", {"servers": {"web": {"url": "http://127.0.0.1:9/mcp", "timeout": 2}}}
    )
    listed = ui.api("/api/clients/gone/tools", {"version": "1"}).json()
    assert listed["tools"] == [] and list(listed["failures"]) == ["mcp_clients.gone.servers.web"]
    assert ui.api("/api/clients/bad%20id/tools").status_code == 400


def test_a_failing_url_with_credentials_shows_none_of_them() -> None:
    ui = UIClient()  # no browser: the listing endpoint and the preview, a server that refuses
    url = "http://ann-user-0:pw-secret-1@127.0.0.1:9/mcp?token=tok-secret-2&api_key=ak-secret-3"
    ui.configs.mcp_clients.save("gone", {"servers": {"web": {"url": url, "timeout": 2}}})
    ui.configs.agents.save("support", {"mcp_clients": {"gone": {"tools": "*"}}})
    listed = ui.api("/api/clients/gone/tools", {"version": "1"}).text
    preview = ui.post("/agents/support/preview", {"version": "draft", "context": "{}"}).text
    assert "mcp_clients.gone.servers.web" in listed and "mcp_clients.gone" in preview
    for secret in ("ann-user-0", "pw-secret-1", "tok-secret-2", "ak-secret-3"):
        assert secret not in listed and secret not in preview, secret
