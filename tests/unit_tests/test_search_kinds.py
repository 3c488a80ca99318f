"""Search finds the tool whatever the language, spelling or phrasing: one test per kind.

All run on the default BM25 index built through the public library
(``ToolLibrary`` -> documents -> index), as the middleware builds it; a test
of a stage (:class:`SearchStages`) also checks that it fails with the stage off.
"""

from __future__ import annotations

import pytest
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import BM25ToolIndex, SearchStages, ToolDocument
from langchain_toolsearch.search._bm25 import build_index
from tests.support.crud_library import CRUD_DEFINITIONS, crud_tools
from tests.support.fakes import ai, call
from tests.support.index_docs import defined_tool as _tool
from tests.support.index_docs import top_names as _names
from tests.support.toolsearch_harness import build, cfg, form_param, tool_msgs


def _index(tools: list[BaseTool]) -> tuple[ToolLibrary, BM25ToolIndex]:
    library = ToolLibrary(tools)
    index = build_index(None, library.documents())
    assert isinstance(index, BM25ToolIndex)
    return library, index


def _scores(index: BM25ToolIndex, query: str) -> dict[str, float]:
    return {h.name: h.score for h in index.rank(query)}


# -- 1. nothing the model did not write may score ---------------------------------------


@pytest.mark.parametrize("query", ["create repo", "create a repo", "repo", "create"])
def test_generated_safe_names_add_no_words(query: str) -> None:
    library, index = _index([_tool("repo.create", "x"), _tool("repo_create", "x")])
    safe = library.resolve("repo.create")
    assert safe is not None and safe != "repo.create"  # rewritten with a hash suffix
    scores = _scores(index, query)
    assert scores[safe] == scores["repo_create"], scores


def test_hash_fragments_are_not_terms() -> None:
    library, index = _index([_tool("repo.create", "x")])
    safe = library.resolve("repo.create")
    assert safe is not None
    suffix = safe.rsplit("_", 1)[1]
    terms = index.field_terms(library.documents()[0])
    assert not any(suffix in t or t in {"a", "f"} for t in terms), terms
    assert _names(index, suffix) == []  # the hash alone finds nothing
    assert _names(index, safe) == [safe]  # the safe name written exactly still does


# -- 2. every script -------------------------------------------------------------------------


def test_thai_word_found_inside_text_without_spaces() -> None:
    _, index = _index([_tool("weather", "ดูสภาพอากาศวันนี้"), _tool("price", "ดูราคาสินค้า")])
    assert _names(index, "อากาศ") == ["weather"]
    assert _names(index, "ราคา") == ["price"]


@pytest.mark.parametrize(
    ("texts", "query", "expected"),
    [
        ({"note": "नोट", "pay": "भुगतान"}, "नोट", ["note"]),  # Devanagari
        ({"note": "नोट", "pay": "भुगतान"}, "भुगतान", ["pay"]),
        ({"news": "செய்தி படிக்க", "send": "அனுப்பு"}, "செய்தி", ["news"]),  # Tamil
        ({"news": "খবর পড়ুন", "pay": "টাকা পাঠান"}, "খবর", ["news"]),  # Bengali
        ({"news": "खबर पढ़ें", "pay": "पैसे भेजें"}, "पढ़ें", ["news"]),
    ],
)
def test_scripts_with_combining_marks_match_whole_words(
    texts: dict[str, str], query: str, expected: list[str]
) -> None:
    _, index = _index([_tool(n, d) for n, d in texts.items()])
    assert _names(index, query) == expected


# -- 3. accents -----------------------------------------------------------------------------


def test_accents_fold_in_descriptions_and_names() -> None:
    _, index = _index(
        [
            _tool("upload_cv", "Upload a résumé."),
            _tool("order_coffee", "Order at the café."),
            _tool("crème_menu", "Dessert menu"),
        ]
    )
    assert _names(index, "resume")[0] == "upload_cv"  # accents folded
    assert _names(index, "cafe")[0] == "order_coffee"
    assert _names(index, "creme")[0].startswith("cr")


def test_the_exact_accented_form_still_wins() -> None:
    _, index = _index([_tool("a_cv", "Upload a résumé"), _tool("b_resume", "Resume a paused job")])
    assert _names(index, "résumé")[0] == "a_cv"
    assert set(_names(index, "resume")) == {"a_cv", "b_resume"}


# -- 4. surface variants of one word or name ----------------------------------------------


