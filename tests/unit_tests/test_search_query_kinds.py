"""Kinds of query the search meets in general: typos, URLs, names written exactly, compounds.

Each kind on small hand-built libraries and on real ones from the shared data
(GitHub's MCP server, BFCL, the ToolSDK registry), through ``ToolLibrary`` as
the middleware builds the index.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from langchain_core.tools import BaseTool

from benchmarks.datasets import load_bfcl, load_github_mcp_tools, load_toolsdk
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.catalog import tool_from_definition
from langchain_toolsearch.search import BM25ToolIndex, SearchStages
from langchain_toolsearch.search._bm25 import build_index
from tests.support.index_docs import defined_tool as _tool
from tests.support.index_docs import top_names


def _index(tools: list[BaseTool], stages: SearchStages | None = None) -> BM25ToolIndex:
    documents = ToolLibrary(tools).documents()
    if stages is not None:
        return BM25ToolIndex.build(documents, stages=stages)
    index = build_index(None, documents)
    assert isinstance(index, BM25ToolIndex)
    return index


def _originals(index: BM25ToolIndex, library: ToolLibrary, query: str, k: int = 5) -> list[str]:
    """The top ``k`` hits' names as the library's tools spell them (``weather.get``)."""
    found = [library.get(name) for name in top_names(index, query, k)]
    return [tool.original_name for tool in found if tool is not None]


@cache
def _real(name: str) -> list[BaseTool]:
    """A real library from the shared data, one tool per name."""
    loaders = {
        "github": load_github_mcp_tools,
        "bfcl": lambda: load_bfcl()[0],
        "toolsdk": load_toolsdk,
    }
    seen: set[str] = set()
    tools: list[BaseTool] = []
    for definition in loaders[name]():
        if definition.name not in seen and definition.name not in {"search_tools", "load_tool"}:
            seen.add(definition.name)
            tools.append(definition.to_tool())
    return tools


@cache
def _real_index(name: str, *extra: tuple[str, str, str]) -> tuple[ToolLibrary, BM25ToolIndex]:
    """A real library, and ``extra`` tools ``(name, description, url parameter's text)``."""
    added = [_tool(n, d, url=u) if u else _tool(n, d) for n, d, u in extra]
    library = ToolLibrary([*_real(name), *added])
    index = build_index(None, library.documents())
    assert isinstance(index, BM25ToolIndex)
    return library, index


# -- a corrected typo weighs as much as the word it replaces ----------------------------------


@pytest.mark.parametrize(
    ("verb_tool", "object_tool", "query"),
    [
        (
            ("browser_click", "Click an element on the page."),
            ("open_link", "Open a link on the page."),
            "clikc the link",
        ),
        (
            ("find_invoices", "Search invoices by text."),
            ("list_invoices", "List invoices of a customer."),
            "seacrh invoices of a customer",
        ),
        (
            ("delete_record", "Delete a record of the ledger."),
            ("audit_record", "Audit a record of the ledger."),
            "delte or audit a record",
        ),
        (
            ("archive_tasks", "Archive the tasks."),
            ("column_tasks", "Tasks of a column."),
            "arhcive the tasks of a column",
        ),
    ],
)
def test_a_word_corrected_by_one_edit_weighs_as_much_as_the_word_it_replaces(
    verb_tool: tuple[str, str], object_tool: tuple[str, str], query: str
) -> None:
    """Two tools alike but for one word each: the typo's and another query word's."""
    index = _index([_tool(*verb_tool), _tool(*object_tool)])
    scores = {h.name: h.score for h in index.rank(query)}
    assert scores[verb_tool[0]] == scores[object_tool[0]], scores


_PAGE = [
    _tool("click_on_element", "Click on an element of the page."),
    _tool("open_link", "Open a link in a new tab."),
    _tool("copy_link", "Copy a link to the clipboard."),
    _tool("merge_branch", "Merge a branch into another."),
    _tool("delete_branch", "Delete a branch."),
    _tool("list_branches", "List the branches."),
]


@pytest.mark.parametrize(
    ("spelled", "typo"),
    [
        ("click on the link", "clikc on the link"),  # a swap
        ("click on the link", "clck on the link"),  # a drop
        ("click on the link", "cllick on the link"),  # an insert
        ("click on the link", "Clivk on the link"),  # a substitution, capitalised
        ("merge branch", "mege branch"),  # the stems "mege" and "merg" are two apart
        ("merge the branch", "mrege the branch"),
    ],
)
def test_a_typo_of_one_edit_ranks_as_the_word_it_stands_for(spelled: str, typo: str) -> None:
    """In every stage: BM25, the stopword pair ``click on``, the words ending a name."""
    index = _index(_PAGE)
    hits = [(h.name, h.score, h.raw_score) for h in index.rank(typo)]
    assert hits == [(h.name, h.score, h.raw_score) for h in index.rank(spelled)]


@pytest.mark.parametrize(
    ("library", "spelled", "typo"),
    [
        ("toolsdk", "click on the link", "clikc on the link"),  # a swap
        ("toolsdk", "click on the link", "clck on the link"),  # a drop
        ("toolsdk", "click on the link", "cllick on the link"),  # an insert
        ("toolsdk", "click on the link", "clivk on the link"),  # a substitution
        ("toolsdk", "merge the pull request", "mrege the pull request"),
        ("github", "merge the pull request", "mrege the pull request"),
        ("github", "merge the pull request", "mege the pull request"),
        ("github", "merge the pull request", "mergge the pull request"),
        ("github", "merge the pull request", "merhe the pull request"),
        ("github", "star the repository", "satr the repository"),
        ("github", "delete the file", "dlete the file"),
        ("bfcl", "calculate the area of a triangle", "calcualte the area of a triangle"),
        ("bfcl", "calculate the area of a triangle", "calculte the area of a triangle"),
        ("bfcl", "calculate the area of a triangle", "callculate the area of a triangle"),
        ("bfcl", "calculate the area of a triangle", "calcylate the area of a triangle"),
        ("bfcl", "book a flight", "boko a flight"),
        ("bfcl", "translate the text", "translte the text"),
    ],
)
def test_a_typo_of_one_edit_ranks_as_its_word_in_a_real_library(
    library: str, spelled: str, typo: str
) -> None:
    _, index = _real_index(library)
    assert top_names(index, typo) == top_names(index, spelled)


def test_only_a_confident_fix_stands_for_its_word() -> None:
    """One edit, the first letter kept; two edits or another first letter are a weaker guess."""
    index = _index([_tool("page_navigate", "Navigate to a page."), *_PAGE])
    spelled = [(h.name, h.score) for h in index.rank("navigate the page")]
    guesses = [("naviagte the page", True), ("nevigete the page", False)]
    for query, respelled in [*guesses, ("bavigate the page", False)]:
        hits = [(h.name, h.score) for h in index.rank(query)]
        assert hits[0][0] == "page_navigate"
        assert (hits == spelled) is respelled, query


_PEOPLE = [
    _tool("time_now", "The current time."),
    _tool("meetings_list", "List the meetings of a person."),
    _tool("bot_post", "Post as the bot."),
    _tool("people_notes", "Notes about a person."),
    _tool("data_export", "Export the data."),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tim meetings", "meetings_list"),  # 3 letters: "time" is one insert away
        ("bob notes", "people_notes"),  # 3 letters: "bot" is one substitution away
        ("Bob's notes", "people_notes"),
        ("bob meetings", "meetings_list"),
        ("dana notes", "people_notes"),  # 4 letters: "data" is one substitution away
        ("dana's meetings", "meetings_list"),
    ],
)
def test_a_short_name_is_not_respelled_as_a_library_word(query: str, expected: str) -> None:
    """A word of 3 letters, or of 4 changed by a letter, is a name as often as a typo."""
    hits = [(h.name, h.score) for h in _index(_PEOPLE).rank(query)]
    assert hits[0][0] == expected, hits
    assert hits[0][1] > hits[1][1] * 1.2, hits  # the name's guess counts less than a word


