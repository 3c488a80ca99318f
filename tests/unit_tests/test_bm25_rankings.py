"""Golden rankings of :class:`BM25ToolIndex` on a small fixed library.

The library holds near-duplicate names (``get_weather``, ``get-weather``,
``GetWeather``, ``create_issue`` in three tools, ``send_email`` and
``email.send``). The top five of each query, and their scores to 6 places,
are written out: a change of BM25's ``k1``/``b`` defaults or of how exact
names score shows here as a changed list, whatever the constants are named.
"""

from __future__ import annotations

import pytest

from langchain_toolsearch import BM25ToolIndex
from langchain_toolsearch.search import ToolDocument

D = ToolDocument
LIBRARY = (
    D(
        "get_weather",
        "Current weather for a city: temperature, wind and rain.",
        (("city", "City name"),),
    ),
    D("get-weather", "Weather report for a place, today only.", (("place", "Where"),)),
    D("GetWeather", "Returns weather.", ()),
    D(
        "get_weather_forecast",
        "Weather forecast for the next days in a city.",
        (("city", "City name"), ("days", "How many days ahead")),
    ),
    D(
        "weather_alerts",
        "Severe weather alerts and warnings for a region.",
        (("region", "Region code"),),
    ),
    D(
        "get_forecast",
        "Forecast of temperature and rain for a city over the coming week.",
        (("city", "City name"),),
    ),
    D(
        "create_issue",
        "Create a new issue in a GitHub repository.",
        (("repo", "owner/name"), ("title", "Issue title")),
    ),
    D(
        "github__create_issue",
        "Open an issue on GitHub with a title and body.",
        (("repo", "Repository"), ("body", "Issue text")),
    ),
    D(
        "create_issue_comment",
        "Add a comment to an existing GitHub issue.",
        (("issue", "Issue number"), ("body", "Comment text")),
    ),
    D(
        "list_issues",
        "List the open issues of a repository, newest first.",
        (("repo", "owner/name"), ("state", "open or closed")),
    ),
    D("close_issue", "Close an issue in a repository.", (("issue", "Issue number"),)),
    D("search_issues", "Search issues across repositories by text.", (("query", "Search text"),)),
    D(
        "send_email",
        "Send an email message to a recipient.",
        (("to", "Address"), ("subject", "Subject line")),
    ),
    D("send_email_draft", "Save an email as a draft without sending it.", (("to", "Address"),)),
    D("email.send", "Send mail through the SMTP relay.", (("to", "Recipient address"),)),
    D("read_email", "Read an email message from the inbox by id.", (("id", "Message id"),)),
    D("calculator", "Evaluate an arithmetic expression.", (("expression", "Like 2+2"),)),
    D(
        "convert_currency",
        "Convert an amount between currencies at today's rate.",
        (("amount", "Amount"), ("to", "Currency code")),
    ),
)

