"""The ``values`` stage: numbers, dates, times, e-mail addresses, URLs and bare domains.

Each ranking test also checks that it fails with the stage off.
"""

from __future__ import annotations

import itertools

import pytest
from langchain_core.tools import BaseTool

from langchain_toolsearch.catalog import tool_from_definition
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.search import query_weights
from langchain_toolsearch.search.index import BM25ToolIndex
from langchain_toolsearch.search.stages import SearchStages
from langchain_toolsearch.search.tokenize import stem
from langchain_toolsearch.search.value_types import value_terms


def _tool(name: str, description: str, **params: str) -> BaseTool:
    schema = {
        "type": "object",
        "properties": {p: {"type": "string", "description": d} for p, d in params.items()},
    }
    return tool_from_definition({"name": name, "description": description, "inputSchema": schema})


def _names(index: BM25ToolIndex, query: str, k: int = 5) -> list[str]:
    return [h.name for h in itertools.islice(index.rank(query), k)]


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


def test_a_bare_domain_finds_the_tool_taking_a_url() -> None:
    tools = [
        _tool("page_summary", "Read a page", url="The target"),
        _tool("page_stats", "Read a page", site="The target"),
    ]
    docs = ToolLibrary(tools).documents()
    query = "page of example.com"
    assert _names(BM25ToolIndex.build(docs), query)[0] == "page_summary"
    off = BM25ToolIndex.build(docs, stages=SearchStages().without("values"))
    assert _names(off, query)[0] == "page_stats"  # by name order: a tie without the type


def test_a_date_never_outvotes_the_querys_own_words() -> None:
    index = _weather()
    assert _names(index, "send an email to bob tomorrow at 9am")[0] == "send_email"
    hits = list(index.rank("weather for Paris tomorrow"))
    assert {h.name for h in hits[:2]} == {"weather_report", "weather_forecast"}
    # the type adds to a match, it is not one: a date alone finds nothing by its type
    assert "schedule_meeting" not in _names(index, "weather for Paris tomorrow")[:2]