# -- a URL or domain is evidence for the tools that take a URL -------------------------------


def _schema_tool(name: str, description: str, **params: dict[str, Any]) -> BaseTool:
    schema = {"type": "object", "properties": params}
    return tool_from_definition({"name": name, "description": description, "inputSchema": schema})


_SITES = [
    _tool("google_search", "Search Google for a query.", query="Search terms"),
    _tool("google_maps_directions", "Directions from Google Maps.", origin="Start"),
    _tool("github_list_repos", "List GitHub repositories of an owner.", owner="Owner login"),
    _tool("wikipedia_summary", "Summary of a Wikipedia article.", title="Article title"),
]


@pytest.mark.parametrize(
    "taker",
    [
        _tool("browser_navigate", "Navigate the browser.", url="Where to go"),
        _tool("page_load", "Load a page.", href="Target"),
        _tool("tab_load", "Load a tab.", target="The URL to load"),
        _tool("whois_lookup", "Registration of a name.", domain="Name to look up"),
        _tool("site_check", "Check a site.", website="The site"),
        _schema_tool("render_page", "Render a page.", to={"type": "string", "format": "uri"}),
    ],
)
@pytest.mark.parametrize(
    "query",
    [
        "go to google.com",
        "github.com/langchain-ai please",
        "https://en.wikipedia.org/wiki/Paris",
        "show me maps.google.com",
    ],
)
def test_a_url_in_the_query_finds_the_tool_that_takes_one(taker: BaseTool, query: str) -> None:
    index = _index([taker, *_SITES])
    assert top_names(index, query)[0] == taker.name, top_names(index, query)