GOLDEN: dict[str, list[tuple[str, float]]] = {
    "get weather": [
        ("get-weather", 0.98882),
        ("get_weather", 0.98873),
        ("GetWeather", 0.803603),
        ("get_weather_forecast", 0.67902),
        ("weather_alerts", 0.361352),
    ],
    "get_weather": [  # named as written: its punctuation twin "get-weather" is no exact name
        ("get_weather", 1.0),
        ("get-weather", 0.795157),
        ("GetWeather", 0.6445),
        ("get_weather_forecast", 0.373497),
        ("weather_alerts", 0.198763),
    ],
    "GetWeather": [
        ("GetWeather", 1.0),
        ("get-weather", 0.623012),
        ("get_weather", 0.622612),
        ("get_weather_forecast", 0.335478),
        ("weather_alerts", 0.178531),
    ],
    "weather": [
        ("GetWeather", 0.818192),
        ("get-weather", 0.811352),
        ("get_weather", 0.809734),
        ("weather_alerts", 0.722705),
        ("get_weather_forecast", 0.706316),
    ],
    "weather forecast for Kyiv": [
        ("get_weather_forecast", 0.334248),
        ("get_forecast", 0.210488),
        ("GetWeather", 0.132199),
        ("get-weather", 0.129743),
        ("weather_alerts", 0.129743),
    ],
    "get_weather or get_forecast": [
        ("get_forecast", 0.949118),
        ("get_weather", 0.938012),
        ("get_weather_forecast", 0.343381),
        ("get-weather", 0.342891),
        ("GetWeather", 0.193223),
    ],
    "compare get_weather_forecast and weather_alerts": [
        ("get_weather_forecast", 0.933597),
        ("weather_alerts", 0.931355),
        ("get_forecast", 0.145543),
        ("GetWeather", 0.111244),
        ("get-weather", 0.110168),
    ],
    "create issue": [
        ("create_issue", 0.990026),
        ("github__create_issue", 0.791011),
        ("create_issue_comment", 0.680819),
        ("close_issue", 0.342586),
        ("search_issues", 0.248111),
    ],
    "github create issue": [
        ("github__create_issue", 0.988135),
        ("create_issue", 0.614117),
        ("create_issue_comment", 0.587345),
        ("close_issue", 0.22225),
        ("search_issues", 0.160961),
    ],
    "create_issue": [
        ("create_issue", 1.0),
        ("github__create_issue", 0.638131),
        ("create_issue_comment", 0.375598),
        ("close_issue", 0.188999),
        ("search_issues", 0.136879),
    ],
    "comment on an issue": [
        ("create_issue_comment", 0.807586),
        ("close_issue", 0.2695),
        ("create_issue", 0.262789),
        ("github__create_issue", 0.258934),
        ("search_issues", 0.195181),
    ],
    "list open issues": [
        ("list_issues", 0.648154),
        ("github__create_issue", 0.262091),
        ("search_issues", 0.185729),
        ("close_issue", 0.13037),
        ("create_issue", 0.127123),
    ],
    "send email": [
        ("send_email", 0.99027),
        ("email.send", 0.802301),
        ("send_email_draft", 0.699821),
        ("read_email", 0.292818),
    ],
    "send_email": [
        ("send_email", 1.0),
        ("email.send", 0.655519),
        ("send_email_draft", 0.408248),
        ("read_email", 0.170819),
    ],
    "email.send": [
        ("email.send", 1.0),
        ("send_email", 0.661903),
        ("send_email_draft", 0.408248),
        ("read_email", 0.170819),
    ],
    "draft email": [
        ("send_email_draft", 0.803158),
        ("send_email", 0.262961),
        ("read_email", 0.261591),
        ("email.send", 0.245419),
    ],
    "convert 10 usd to eur": [
        ("convert_currency", 0.17261),
    ],
    "what is 2+2": [
        ("calculator", 0.43125),
    ],
    "rain tomorrow": [
        ("get_weather", 0.319307),
        ("get_forecast", 0.30522),
    ],
    "close_issue and list_issues": [
        ("list_issues", 0.946746),
        ("close_issue", 0.943042),
        ("search_issues", 0.093427),
        ("create_issue", 0.085414),
        ("github__create_issue", 0.084161),
    ],
}
"""Top five per query with scores rounded to 6 places, as the default index ranks them."""


def _top5(query: str) -> list[tuple[str, float]]:
    return [(hit.name, round(hit.score, 6)) for hit in list(BM25ToolIndex(LIBRARY).rank(query))[:5]]


@pytest.mark.parametrize("query", list(GOLDEN))
def test_top_five_names_are_the_golden_ones(query: str) -> None:
    """Exact names keep their own scores: two tools named in one query are not tied."""
    assert [name for name, _ in _top5(query)] == [name for name, _ in GOLDEN[query]]


@pytest.mark.parametrize("query", list(GOLDEN))
def test_top_five_scores_are_the_golden_ones(query: str) -> None:
    """BM25's defaults (``k1``, ``b``, field weights) fix every score to 6 places."""
    top = _top5(query)
    assert [name for name, _ in top] == [name for name, _ in GOLDEN[query]]
    assert [score for _, score in top] == pytest.approx([s for _, s in GOLDEN[query]], abs=1.5e-6)