@pytest.mark.parametrize(
    ("description", "queries"),
    [
        ("Send an e-mail to a recipient", ["send email", "send e-mail", "send an E-Mail"]),
        ("Add an item to the to-do list", ["add todo", "add to-do", "todo list"]),
        ("Open a pull request", ["open PR", "open a pull request", "open pull-request"]),
        ("Create a repository", ["create repo", "create repository", "create repos"]),
        ("List members of an organisation", ["organization members", "list org members"]),
        ("Query the database", ["query db", "query the database", "database queries"]),
        ("Get the configuration", ["get config", "get configuration"]),
        ("Show favourite colours", ["favorite colors", "favourite colour"]),
    ],
)
def test_surface_variants_find_the_same_tool(description: str, queries: list[str]) -> None:
    tools = [
        _tool("target", description),
        _tool("other", "Look up the weather forecast for a city"),
        _tool("third", "Translate text between languages"),
    ]
    _, index = _index(tools)
    for query in queries:
        assert _names(index, query)[:1] == ["target"], query


@pytest.mark.parametrize(
    "query", ["getWeather", "get_weather", "get-weather", "Get Weather", "GET_WEATHER"]
)
def test_name_written_in_any_identifier_style(query: str) -> None:
    _, index = _index([_tool("get_weather", "Current weather"), _tool("get_time", "Time")])
    assert _names(index, query)[0] == "get_weather"


# -- 5. CRUD libraries ---------------------------------------------------------------------


def test_crud_library_has_200_tools() -> None:
    assert len(CRUD_DEFINITIONS) == 200
    assert len({d["name"] for d in CRUD_DEFINITIONS}) == 200


@pytest.mark.parametrize(
    ("query", "expected", "within"),
    [
        ("schedule a meeting", "calendar_create_meeting", 1),
        ("refund a payment", "billing_create_refund", 1),
        ("list open invoices", "billing_list_invoices", 3),  # "Void an open invoice": 1st
        ("cancel my subscription", "billing_cancel_subscription", 1),
        ("add a new contact", "crm_create_contact", 1),
        ("delete the meeting", "calendar_delete_meeting", 1),
        ("send the invoice to the customer", "billing_send_invoice", 1),
    ],
)
def test_crud_library_ranks_the_named_action_first(query: str, expected: str, within: int) -> None:
    _, index = _index(crud_tools())
    assert expected in _names(index, query, within), _names(index, query)


def test_object_id_parameters_do_not_outvote_the_name() -> None:
    create = ToolDocument("calendar_create_meeting", "Create a meeting", (("title", "Title"),))
    delete = ToolDocument(
        "calendar_delete_meeting", "Delete a meeting", (("meeting_id", "Which one"),)
    )
    index = BM25ToolIndex([create, delete])
    word = index.query_terms("meeting")[0]
    assert index.field_terms(create)[word] == index.field_terms(delete)[word]
    # a parameter still adds a word the tool's own text lacks
    attach = ToolDocument("attach_file", "Attach a file", (("meeting_id", "Which one"),))
    assert word in BM25ToolIndex([attach]).field_terms(attach)


# -- 6. function words and abbreviations -------------------------------------------------------


GITHUB_LIKE = [
    ("get_me", "Get details of the authenticated user."),
    ("get_user", "Get a user by login."),
    ("merge_pull_request", "Merge a pull request in a repository."),
    ("create_pull_request", "Create a new pull request in a repository."),
    ("list_pull_requests", "List pull requests in a repository."),
    ("create_repository", "Create a new repository in your account."),
    ("send_message", "Send a message to a channel."),
    ("query_database", "Run SQL against the database."),
]


def test_function_word_query_finds_a_name_that_holds_them() -> None:
    _, index = _index([_tool(n, d) for n, d in GITHUB_LIKE])
    assert _names(index, "who am i")[:1] == ["get_me"]
    assert _names(index, "the of and to") == []  # no name holds them: still nothing


# -- 7. sibling names ---------------------------------------------------------------------------

WORK_ITEMS = [
    ("create_work_item", "Create a new work item in a project."),
    ("create_work_item_link", "Create a link between two work items."),
    ("create_work_log", "Create a work log entry on a work item."),
    ("create_intake_work_item", "Create a work item in the intake queue of a project."),
    ("list_work_items", "List work items of a project."),
    ("list_work_item_activities", "List the activities of a work item."),
    ("get_work_item", "Get a work item by ID."),
]


@pytest.mark.parametrize("prefix", ["", "plane_", "mcp__plane__"])
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("create work item", "create_work_item"),
        ("create a work item", "create_work_item"),
        ("list work items", "list_work_items"),
        ("list the work items", "list_work_items"),
    ],
)
def test_the_name_the_query_covers_best_wins(prefix: str, query: str, expected: str) -> None:
    _, index = _index([_tool(prefix + n, d) for n, d in WORK_ITEMS])
    assert _names(index, query)[0] == prefix + expected, _names(index, query)


