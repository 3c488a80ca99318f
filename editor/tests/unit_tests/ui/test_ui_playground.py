"""The UI's preview, search playground, validation endpoint and import / export."""

from __future__ import annotations

import json
import re

from langchain_core.embeddings import DeterministicFakeEmbedding

from editor.tests.support.ui_app import CONDITIONAL_AGENT, UIClient, problems_of


def _tools_in(html: str) -> list[str]:
    return re.findall(r'<tr class="in" data-tool="(.*?)"', html)


def test_preview_shows_what_each_context_gets(ui: UIClient) -> None:
    ui.configs.agents.save("support", CONDITIONAL_AGENT)
    free = ui.post("/agents/support/preview", {"version": "draft", "context": '{"plan": "free"}'})
    pro = ui.post("/agents/support/preview", {"version": "draft", "context": '{"plan": "pro"}'})
    assert sorted(_tools_in(free.text)) == ["get_weather", "send_email"]
    assert sorted(_tools_in(pro.text)) == ["get_weather", "github_create_issue", "send_email"]
    assert "prompt tokens" in pro.text and "Weather now." in pro.text


def test_preview_bad_context_is_a_message(ui: UIClient) -> None:
    ui.configs.agents.save("support", CONDITIONAL_AGENT)
    page = ui.post("/agents/support/preview", {"version": "draft", "context": "[1]"})
    assert page.status_code == 400 and problems_of(page.text) == [
        "context: expected a JSON object {...}, got list"
    ]
    page = ui.post("/agents/support/preview", {"version": "published", "context": "{}"})
    assert page.status_code == 200 and "agent_config" in page.text  # nothing published: reported


def test_search_ranks_the_resolved_library(ui: UIClient) -> None:
    ui.configs.agents.save("support", CONDITIONAL_AGENT)
    form = {"version": "draft", "query": "open a bug report", "mode": "bm25", "top_k": "5"}
    free = ui.post("/agents/support/search", {**form, "context": "{}"})
    pro = ui.post("/agents/support/search", {**form, "context": '{"plan": "pro"}'})
    assert "github_create_issue" not in free.text
    hits = re.findall(r'<tr data-tool="(.*?)"><td>1</td>', pro.text)
    assert hits == ["github_create_issue"] and "library of 3 tools" in pro.text


def test_search_hybrid_needs_embeddings() -> None:
    bm25_only = UIClient()
    bm25_only.configs.agents.save("support", CONDITIONAL_AGENT)
    form = {"version": "draft", "query": "weather", "mode": "hybrid", "top_k": "5", "context": "{}"}
    page = bm25_only.post("/agents/support/search", form)
    assert page.status_code == 400 and "hybrid search needs embeddings" in page.text
    hybrid = UIClient(embeddings=DeterministicFakeEmbedding(size=16))
    hybrid.configs.agents.save("support", CONDITIONAL_AGENT)
    page = hybrid.post("/agents/support/search", form)
    assert page.status_code == 200 and '<tr data-tool="get_weather"><td>1</td>' in page.text


def test_search_bad_input(ui: UIClient) -> None:
    ui.configs.agents.save("support", CONDITIONAL_AGENT)
    for field, value in (("top_k", "0"), ("top_k", "²"), ("mode", "magic"), ("context", "{")):
        form = {"version": "draft", "query": "x", "mode": "bm25", "top_k": "5", "context": "{}"}
        page = ui.post("/agents/support/search", {**form, field: value})
        assert page.status_code == 400 and "Nothing was saved" in page.text, (field, value)


def test_validation_endpoint_gives_the_apis_field_paths(ui: UIClient) -> None:
    ok = ui.api("/api/validate", {"kind": "agent", "text": json.dumps(CONDITIONAL_AGENT)})
    assert ok.json() == {"ok": True, "errors": []}
    rules = '{"operator": "AND", "conditions": [{"field": "n", "operator": "greater_than", "value": "1"}]}'
    bad = ui.api("/api/validate", {"kind": "rules", "text": rules, "prefix": "rules"}).json()
    assert not bad["ok"] and bad["errors"][0]["path"] == "rules.conditions[0].value"
    assert "text_greater_than" in bad["errors"][0]["message"]
    broken = ui.api("/api/validate", {"kind": "agent", "text": "{"}).json()
    assert (
        broken["errors"][0]["path"] == "config"
        and "not valid JSON" in broken["errors"][0]["message"]
    )
    assert ui.api("/api/validate", {"kind": "nope", "text": "{}"}).status_code == 400


