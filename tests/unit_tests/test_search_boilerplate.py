"""Description length and request boilerplate do not make a tool match everything.

The kind: a tool whose long boilerplate description ("provide details and
information about the ID ... and more") shares only function words with a
chatty request (``about``, ``more``, ``any``) was the first hit of every
request the library has no tool for. The ``content_match`` stage
(:func:`~langchain_toolsearch.search._stages.weak_terms`) keeps such a
tool out; each test checks that it flips with the stage off.
"""

from __future__ import annotations

import functools

import pytest

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import BM25ToolIndex, SearchStages
from langchain_toolsearch.search import _stages as query_weights
from tests.support.crud_library import crud_tools
from tests.support.index_docs import defined_tool as _tool
from tests.support.index_docs import top_names as _top

HUB = "entity_details"


# a ToolBench-style wrapper around a boilerplate description, as public API catalogs have them
_HUB = _tool(
    HUB,
    'This is the subfunction for tool "entity_db", you can use this tool. The description of '
    'this function is: "Provide details and information about the ID. Get more information '
    'about any ID: all the details, data and information we have about it, and more."',
    id="The ID to get details and information about",
)
_OTHERS = [
    _tool("get_current_weather", "Get the current weather for a city.", city="City name"),
    _tool("get_weather_forecast", "Forecast the weather for the next days.", city="City"),
    _tool("translate_text", "Translate text into another language.", text="Text"),
    _tool("search_news", "Search recent news articles by keyword.", query="Keywords"),
    _tool("search_recipes", "Find recipes by ingredient or dish name.", query="Ingredient"),
    _tool("play_song", "Play a song or a playlist on the user's speaker.", song="Song"),
    _tool("get_stock_quote", "Get the latest stock price of a ticker symbol.", symbol="Ticker"),
    _tool("convert_currency", "Convert an amount from one currency to another.", amount="Sum"),
    _tool("search_flights", "Search flights between two airports on a date.", date="Day"),
    _tool("book_hotel", "Book a hotel room in a city for given dates.", city="City"),
    _tool("calculator", "Evaluate an arithmetic expression.", expression="Expression"),
    _tool("send_sms", "Send a text message to a phone number.", phone="Phone number"),
    _tool("set_timer", "Start a countdown timer.", minutes="Minutes"),
]

# chatty requests for which the library has no tool; they share only function words with the hub
UNRELATED = [
    "hi! could you tell me a joke about cats?",
    "tell me more about quantum physics please",
    "I'm curious about the history of jazz, can you tell me more?",
    "any good tips about staying healthy during winter?",
    "what do you know about black holes?",
    "can you explain more about how volcanoes work?",
    "I'd like to learn more about Roman emperors",
    "any thoughts about which programming language to learn first?",
    "what's the meaning of life, any ideas?",
    "write me a poem about the sea",
    "tell me all about dinosaurs",
    "I want to know more about meditation and any benefits it has",
    "could you share some fun facts about octopuses?",
    "what are your thoughts about remote work?",
    "give me more ideas for a birthday party",
    "is there anything interesting about the number seven?",
    "I have a question about philosophy, can you help?",
    "let's chat about movies you like",
    "what is known about the origin of the moon?",
    "more details about the rules of chess, please",
]


@functools.cache  # one index per stage set: ranking never changes it
def _index(stages: SearchStages | None = None) -> BM25ToolIndex:
    docs = ToolLibrary([*crud_tools(), *_OTHERS, _HUB]).documents()
    return BM25ToolIndex.build(docs, stages=stages)


def test_a_boilerplate_tool_stays_out_of_unrelated_chatty_requests() -> None:
    on = sum(HUB in _top(_index(), q) for q in UNRELATED)
    off = sum(HUB in _top(_index(SearchStages().without("content_match")), q) for q in UNRELATED)
    # on: only "more details about ..." (it says "details", a content word) keeps it
    assert on <= 1, on
    assert off >= 15, off  # the stage off: the hub is a top-5 hit of nearly every request


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tell me more about the weather in Paris", "get_current_weather"),
        ("any news about the stock market?", "search_news"),
        ("I'd like to know more about flights to Rome", "search_flights"),
    ],
)
def test_a_request_with_a_tool_finds_it_without_the_boilerplate_tool(
    query: str, expected: str
) -> None:
    top = _top(_index(), query)
    assert top[0] == expected, top
    assert HUB not in top, top
    assert HUB in _top(_index(SearchStages().without("content_match")), query)


def test_function_words_still_score_and_still_find_alone() -> None:
    index = BM25ToolIndex.build(
        ToolLibrary(
            [
                _tool("news_about", "Weather news about a city."),
                _tool("news_for", "Weather news for a city."),
                _HUB,
            ]
        ).documents()
    )
    # with a content word, the tool also saying "about" ranks first: the word still scores
    assert _top(index, "weather news about Paris")[:2] == ["news_about", "news_for"]
    # a query of function and request words only has no content word: its hits stay
    assert _top(index, "tell me more about it")[0] == HUB


def test_weak_terms_are_english_function_words_request_words_and_date_words() -> None:
    stages = SearchStages()
    assert query_weights.weak_terms(["more", "about", "jazz"], stages) == [True, True, False]
    assert query_weights.weak_terms(["help", "april", "weather"], stages) == [True, True, False]
    assert query_weights.weak_terms(["iso", "3166", "about"], stages) == [False, False, True]
    assert query_weights.weak_terms(["more", "about"], stages) is None  # no content term
    assert query_weights.weak_terms(["天気", "東京"], stages) is None  # never another script
    assert query_weights.weak_terms(["more", "jazz"], stages.without("content_match")) is None