GITHUB_ISSUES = [
    ("create_issue", "Create a new issue in a GitHub repository."),
    ("create_issue_comment", "Create a comment on an issue: add a new issue comment to an issue."),
    ("create_issue_label", "Create a label for issues; an issue label can be added to an issue."),
    ("create_issue_branch", "Create a branch for an issue to work on the issue."),
    ("list_issues", "List issues in a repository."),
]


@pytest.mark.parametrize("query", ["create issue", "create_issue", "Create Issue"])
def test_the_words_ending_a_name_beat_longer_siblings(query: str) -> None:
    docs = [ToolDocument(f"mcp__github__{n}", d) for n, d in GITHUB_ISSUES]
    assert _names(BM25ToolIndex.build(docs), query)[0] == "mcp__github__create_issue"
    off = BM25ToolIndex.build(docs, stages=SearchStages().without("name_words"))
    assert _names(off, query)[0] != "mcp__github__create_issue"  # the siblings say it more


NOUN_FIRST = [  # names that put the object before the verb (Jira's, a directory's)
    ("jira.issue.create", "Creates a Jira ticket."),
    (
        "jira.issue.create.meta",
        "Metadata to create an issue: the fields an issue create call takes.",
    ),
    ("contacts.user.list", "Returns everyone in the directory."),
    ("contacts.user.list.groups", "Groups of a user: list them for each user."),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("create issue", "jira.issue.create"),
        ("create an issue", "jira.issue.create"),
        ("list users", "contacts.user.list"),
        ("list the users", "contacts.user.list"),
    ],
)
def test_the_words_ending_a_name_in_another_order_beat_longer_siblings(
    query: str, expected: str
) -> None:
    docs = [ToolDocument(n, d) for n, d in NOUN_FIRST]
    assert _names(BM25ToolIndex.build(docs), query)[0] == expected
    off = BM25ToolIndex.build(docs, stages=SearchStages().without("name_words"))
    assert _names(off, query)[0] != expected  # the siblings say the words more


# -- 8. misspellings: the spelling fallback ----------------------------------------------------

BROWSER = [
    ("browser_navigate", "Navigate the browser to a URL."),
    ("browser_click", "Click on an element of the page."),
    ("docs_query", "Query documentation of a library, e.g. TypeScript."),
    ("browser_snapshot", "Capture an accessibility snapshot of the page."),
    ("crate_search", "Search Rust crates on crates.io."),
    ("create_file", "Create a file."),
    ("web_search", "Search the web for pages."),
]


def _browser(stages: SearchStages | None = None) -> BM25ToolIndex:
    return BM25ToolIndex.build([ToolDocument(n, d) for n, d in BROWSER], stages=stages)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("naviagte", "browser_navigate"),  # one slip
        ("navigaet", "browser_navigate"),  # a slip past the stem
        ("clikc", "browser_click"),
        ("qeury documentaion", "docs_query"),
        ("serach the wbe", "web_search"),  # two words, two slips
        ("snpashto", "browser_snapshot"),  # two slips in one word
        ("websearch", "web_search"),  # run together
    ],
)
def test_a_query_within_a_couple_of_edits_is_never_empty(query: str, expected: str) -> None:
    assert _names(_browser(), query)[0] == expected, _names(_browser(), query)
    assert expected not in _names(_browser(SearchStages().without("spelling")), query)


_FRAGMENTS = [  # a large library holds two-letter words: ids, initials, language codes
    ToolDocument("se_lookup", "Look up a Swedish company."),
    ToolDocument("ra_index", "Right ascension index."),
    ToolDocument("ch_convert", "Convert Swiss francs."),
    ToolDocument("da_report", "Danish report."),
    ToolDocument("tab_close", "Close a tab."),
    ToolDocument("database_query", "Query a database."),
    ToolDocument("data_export", "Export data."),
    ToolDocument("data_import", "Import data."),  # "data" is in more tools than "database"
    ToolDocument("add_comment_to_pending_review", "Add a review comment."),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("serach", {"web_search", "crate_search"}),  # not "se" + "ra" + "ch"
        ("databse", {"database_query"}),  # not "da" + "tab" + "se"
        ("websearch", {"web_search"}),  # a split into words stays a split
        ("addcommenttopendingreveiw", {"add_comment_to_pending_review"}),  # no fix is near
    ],
)
def test_a_word_a_fix_reaches_is_not_broken_into_short_fragments(
    query: str, expected: set[str]
) -> None:
    docs = [*(ToolDocument(n, d) for n, d in BROWSER), *_FRAGMENTS]
    found = _names(BM25ToolIndex.build(docs), query)
    assert set(found[: len(expected)]) == expected, found


