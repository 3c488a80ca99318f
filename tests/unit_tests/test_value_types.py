"""The ``values`` stage: numbers, dates, times, e-mail addresses, URLs, bare domains, hosts.

Each ranking test also checks that it fails with the stage off.
"""

from __future__ import annotations

import pytest

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import BM25ToolIndex, SearchStages
from langchain_toolsearch.search import _stages as query_weights
from langchain_toolsearch.search._analysis import stem, value_terms
from tests.support.index_docs import defined_tool as _tool
from tests.support.index_docs import top_names as _names


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("weather in Paris on 2023-04-22", ["date"]),
        ("weather in Paris on April 22nd", ["date"]),
        ("on the 10th of March 2023", ["date"]),
        ("Sept. 3", ["date"]),
        ("what about tomorrow", ["date"]),
        ("this Saturday", ["date"]),
        ("dinner at 7:30 pm", ["time"]),
        ("wake me at 7am", ["time"]),
        ("on 12/25/2024 at 9:15", ["date", "time"]),
        ("write to bob.smith@example.com", ["email"]),
        ("open https://example.com/docs", ["url"]),
        ("fetch example.com", ["url"]),  # a bare domain is a URL value
        ("read the page at docs.python.org/3/", ["url"]),
        ("go to www.wikipedia", ["url"]),
        ("open main.py and README.md", []),  # file names are not domains
        ("e.g. this one", []),
        ("list my repositories", []),
        ("mayday 2023 sunday-school", ["date"]),  # a weekday inside a compound still names a day
        ("version 3.12.1 of python", []),  # dotted version numbers are not dates
        ("a batch of 2000 items", []),
    ],
)
def test_value_types_found_in_a_query(query: str, expected: list[str]) -> None:
    assert value_terms(query, lambda w: w, []) == expected


@pytest.mark.parametrize(
    "query",
    [
        "open 10.0.0.5:8080/admin",
        "GET 192.168.0.1/status",
        "fetch http://192.168.0.1",
        "connect to [::1]:8080",
        "GET [2001:db8::1]/health",
        "read http://[::1]:8080/",
        "try [::ffff:192.168.0.1]",  # brackets are URL syntax for IPv6
        "start the app on localhost:3000",
        "call LOCALHOST/api/v1",
        "open https://localhost",
    ],
)
def test_a_host_by_address_with_a_port_path_or_scheme_is_a_url(query: str) -> None:
    assert value_terms(query, lambda w: w, []) == ["url"]


@pytest.mark.parametrize(
    "query",
    [
        "upgrade to python 3.11.7",
        "release 1.2.3 notes",
        "pi is 3.14159",
        "version 256.1.1.1/2",  # a part over 255 is no address
        "sections 1.2.3.4.5/6",  # five parts
        "v1.2.3.4:5",
        "on 2023.04.22",  # a date
        "reverse a[::-1] or a[::2]",  # a subscript, not an IPv6 literal
        "ping 192.168.0.1",  # a host alone: as often a `host` parameter's value
        "the server runs on localhost",
        "localhost only",
        "mail admin@192.168.0.1/x",  # an e-mail address
    ],
)
def test_versions_decimals_slices_and_a_host_alone_are_not_urls(query: str) -> None:
    assert "url" not in value_terms(query, lambda w: w, [])


def test_a_type_the_query_already_says_adds_nothing() -> None:
    assert value_terms("what date is it tomorrow", lambda w: w, ["date", "tomorrow"]) == []


def test_numbers_and_date_words_count_as_values() -> None:
    stages = SearchStages()
    terms = [stem("weather"), stem("april"), stem("friday"), "2023"]
    low = stages.number_weight
    assert query_weights.weights(terms, stages) == [1.0, low, low, low]
    assert query_weights.weights(terms, stages.without("values")) is None
    plain = SearchStages(stemming=False)
    assert query_weights.weights(["weather", "april"], plain) == [1.0, low]


def _weather(stages: SearchStages | None = None) -> BM25ToolIndex:
    tools = [
        _tool("weather_forecast", "Weather forecast for a city", city="City", days="Days ahead"),
        _tool("weather_report", "Weather report for a city", city="City", date="Day to report"),
        _tool("send_email", "Send an email", to="Recipient", body="Text"),
        _tool("schedule_meeting", "Schedule a meeting", title="Title", date="Day", time="Hour"),
    ]
    return BM25ToolIndex.build(ToolLibrary(tools).documents(), stages=stages)


def test_the_tool_that_takes_the_querys_date_ranks_first() -> None:
    query = "weather for Paris on April 22nd 2023"
    assert _names(_weather(), query)[0] == "weather_report"
    off = _weather(SearchStages().without("values"))
    assert _names(off, query)[0] == "weather_forecast"  # by name, without the type


@pytest.mark.parametrize(
    "query",
    [
        "page of example.com",  # a bare domain
        "page of 192.168.0.1:8080",  # hosts by address
        "page of [::1]:8080",
        "page of localhost:3000/docs",
    ],
)
def test_a_url_value_finds_the_tool_taking_a_url(query: str) -> None:
    tools = [
        _tool("page_summary", "Read a page", url="The target"),
        _tool("page_stats", "Read a page", site="The target"),
    ]
    docs = ToolLibrary(tools).documents()
    assert _names(BM25ToolIndex.build(docs), query)[0] == "page_summary"
    off = BM25ToolIndex.build(docs, stages=SearchStages().without("values"))
    assert _names(off, query)[0] == "page_stats"  # by name order: a tie without the type


@pytest.mark.parametrize(
    "hostile",
    [
        "1." * 50_000,  # an address that never ends
        "1.1.1.1" * 15_000,  # addresses run together
        "[" + "a:" * 50_000,  # an IPv6 literal that never closes
        "[::" * 33_000,
        "localhost" * 11_000,
        "a." * 50_000 + "co",  # a domain of 50,000 labels
        "x" * 100_000,
        "a@" * 50_000,  # mail addresses without a domain
        "\u00e9-" * 50_000,
    ],
)
def test_work_per_query_is_bounded_on_hostile_input(hostile: str) -> None:
    # each pattern is linear (bounded repeats, disjoint classes): a catastrophic one
    # would not return from these 100,000-character queries
    assert len(hostile) >= 99_000
    found = value_terms(hostile, lambda w: w, [])
    assert found == (["url"] if hostile.endswith(".co") else [])


def test_a_date_never_outvotes_the_querys_own_words() -> None:
    index = _weather()
    assert _names(index, "send an email to bob tomorrow at 9am")[0] == "send_email"
    hits = list(index.rank("weather for Paris tomorrow"))
    assert {h.name for h in hits[:2]} == {"weather_report", "weather_forecast"}
    # the type adds to a match, it is not one: a date alone finds nothing by its type
    assert "schedule_meeting" not in _names(index, "weather for Paris tomorrow")[:2]
