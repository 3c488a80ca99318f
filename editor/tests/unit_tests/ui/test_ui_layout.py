"""The page's shell and layout: favicon, narrow screens, the diff's line spacing, wording."""

from __future__ import annotations

import re

from editor.tests.support.ui_app import UIClient


def test_every_page_declares_a_favicon_so_the_browser_asks_for_none(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {"send_email": {}}})
    for path in ("/", "/transfer", "/agents/support"):
        page = ui.get(path).text
        assert re.search(r'<link rel="icon" href="data:,">', page), path


def test_the_history_table_scrolls_sideways_on_a_phone(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {"send_email": {}}})
    page = ui.get("/agents/support").text
    assert '<div class="scroll"><table id="history">' in page
    assert "</tbody></table></div>" in page
    css = ui.get("/static/ui.css").text
    assert re.search(r"\.scroll \{[^}]*overflow-x: auto", css)
    assert "@media (max-width: 420px)" in css


def test_the_diff_has_one_line_per_changed_line(ui: UIClient) -> None:
    ui.configs.agents.save("support", {"tools": {"send_email": {}}})
    ui.configs.agents.save("support", {"tools": {"get_weather": {}}})
    page = ui.get("/agents/support/diff?a=1&b=2").text
    diff = re.search(r'<pre class="diff" id="diff">(.*?)</pre>', page, re.S)
    assert diff
    # each line is a display:block span: a newline between spans would be a blank line
    assert "\n" not in diff.group(1)
    assert diff.group(1).count("<span") == diff.group(1).count("</span>") > 2


def test_the_import_page_names_mastra_editor(ui: UIClient) -> None:
    page = ui.get("/transfer").text
    assert "Mastra Editor&#39;s JSON" in page or "Mastra Editor's JSON" in page
    assert "seed" not in page.lower()