def test_two_words_join_into_a_library_word() -> None:
    docs = [ToolDocument("websearch", "Find pages."), ToolDocument("news", "Read the news.")]
    query = "web search"
    assert _names(BM25ToolIndex.build(docs), query) == ["websearch"]
    assert _names(BM25ToolIndex.build(docs, stages=SearchStages().without("spelling")), query) == []


def test_a_correct_word_beats_a_corrected_one() -> None:
    index = _browser()
    assert _names(index, "crate")[0] == "crate_search"  # "crate" is known: never "create"
    scores = _scores(index, "nevigete")  # two edits: a guess (one edit stands as its word)
    assert 0 < scores["browser_navigate"] < _scores(index, "navigate")["browser_navigate"]


def test_the_fallback_runs_only_when_no_tool_matches_a_content_word() -> None:
    off = _scores(_browser(SearchStages().without("spelling")), "navigate browser url pgae")
    assert 0.3 < off["browser_navigate"] / 0.9 < 0.5  # the best hit reaches about 0.42
    assert _scores(_browser(), "navigate browser url pgae") == off  # something found: no fix
    assert _scores(_browser(), "navigate browser url") == _scores(
        _browser(SearchStages().without("spelling")), "navigate browser url"
    )  # every word known: never runs
    docs = [
        ToolDocument("id_details", "More information about any ID."),
        ToolDocument("page_read", "Read a page."),
    ]
    # only function words match ("more", "about"): that is finding nothing, so it runs
    assert _names(BM25ToolIndex.build(docs), "more about the pgae") == ["page_read"]
    without = BM25ToolIndex.build(docs, stages=SearchStages().without("spelling"))
    assert _names(without, "more about the pgae") == []


def test_spelling_work_is_bounded() -> None:
    index = _browser()
    assert _names(index, "x" * 5000) == []
    words = ["zq" + a + b for a in "abcdefgh" for b in "abcdefgh"]  # 64 unknown words
    assert _names(index, " ".join([*words, "naviagte"])) == []  # only the first 4 are tried


@form_param
async def test_auto_load_of_a_crud_query_loads_the_listing_tool(form: str) -> None:
    steps = [ai(call("search_tools", {"query": "list the invoices"}, "s1")), ai(content="ok")]
    h = build(form, steps, auto_load=True, top_k=1, tools=crud_tools())
    out = await h.run("which invoices are still open?", cfg(), "async")
    receipt = next(m for m in tool_msgs(out) if m.tool_call_id == "s1").artifact
    assert receipt["activation"]["loaded"] == ["billing_list_invoices"]


# -- stages without a kind of their own ---------------------------------------------------------


def test_stemming_meets_inflections() -> None:
    docs = [ToolDocument("create_issue", "Create an issue."), ToolDocument("list_tags", "Tags.")]
    query = "creating issues"
    no_fallback = SearchStages().without("spelling")  # it would correct the words instead
    assert _names(BM25ToolIndex.build(docs, stages=no_fallback), query) == ["create_issue"]
    off = BM25ToolIndex.build(docs, stages=no_fallback.without("stemming"))
    assert _names(off, query) == []


_STARS = [
    ToolDocument("star_repository", "Star a GitHub repository."),
    ToolDocument("list_starred_repositories", "List starred repositories of the user."),
    ToolDocument("get_weather", "Current weather for a city."),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("star the repository", "star_repository"),
        ("starred repositories", "list_starred_repositories"),
        ("show the repositories I starred", "list_starred_repositories"),
    ],
)
def test_the_words_as_written_beat_a_sibling_stemming_conflates(query: str, expected: str) -> None:
    assert _names(BM25ToolIndex.build(_STARS), query)[0] == expected
    off = BM25ToolIndex.build(_STARS, stages=SearchStages().without("exact_forms"))
    # stemmed, "star the repository" and "starred repositories" are the same query
    assert _names(off, "star the repository") == _names(off, "starred repositories")
    assert set(_names(off, query)[:2]) == {"star_repository", "list_starred_repositories"}


def test_words_as_written_count_only_where_stemming_conflated_them() -> None:
    index = BM25ToolIndex.build(_STARS)
    forms = index._postings.forms
    assert {"star", "starred", "repository", "repositories"} <= set(forms)
    assert "weather" not in forms  # one written form: its stem's postings say it all
    # the exact pass adds to the reachable best too: plain queries stay below exact names
    for query in ("star the repository", "starred repositories", "weather"):
        assert max(h.score for h in index.rank(query)) < 0.9
    assert next(index.rank("star_repository")).score == 1.0  # exact names still win
    assert next(index.rank("star repository")).score >= 0.9