_SERVICES = [
    _tool("github_list_issues", "List issues of a GitHub repository.", owner="Owner", repo="Repo"),
    _tool("fetch_page", "Fetch a web page by its URL and return the text.", url="The URL"),
    _tool("jira_search", "Search Jira issues with JQL.", jql="The JQL"),
    _tool("slack_send", "Send a Slack message to a channel.", channel="Channel", text="Text"),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("issues on github.com/acme/app", "github_list_issues"),
        ("github.com/acme/app issues", "github_list_issues"),
        ("jira.acme.com issues", "jira_search"),  # the service in a subdomain
        ("search issues on https://www.jira.acme.com/", "jira_search"),
        ("post in slack.com channel", "slack_send"),
        # a host no tool names, or a URL and nothing more: a place to go
        ("go to google.com", "fetch_page"),
        ("github.com/acme/app please", "fetch_page"),
        ("open jira.acme.com/browse/ABC-1", "fetch_page"),
    ],
)
def test_a_host_naming_tools_is_evidence_for_them_with_other_words(
    query: str, expected: str
) -> None:
    """``github`` of ``github.com`` weighs as a word for the tools another word finds too."""
    hits = [(h.name, h.score) for h in _index(_SERVICES).rank(query)]
    assert hits[0][0] == expected, hits
    assert all(hits[0][1] > score * 1.2 for _, score in hits[1:]), hits  # no near tie


def _url_params(index: BM25ToolIndex, name: str) -> list[str]:
    doc = next(d for d in index.documents if d.name == name)
    return [p for p, _ in doc.parameters if "url" in p.lower()]


_BROWSER_OPEN = ("browser_open", "Open in the browser.", "Page to open")


@pytest.mark.parametrize(
    ("library", "query", "expected"),
    [
        ("github", "seacrh pull requests by author", "search_pull_requests"),  # a typo
        ("github", "serach pull requests by author", "search_pull_requests"),
        ("toolsdk", "which ablums of this artist are missing in lidarr", "lidarr_get_albums"),
        ("toolsdk", "go to google.com", "browserbase_stagehand_navigate"),  # a URL
        ("toolsdk", "read https://finance.yahoo.com/quote/AAPL", "read_url"),
        ("toolsdk", "fetch weather.com", "fetch_url"),
        ("github", "go to github.com/langchain-ai", "browser_open"),
    ],
)
def test_a_typo_or_a_url_finds_its_tool_in_a_real_library(
    library: str, query: str, expected: str
) -> None:
    _, index = _real_index(library, *([_BROWSER_OPEN] if expected == "browser_open" else []))
    assert top_names(index, query)[0] == expected, top_names(index, query)


@pytest.mark.parametrize("query", ["go to google.com", "read https://finance.yahoo.com/quote/AAPL"])
def test_a_url_puts_tools_taking_one_first_on_bfcl(query: str) -> None:
    _, index = _real_index("bfcl")
    top = top_names(index, query, 2)
    assert all(_url_params(index, name) for name in top), top


# -- the name written exactly ranks first; punctuation-blind only without one --------------


@pytest.mark.parametrize(
    ("names", "query", "expected"),
    [
        (["weather.get", "weather_get", "weather-get"], "`weather.get`", "weather.get"),
        (["weather.get", "weather_get", "weather-get"], "`weather_get`", "weather_get"),
        (
            ["weather.get", "weather_get", "weather-get"],
            "call weather-get for Paris",
            "weather-get",
        ),
        (["files/read", "files_read"], 'use "files/read" on it', "files/read"),
        (["user.create", "user_create"], "what does 'user.create' do?", "user.create"),
        (["repo-list", "repo_list"], "please run repo-list", "repo-list"),
    ],
)
def test_the_name_as_written_ranks_before_its_punctuation_twins(
    names: list[str], query: str, expected: str
) -> None:
    library = ToolLibrary([_tool(n, "Same text for all.") for n in names])
    index = build_index(None, library.documents())
    assert isinstance(index, BM25ToolIndex)
    found = _originals(index, library, query)
    assert found[0] == expected, found
    scores = [h.score for h in index.rank(query)]
    assert scores[0] > scores[1], scores


