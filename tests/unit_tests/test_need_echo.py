"""A search for several needs names each hit's need in bounded text.

Each hit says which need it answers (``"query"``); a need may be up to 2,000 characters,
and was repeated in full once per hit. It is now shown by its first
``QUERY_ECHO_CHARS`` characters, so the result's size is bounded by the constants.
"""

from __future__ import annotations

import json

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._library import DESCRIPTION_LIMIT, SAFE_NAME
from langchain_toolsearch._steps import (
    MAX_QUERIES,
    MAX_QUERY_CHARS,
    QUERY_ECHO_CHARS,
    UNMATCHED_SHOWN,
)
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import library
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param

TOPICS = ["weather in a city", "send an email", "post a slack message", "create a github issue"]
NOTHING = "qqzx vvbn "  # matches no tool


def _long(words: str) -> str:
    return ((words + " ") * MAX_QUERY_CHARS)[:MAX_QUERY_CHARS]


def _label(need: str) -> str:
    """A long need as shown: its model text (one line, runs of spaces as one), cut."""
    return P.model_text(need)[: QUERY_ECHO_CHARS - 3] + "..."


def _bound(hits: int) -> int:
    """Most characters of a search's JSON with ``hits`` results, from the constants."""
    longest_name = "n" * 64  # SAFE_NAME: at most 64 characters
    assert SAFE_NAME.pattern.endswith("{1,64}$")
    hit = {
        "name": longest_name,
        "description": "d" * DESCRIPTION_LIMIT,
        "score": 0.1234,
        "query": "q" * QUERY_ECHO_CHARS,
        "loaded": True,
    }
    per_hit = len(json.dumps(hit, ensure_ascii=False)) + len(", ")
    message = (
        len(P.SEARCH_FOUND_NEEDS)
        + max(len(P.SEARCH_FOUND_FOLLOWUP_LOAD), len(P.SEARCH_FOUND_FOLLOWUP_AUTO))
        + len(P.SEARCH_NEEDS_UNMATCHED)
        + MAX_QUERIES * (QUERY_ECHO_CHARS + len(", "))
        + len(P.SEARCH_SOME_LOADED)
    )
    envelope = len(json.dumps({"results": [], "message": ""}))
    return envelope + hits * per_hit + message


@form_param
@mode_param
async def test_five_needs_of_2000_characters_give_a_bounded_result(form: str, mode: str) -> None:
    needs = [*(_long(t) for t in TOPICS), _long(NOTHING)]
    h = build(form, [ai(call("search_tools", {"queries": needs}, "s")), ai(content="ok")])
    msg = by_id(await h.run("go", cfg(), mode))["s"]
    assert msg.status == "success"
    results = msg.artifact["results"]
    assert len(results) == 5  # top_k, shared by the needs that matched
    shown = {_label(n): n for n in needs}
    for result in results:
        assert len(result["query"]) <= QUERY_ECHO_CHARS
        assert result["query"] in shown  # the need's own first characters
    assert [r["query"] for r in results[:4]] == [_label(n) for n in needs[:4]]
    assert P.SEARCH_NEEDS_UNMATCHED.format(queries=_label(needs[4])) in msg.artifact["message"]
    assert len(msg.text) <= _bound(len(results))
    # the bound is tight enough to matter: each hit repeating its need would break it
    assert _bound(len(results)) < len(results) * MAX_QUERY_CHARS


def test_needs_alike_in_their_first_characters_are_told_apart() -> None:
    start = (
        "please help me with the following, which I describe in full detail here, as it matters: "
    )
    start = start.ljust(QUERY_ECHO_CHARS, "-")  # the same first characters, past the echo
    needs = [start + " " + topic for topic in TOPICS[:3]]
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        hits = cls(tools=library(), top_k=3).search(needs)
        labels = [h.query for h in hits]
        tail = "... (query {})"
        assert labels == [
            _label(needs[0]),
            needs[1][: QUERY_ECHO_CHARS - len(tail.format(2))] + tail.format(2),
            needs[2][: QUERY_ECHO_CHARS - len(tail.format(3))] + tail.format(3),
        ]
        assert all(label is not None and len(label) <= QUERY_ECHO_CHARS for label in labels)


def test_needs_up_to_the_echo_length_are_shown_as_written() -> None:
    fits = ("send an email to a recipient " * 4)[:QUERY_ECHO_CHARS]
    over = ("post a message to a slack channel " * 4)[: QUERY_ECHO_CHARS + 1]
    hits = ToolSearchMiddleware(tools=library(), top_k=3).search(["weather", fits, over])
    assert [h.query for h in hits] == ["weather", fits, _label(over)]


def test_a_search_finding_nothing_names_its_needs_briefly() -> None:
    needs = [_long("qqzx vvbn"), _long("zzkw pplq")]
    h = build("agent", [ai(call("search_tools", {"queries": needs}, "s")), ai(content="ok")])
    out = h.graph.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg())
    message = by_id(out)["s"].artifact["message"]
    assert message.startswith(
        P.SEARCH_NO_RESULTS.format(query=" / ".join(_label(n) for n in needs))
    )
    words = len(P.SEARCH_WORDS_UNMATCHED) + UNMATCHED_SHOWN * (40 + len(", "))  # the words named
    assert len(message) <= len(P.SEARCH_NO_RESULTS) + 2 * QUERY_ECHO_CHARS + len(" / ") + words


def test_needs_are_echoed_as_sendable_one_line_text() -> None:
    # the model's own needs, echoed: a lone surrogate its JSON carried (json.loads accepts
    # "\ud83d") made the answer fail to encode in the next request; newlines and escapes
    # are shown as one line, as every other text the package shows
    needs = ["weather \ud83d in Paris", "qqzx\nvvbn \x1b[2J\u202e"]
    h = build("agent", [ai(call("search_tools", {"queries": needs}, "s")), ai(content="ok")])
    out = h.graph.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg())
    msg = by_id(out)["s"]
    msg.text.encode("utf-8")  # raised UnicodeEncodeError
    assert [r["query"] for r in msg.artifact["results"]] == ["weather in Paris"]
    assert P.SEARCH_NEEDS_UNMATCHED.format(queries="qqzx vvbn") in msg.artifact["message"]
    h = build("agent", [ai(call("search_tools", {"query": "qqzx \udfff"}, "s")), ai(content="ok")])
    out = h.graph.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg())
    unmatched = P.SEARCH_WORDS_UNMATCHED.format(words="qqzx")
    assert by_id(out)["s"].text == json.dumps(
        {"results": [], "message": P.SEARCH_NO_RESULTS.format(query="qqzx") + unmatched},
        ensure_ascii=False,
    )


def test_names_not_found_are_echoed_as_sendable_one_line_text() -> None:
    h = build(
        "agent", [ai(call("load_tool", {"tool_name": "get_wether\ud83d\n"}, "l")), ai(content="ok")]
    )
    out = h.graph.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg())
    msg = by_id(out)["l"]
    msg.text.encode("utf-8")  # raised UnicodeEncodeError
    assert msg.artifact["not_found"] == ["get_wether"]
    assert msg.artifact["message"].startswith(P.LOAD_NOT_FOUND.format(names="get_wether"))