def test_the_editor_lists_registry_clients_and_conditional_builder(ui: UIClient) -> None:
    ui.configs.mcp_clients.save("docs", {"servers": {"docs": {"url": "https://d.example/mcp"}}})
    page = ui.get("/agents/support/edit").text
    for marker in ('data-add-tool="send_email"', 'data-list-client="docs"', 'id="add-conditional"'):
        assert marker in page


def test_export_and_import_round_trip(ui: UIClient) -> None:
    ui.configs.agents.save("support", CONDITIONAL_AGENT)
    exported = ui.get("/export?kind=agent&id=support")
    assert "attachment" in exported.headers["content-disposition"]
    bundle = exported.json()
    assert bundle == {"agents": {"support": CONDITIONAL_AGENT}}
    other = UIClient()
    done = other.post("/import", {"text": json.dumps(bundle), "format": "ours", "publish": "on"})
    assert "saved agent support version 1 (published)" in done.text
    again = other.post("/import", {"text": json.dumps(bundle), "format": "ours"})
    assert "unchanged agent support version 1" in again.text


def test_mastra_import_and_export(ui: UIClient) -> None:
    mastra = {
        "agents": {"support": {"tools": {"send_email": {}}, "mcpClients": {"docs": {"tools": {}}}}},
        "mcpClients": {
            "docs": {"servers": {"docs": {"url": "https://d.example/mcp", "timeout": 20000}}}
        },
    }
    done = ui.post("/import", {"text": json.dumps(mastra), "format": "mastra"})
    assert (
        "saved mcp-client docs version 1" in done.text
        and "saved agent support version 1" in done.text
    )
    assert ui.configs.agents.get("support").to_json()["mcp_clients"] == {"docs": {"tools": "*"}}
    assert ui.configs.mcp_clients.get("docs").servers["docs"].timeout == 20
    back = ui.get("/export?kind=agent&id=support&format=mastra").json()
    assert back["agents"]["support"]["mcpClients"] == {"docs": {"tools": {}}}


def test_an_invalid_file_writes_nothing(ui: UIClient) -> None:
    bad = {"agents": {"a": {"tools": {}}, "b": {"tools": {"x": {"descripton": "typo"}}}}}
    page = ui.post("/import", {"text": json.dumps(bad), "format": "ours"})
    assert page.status_code == 400
    assert problems_of(page.text)[0].startswith("agents.b.tools.x.descripton: unknown key")
    assert ui.configs.agents.list_records() == []
    assert ui.post("/import", {"text": "not json", "format": "ours"}).status_code == 400


def test_preview_says_which_rule_kept_a_tool_out(ui: UIClient) -> None:
    ui.configs.agents.save("support", CONDITIONAL_AGENT)
    free = ui.post("/agents/support/preview", {"version": "draft", "context": '{"plan": "free"}'})
    out = re.search(r'<tr class="out" data-tool="github_create_issue">(.*?)</tr>', free.text, re.S)
    assert out is not None and "<td>no</td>" in out.group(1)
    assert "plan equals &#34;pro&#34;" in out.group(1) and "tools[1].rules" in out.group(1)


def test_providers_are_listed_and_failures_shown() -> None:
    from editor.tests.support.ui_app import BrokenProvider, SlackProvider

    ui = UIClient(tool_providers={"slack": SlackProvider(), "down": BrokenProvider()})
    assert 'data-list-provider="slack"' in ui.get("/agents/support/edit").text
    listed = ui.api("/api/providers/slack/tools").json()
    assert listed == {
        "tools": [{"id": "SLACK_SEND_MESSAGE", "description": "Send a Slack message to a channel."}]
    }
    down = ui.api("/api/providers/down/tools").json()
    assert down["tools"] == [] and "provider API unreachable" in down["failure"]
    assert ui.api("/api/providers/nope/tools").status_code == 400
    ui.configs.agents.save(
        "support", {"tool_providers": {"slack": {"tools": {"SLACK_SEND_MESSAGE": {}}}}}
    )
    page = ui.post("/agents/support/preview", {"version": "draft", "context": "{}"})
    assert _tools_in(page.text) == ["SLACK_SEND_MESSAGE"]