def test_punctuation_blind_matching_still_serves_names_without_an_exact_match() -> None:
    library = ToolLibrary([_tool("weather_get", "Weather."), _tool("news_get", "News.")])
    index = build_index(None, library.documents())
    assert top_names(index, "`weather.get`")[0] == "weather_get"
    assert next(iter(index.rank("`weather.get`"))).score >= 0.9


@pytest.mark.parametrize(
    ("library", "twin", "query", "expected"),
    [
        ("github", "list.issues", "`list.issues`", "list.issues"),
        ("github", "list.issues", "run list.issues on it", "list.issues"),
        ("bfcl", "weather_get", "please call `weather_get`", "weather_get"),
        ("toolsdk", "", "`update_task`", "update_task"),
        ("toolsdk", "", "use list_prompts", "list_prompts"),
    ],
)
def test_the_name_as_written_ranks_first_among_real_twins(
    library: str, twin: str, query: str, expected: str
) -> None:
    tools, index = _real_index(library, *([(twin, "A twin.", "")] if twin else []))
    assert _originals(index, tools, query)[0] == expected, _originals(index, tools, query)


# -- compounds index and query alike ----------------------------------------------------------


@pytest.mark.parametrize(
    ("forms", "written", "name", "thing"),
    [
        (("signoff", "sign-off", "sign off"), "signoff", "approve_release", "release"),
        (("checkout", "check-out", "check out"), "checkout", "purchase_basket", "basket"),
        (("backup", "back-up", "back up"), "back up", "archive_database", "database"),
        (("logout", "log-out", "log out"), "logout", "session_logout", "session"),
        (("setup", "set-up", "set up"), "set up", "prepare_workspace", "workspace"),
        (("setup", "set-up", "set up"), "setup", "workspace_setup", "workspace"),
        (("rollback", "roll-back", "roll back"), "rollback", "revert_deploy", "deploy"),
        (("signup", "sign-up", "sign up"), "sign up", "join_newsletter", "newsletter"),
        (("login", "log-in", "log in"), "login", "account_login", "account"),
    ],
)
def test_a_compound_written_closed_hyphenated_or_apart_finds_the_same_tool(
    forms: tuple[str, str, str], written: str, name: str, thing: str
) -> None:
    """The library writes the compound one way; the query any of three, beside its parts."""
    head = forms[2].split()[0]
    tools = [
        _tool(name, f"{written.capitalize()} the {thing}."),
        _tool(f"{head}_{thing}_history", f"{head.capitalize()} history of the {thing}."),
        _tool(f"{thing}_view", f"Show the {thing}."),
    ]
    index = _index(tools)
    for form in forms:
        query = f"{form} the {thing}"
        assert top_names(index, query)[0] == name, (query, top_names(index, query))


@pytest.mark.parametrize("query", ["send e-mail", "send E-Mail", "Send e-mail"])
def test_a_hyphenated_compound_names_the_tool_as_its_closed_form_does(query: str) -> None:
    _, index = _real_index("toolsdk")
    hits = list(index.rank(query))[:2]
    assert {h.name for h in hits} == {"send_email", "send-email"}, hits
    assert hits[0].score >= 0.9


def test_a_hyphenated_query_names_the_tool_written_closed() -> None:
    index = _index([_tool("email", "Mail a person."), _tool("mail_merge", "Merge mail.")])
    hits = list(index.rank("e-mail"))
    assert hits[0].name == "email" and hits[0].score >= 0.9, hits


@pytest.mark.parametrize(
    ("pair", "thing"),
    [("scroll down", "page"), ("shut down", "server"), ("check out", "branch"), ("log in", "site")],
)
def test_a_pair_a_name_writes_apart_is_not_closed(pair: str, thing: str) -> None:
    """``scroll down`` stays two words where a name writes them apart, though a text runs them together."""
    verb, particle = pair.split()
    tools = [
        _tool(f"{verb}_{particle}", f"{verb.capitalize()} {particle}."),
        _tool(f"{thing}_macro", f"Records {verb}{particle} steps on a {thing}."),
        _tool(f"get_{thing}", f"Get a {thing}."),
        _tool(f"update_{thing}", f"Update a {thing}."),
    ]
    index = _index(tools)
    assert top_names(index, f"{pair} the {thing}")[0] == f"{verb}_{particle}"


@pytest.mark.parametrize("query", ["scroll down the page", "scroll the page down"])
def test_a_pair_a_real_name_writes_apart_finds_it(query: str) -> None:
    library, index = _real_index("toolsdk")
    assert _originals(index, library, query)[0] == "scroll_down"
