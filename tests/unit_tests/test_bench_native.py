"""``benchmarks.native``: how a request is rendered and measured for the cache figures."""

from __future__ import annotations

from benchmarks.native import _cached, _resent, _tokens, render

DEFERRED = {"name": "get_weather", "input_schema": {"type": "object"}, "defer_loading": True}
SEARCH = {"name": "search_tools", "input_schema": {"type": "object"}}


def _body(messages: list[dict[str, object]]) -> dict[str, object]:
    return {"system": "s", "tools": [SEARCH, DEFERRED], "messages": messages}


def test_deferred_definitions_count_only_where_referenced() -> None:
    first = render(_body([{"role": "user", "content": "hi"}]))
    assert not any("get_weather" in segment for segment in first)  # deferred: not in the prompt
    reference = {"type": "tool_reference", "tool_name": "get_weather"}
    result = {"type": "tool_result", "tool_use_id": "t", "content": [reference]}
    second = render(
        _body([{"role": "user", "content": "hi"}, {"role": "user", "content": [result]}])
    )
    assert second[: len(first)] == first
    expanded = second[-1]
    assert '"input_schema"' in expanded and "defer_loading" not in expanded
    assert _cached(first, second) == _tokens(first)  # the whole previous prompt is a prefix
    changed = render({**_body([{"role": "user", "content": "hi"}]), "system": "other"})
    assert _cached(first, changed) == _tokens(first[:1])  # the tools only


def test_resent_counts_what_the_step_before_sent_wherever_it_moved() -> None:
    before = ["tool:a", "system", "user:hi"]
    now = ["tool:a", "tool:b", "system", "user:hi", "tool_result"]
    assert _resent(before, now) == _tokens(before)  # a new tool in the middle: all resent
    assert _cached(before, now) == _tokens(before[:1])  # only the prefix is cached
