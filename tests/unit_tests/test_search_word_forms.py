"""Word forms a query takes, each on its own small library: a quoted dotted name, a verb
with its particle written joined, split or hyphenated, a typo in the one verb of a short
need, a bare domain, and a tool name written run together (with a typo, too). Default BM25
index built through the public library."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import pytest

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import BM25ToolIndex, SearchStages, ToolDocument
from langchain_toolsearch.search._bm25 import build_index
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


# -- a tool name written run together ----------------------------------------------------------


GITHUB_LIKE = [
    ("add_issue_comment", "Add a comment to an issue."),
    ("add_comment_to_pending_review", "Add a comment to the requester's latest pending review."),
    ("create_pull_request_review", "Create a review on a pull request."),
    ("list_branches", "List branches of a repository."),
    ("get_code_scanning_alert", "Get details of a code scanning alert."),
    ("search_repositories", "Search repositories."),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("addissuecomment", "add_issue_comment"),  # three words: found nothing before
        ("addcommenttopendingreview", "add_comment_to_pending_review"),  # a 2-letter part
        ("createpullrequestreview", "create_pull_request_review"),  # 4 parts, 23 letters
        ("getcodescanningalert", "get_code_scanning_alert"),
        ("listbranches", "list_branches"),  # two words: as before
        ("searchrepositories", "search_repositories"),
        # with a typo: matched to the name (found nothing before)
        ("addissueocmment", "add_issue_comment"),  # a swap
        ("dadissuecomment", "add_issue_comment"),  # at the start: found by the word's end
        ("addcommenttopendingreveiw", "add_comment_to_pending_review"),
        ("createpullrequstreview", "create_pull_request_review"),  # a letter left out
        ("getcodescaningalert", "get_code_scanning_alert"),
        ("serachrepositories", "search_repositories"),
        ("issuecomemnt", "add_issue_comment"),  # the name's last words only
        ("listbranhces", "list_branches"),
    ],
)
def test_a_name_written_run_together_is_found(query: str, expected: str) -> None:
    docs = [ToolDocument(n, d) for n, d in GITHUB_LIKE]
    hits = [h.name for h in BM25ToolIndex.build(docs).rank(query)]
    assert hits[:1] == [expected], hits
    off = BM25ToolIndex.build(docs, stages=SearchStages().without("spelling"))
    assert list(off.rank(query)) == []


def test_run_together_splits_are_bounded() -> None:
    docs = [ToolDocument(n, d) for n, d in GITHUB_LIKE]
    index = BM25ToolIndex.build(docs)
    assert list(index.rank("add" * 17)) == []  # 51 letters: longer than a split is tried
    assert list(index.rank("addissuecomment" * 3)) == []  # 9 parts: more than 6


def test_a_run_together_name_beats_a_split_into_other_library_words() -> None:
    # "isuse" is "is" + "use" in this library: the name the word writes is what is meant
    docs = [*(ToolDocument(n, d) for n, d in GITHUB_LIKE), ToolDocument("use_it", "It is.")]
    docs.append(ToolDocument("update_issue_body", "Update the body of an issue."))
    hits = [h.name for h in BM25ToolIndex.build(docs).rank("updateisusebody")]
    assert hits[:1] == ["update_issue_body"], hits
