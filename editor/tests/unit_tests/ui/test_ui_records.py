"""The UI's record pages: list, history, editor saves (compare-and-set), diff, publish, roll back."""

from __future__ import annotations

import json

from editor.tests.support.ui_app import CONDITIONAL_AGENT, UIClient, problems_of


def test_the_home_page_lists_agents_and_clients(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {"send_email": {}}})
    ui.configs.mcp_clients.save("docs", {"servers": {"docs": {"url": "https://d.example/mcp"}}})
    page = ui.get("/").text
    assert 'href="/agents/support"' in page and 'href="/clients/docs"' in page
    assert "not published" in page


def test_create_an_agent_from_the_page_then_see_its_history(ui: UIClient) -> None:
    editor = ui.get("/new?kind=agent&id=support", follow_redirects=True)
    assert (
        editor.url.path == "/agents/support/edit" and 'name="if_version" value="0"' in editor.text
    )
    saved = ui.save("support", json.dumps(CONDITIONAL_AGENT), 0, message="first cut")
    assert saved.status_code == 200 and saved.url.path == "/agents/support"
    assert ui.configs.agents.get("support").to_json() == CONDITIONAL_AGENT
    page = ui.get("/agents/support").text
    assert "first cut" in page and "v1" in page and "publish_v1" in page


def test_a_bad_new_id_is_a_clear_message_and_nothing_is_created(ui: UIClient) -> None:
    page = ui.get("/new?kind=agent&id=no%20spaces")
    assert page.status_code == 400 and "1-128 characters" in page.text
    assert ui.configs.agents.list_records() == []


def test_invalid_json_keeps_the_text_and_writes_nothing(ui: UIClient) -> None:
    page = ui.save("support", '{"tools": {', 0)
    assert page.status_code == 400
    assert problems_of(page.text)[0].startswith("config: not valid JSON at line 1, column 12")
    assert "{&#34;tools&#34;: {" in page.text  # the text as typed, escaped
    assert ui.configs.agents.list_records() == []


def test_api_errors_name_the_field_as_the_api_does(ui: UIClient) -> None:
    bad = {
        "tools": {"send_email": {"descripton": "x"}},
        "mcp_clients": [{"value": {}, "rules": {"operator": "and", "conditions": []}}],
    }
    page = ui.save("support", json.dumps(bad), 0)
    assert page.status_code == 400
    problems = problems_of(page.text)
    assert any(p.startswith("tools.send_email.descripton: unknown key") for p in problems)
    assert any(
        p.startswith("mcp_clients[0].rules.operator: group operator &#39;and&#39;")
        for p in problems
    )
    assert ui.configs.agents.list_records() == []


def test_a_stale_editor_gets_a_conflict_and_loses_nothing(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {"send_email": {}}})
    mine = ui.get("/agents/support/edit")
    assert 'name="if_version" value="1"' in mine.text
    ui.configs.agents.save("support", {"tools": {"get_weather": {}}}, message="someone else")
    edit = json.dumps({"tools": {"send_email": {"description": "Mine."}}})
    page = ui.save("support", edit, 1, message="my change")
    assert page.status_code == 409 and "Conflict: nothing was saved." in page.text
    assert "it is at v2 now" in page.text and "/agents/support/diff?a=1&amp;b=2" in page.text
    assert "Mine." in page.text and 'value="my change"' in page.text  # nothing typed is lost
    assert ui.configs.agents.info("support").latest_version == 2
    assert ui.configs.agents.get("support").to_json() == {"tools": {"get_weather": {}}}
    # on purpose, over the version the conflict named
    over = ui.save("support", edit, 1, override_version="2", message="my change")
    assert over.status_code == 200
    assert ui.configs.agents.get("support").to_json() == json.loads(edit)


def test_save_and_publish_in_one_step(ui: UIClient) -> None:
    ui.save("support", '{"tools": {"send_email": {}}}', 0, publish="on")
    assert ui.configs.agents.info("support").published_version == 1


def test_diff_between_two_versions(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {"send_email": {}}})
    ui.configs.agents.save("support", {"tools": {"get_weather": {}}})
    page = ui.get("/agents/support/diff?a=1&b=2").text
    assert '<span class="del">-    &#34;send_email&#34;: {}</span>' in page
    assert '<span class="add">+    &#34;get_weather&#34;: {}</span>' in page
    same = ui.get("/agents/support/diff?a=2&b=draft").text
    assert "hold the same configuration" in same
    assert ui.get("/agents/support/diff?a=9&b=1").status_code == 404
    assert ui.get("/agents/support/diff?a=x&b=1").status_code == 404


def test_publish_and_roll_back_are_compare_and_set(ui: UIClient) -> None:
    records = ui.configs.agents
    records.save("support", {"tools": {"send_email": {}}})
    records.save("support", {"tools": {"get_weather": {}}})
    done = ui.post("/agents/support/publish", {"version": "2", "if_version": "2"})
    assert done.status_code == 200 and records.info("support").published_version == 2
    page = ui.get("/agents/support").text
    assert "rollback_v1" in page and "publish_v1" not in page
    back = ui.post("/agents/support/rollback", {"version": "1", "if_version": "2"})
    assert back.status_code == 200 and records.info("support").published_version == 1
    # a page that showed v2 as the latest, after someone saved v3: nothing changes
    records.save("support", {"tools": {}})
    stale = ui.post("/agents/support/publish", {"version": "2", "if_version": "2"})
    assert stale.status_code == 409 and "Conflict, nothing was changed" in stale.text
    assert records.info("support").published_version == 1
    # publish (not rollback) of an older version than the live one is refused too
    older = ui.post("/agents/support/publish", {"version": "1", "if_version": "3"})
    assert records.info("support").published_version == 1 and older.status_code in (200, 409)


def test_bad_publish_input_changes_nothing(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {}})
    for form in (
        {"version": "x", "if_version": "1"},
        {"version": "1"},
        {"version": "7", "if_version": "1"},
    ):
        page = ui.post("/agents/support/publish", form)
        assert page.status_code == 409 and "Nothing was changed" in page.text, form
    assert ui.configs.agents.info("support").published_version is None


def test_unknown_records_and_versions_are_404(ui: UIClient) -> None:
    assert ui.get("/agents/nobody").status_code == 404
    assert ui.get("/things/x").status_code == 404
    ui.configs.agents.save("support", {"tools": {}})
    assert ui.get("/agents/support?version=5").status_code == 404
    assert ui.get("/agents/support/edit?from=5").status_code == 404


def test_stored_data_that_no_longer_loads_is_a_message(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {}})
    # a version written by other means than ToolConfigStore, which no longer validates
    namespace = ("toolsearch", "agent_tool_configs", "versions", "support")
    item = ui.store.get(namespace, f"{1:010d}")
    assert item is not None
    ui.store.put(
        namespace, f"{1:010d}", {**item.value, "data": {"tools": {"x": {"descripton": 1}}}}
    )
    page = ui.get("/agents/support")
    assert page.status_code == 400 and "does not load" in page.text and "descripton" in page.text
