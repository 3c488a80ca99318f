"""Issue 33's lexical kinds, each on its own small library: a quoted dotted name, a verb
with its particle written joined, split or hyphenated, a typo in the one verb of a short
need, and a bare domain. Default BM25 index built through the public library."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import pytest

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search.index import build_index
from langchain_toolsearch.search.stages import SearchStages
from tests.support.index_docs import defined_tool as _tool

LIBRARY = [
    _tool("weather.get", "Get the current weather for a city.", city="City name"),
    _tool("weather.forecast", "Get the weather forecast for the next days.", city="City"),
    _tool("weather.get.alerts", "Get weather alerts for a region.", region="Region"),
    _tool("get_weather", "Return weather data.", location="Location"),
    _tool("create_workspace", "Create a new workspace with a setup wizard.", team="team"),
    _tool("approve_doc", "Record the signoff of a document by a manager.", doc="document"),
    _tool("share_doc", "Share a document with a team.", doc="document"),
    _tool("account_login", "Login to an account with a password.", user="user name"),
    _tool("user_profile", "Show the profile of a user account.", user="user name"),
    _tool("page_click", "Click on an element of the web page.", selector="CSS selector"),
    _tool("open_link", "Open a link in a new tab.", link="link"),
    _tool("list_links", "List the links of the current page."),
    _tool("navigate", "Navigate the browser to a URL.", url="The URL to load"),
    _tool("go_back", "Go back to the previous page."),
    _tool("send_email", "Send an email message.", to="Recipient"),
]


@functools.cache  # one index per stage set: ranking never changes it
def _built(stages: SearchStages | None) -> tuple[ToolLibrary, Any]:
    library = ToolLibrary(LIBRARY)
    index = build_index(None, library.documents())
    if stages is not None:
        index = type(index).build(library.documents(), stages=stages)  # type: ignore[attr-defined]
    return library, index


def _names(query: str, stages: SearchStages | None = None, k: int = 5) -> list[str]:
    library, index = _built(stages)
    names = [h.name for h in itertools.islice(index.rank(query), k)]
    by_safe = {library.resolve(t.name): t.name for t in LIBRARY}
    return [by_safe.get(n, n) for n in names]


@pytest.mark.parametrize(
    "query", ["`weather.get`", '"weather.get"', "use `weather.get` for the forecast of Paris"]
)
def test_a_quoted_dotted_name_ranks_that_tool_first(query: str) -> None:
    assert _names(query)[0] == "weather.get"


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("sign off the document", "approve_doc"),
        ("sign-off the document", "approve_doc"),
        ("signoff the document", "approve_doc"),
        ("set up a workspace", "create_workspace"),
        ("log in to my account", "account_login"),
        ("log-in to my account", "account_login"),
    ],
)
def test_a_verb_and_its_particle_match_the_joined_word(query: str, tool: str) -> None:
    assert _names(query)[0] == tool


def _score(query: str, name: str, stages: SearchStages) -> float:
    _, index = _built(stages)
    return next(h.score for h in index.rank(query) if h.name == name)


@pytest.mark.parametrize(
    ("query", "tool"),
    [("sign off the doc", "approve_doc"), ("set up a workspace", "create_workspace")],
)
def test_the_particle_join_is_the_spelling_stage(query: str, tool: str) -> None:
    on = _score(query, tool, SearchStages())
    off = _score(query, tool, SearchStages().without("spelling"))
    assert on > off


@pytest.mark.parametrize("query", ["clikc on the link", "clcik the link", "clik a link"])
def test_a_typo_in_the_one_verb_of_a_short_need_still_reaches_the_tool(query: str) -> None:
    assert "page_click" in _names(query)
    assert "page_click" not in _names(query, SearchStages().without("spelling"))


@pytest.mark.parametrize("query", ["go to google.com", "go to www.python.org", "wikipedia.org"])
def test_a_bare_domain_reaches_the_navigation_tool(query: str) -> None:
    assert _names(query)[:1] == ["navigate"]


def test_a_bare_domain_beside_a_known_content_word_stays_weak() -> None:
    # "email" is a content word the library knows: the domain's url word only adds to it
    assert _names("send an email to bob at example.com")[0] == "send_email"