def test_request_phrasing_does_not_outvote_the_intent() -> None:
    docs = [
        ToolDocument("help_center", "Open the help center."),
        ToolDocument("recipe_search", "Find recipes by ingredient."),
    ]
    query = "could you help me with recipes"
    # content_match off: it would drop help_center (only "help" matches) with either setting;
    # exact_forms off: "recipes" as written (beside "recipe_search") would outvote "help" too
    on = SearchStages().without("content_match", "exact_forms")
    assert _names(BM25ToolIndex.build(docs, stages=on), query)[0] == "recipe_search"
    off = BM25ToolIndex.build(docs, stages=on.without("request_words"))
    assert _names(off, query)[0] == "help_center"
    assert _names(BM25ToolIndex.build(docs), query) == ["recipe_search"]  # help_center: no hit
    assert _names(BM25ToolIndex.build(docs), "help center")[0] == "help_center"  # still counts


def test_search_stages_are_checked() -> None:
    from langchain_toolsearch.errors import ToolSearchConfigError

    with pytest.raises(ToolSearchConfigError, match="unknown search stages"):
        SearchStages().without("synonyms")
    with pytest.raises(ToolSearchConfigError, match="must be in"):
        SearchStages(request_weight=2.0)
    assert SearchStages.core().only("spelling") == SearchStages.core().with_("spelling")


# -- tool names in every identifier style, among GitHub-like siblings -----------------------


def _named(name: str, description: str) -> BaseTool:
    def run(x: str) -> str:
        return name

    return StructuredTool.from_function(run, name=name, description=description)


GITHUB = {
    "github_get_me": "Get the authenticated user's GitHub profile",
    "github_list_repos": "List repositories of a GitHub user or organisation",
    "github_create_issue": "Create an issue in a GitHub repository",
    "github_get_issue": "Get details of a specific issue in a GitHub repository",
    "github_list_issues": "List issues in a GitHub repository",
    "github_update_issue": "Update an existing issue in a GitHub repository",
    "github_add_comment_to_pending_review": (
        "Add a review comment to the requester's latest pending pull request review"
    ),
    "github_create_pull_request": "Create a new pull request in a GitHub repository",
    "github_merge_pull_request": "Merge a pull request in a GitHub repository",
    "github_list_commits": "Get list of commits of a branch in a GitHub repository",
    "github_search_code": "Search for code across GitHub repositories",
    "github_get_file_contents": "Get the contents of a file or directory from a GitHub repository",
}


C11_OTHERS = {
    "addPerson_mcp_pipedrive": "Add a person to Pipedrive",
    "addActivity_mcp_pipedrive": "Add an activity to Pipedrive",
    "bitable_v1_appTableRecord_search": "Query rows of a multidimensional sheet",
    "mcp__plugin_x__ask_codex": "Delegate a question to another assistant",
}


def _c11() -> ToolSearchMiddleware:
    tools = [_named(n, d) for n, d in {**C11_OTHERS, **GITHUB}.items()]
    return ToolSearchMiddleware(tools=tools, top_k=5)


def test_tool_names_in_every_identifier_style_are_found() -> None:
    mw = _c11()

    def top(query: str) -> list[str]:
        return [h.name for h in mw.search(query)]

    assert len(GITHUB) == 12
    assert top("addPerson")[0] == "addPerson_mcp_pipedrive"
    assert "bitable_v1_appTableRecord_search" in top("table record")
    assert top("ask_codex")[0] == "mcp__plugin_x__ask_codex"
    assert "github_get_me" in top("github profile")
    get_me = top("get me")
    assert get_me[0] == "github_get_me"
    assert "github_add_comment_to_pending_review" not in get_me
    assert all(len(top(q)) <= 5 for q in ("github", "get", "issue"))
    for name in [*GITHUB, *C11_OTHERS]:  # an exact tool name always ranks first
        hits = mw.search(name)
        assert hits[0].name == name, name
        assert hits[0].score >= 0.9


def test_text_variants_of_a_name_rank_it_first() -> None:
    mw = _c11()
    for query in ("github get me", "GitHub-Get-Me", "add person", "appTableRecord"):
        assert mw.search(query), query
    assert mw.search("github get me")[0].name == "github_get_me"
    assert mw.search("add person")[0].name == "addPerson_mcp_pipedrive"
    assert mw.search("appTableRecord")[0].name == "bitable_v1_appTableRecord_search"
