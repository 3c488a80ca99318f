"""Tool output cut to a number of characters with a marker the model reads
(``langchain_toolsearch._support``), for strings, content blocks, artifacts and
ToolMessages."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from langchain_toolsearch._support import bound_content, bound_result, check_limit
from langchain_toolsearch.errors import ToolSearchConfigError


def test_text_that_fits_is_returned_as_is() -> None:
    content: list[Any] = ["ab", {"type": "text", "text": "cd"}]
    assert bound_content(content, 4) is content
    assert bound_content("abcd", 4) == "abcd"
    assert bound_content("x" * 10, None) == "x" * 10


def test_a_long_string_is_cut_with_a_marker_saying_how_much() -> None:
    out = bound_content("x" * 250, 100)
    assert out.startswith("x" * 100 + "\n[output truncated: the first 100 of 250 characters")
    assert out.count("x") == 100


def test_blocks_are_cut_where_the_bound_falls_and_other_blocks_kept_whole_or_left_out() -> None:
    image = {"type": "image", "base64": "A" * 50, "mime_type": "image/png"}
    content = [
        {"type": "text", "text": "a" * 30},
        image,
        {"type": "text", "text": "b" * 100},
        image,
    ]
    out = bound_content(content, 120)
    assert out[0] == content[0] and out[1] is image
    cut = out[2]["text"]
    assert cut == "b" * len(cut) and 0 < len(cut) < 100  # cut where the bound falls
    assert "left out" in out[-1]["text"] and image not in out[3:]


def test_a_large_artifact_is_dropped_and_a_small_one_kept() -> None:
    big = ("x" * 10, {"structured_content": {"result": "y" * 500}})
    assert bound_result(big, 100) == ("x" * 10, None)
    small = ("x" * 10, {"structured_content": {"result": "y"}})
    assert bound_result(small, 100) == small


def test_a_tool_message_gets_a_bounded_copy() -> None:
    message = ToolMessage(content="z" * 500, tool_call_id="1")
    out = bound_result(message, 50)
    assert isinstance(out, ToolMessage) and out.content.count("z") == 50
    assert message.content == "z" * 500
    fits = ToolMessage(content="z", tool_call_id="1")
    assert bound_result(fits, 50) is fits


@pytest.mark.parametrize("bad", [0, -5, 2.0, True, "10"])
def test_a_bad_limit_is_refused(bad: Any) -> None:
    with pytest.raises(ToolSearchConfigError, match="must be an int >= 1"):
        check_limit("max_output_chars", bad)
    assert check_limit("x", None) is None and check_limit("x", 7) == 7
