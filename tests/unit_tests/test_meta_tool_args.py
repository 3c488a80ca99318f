"""The meta tools' input schemas: the injected runtime is validated, never dumped."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.parametrize("which", ["search", "load"])
def test_the_injected_runtime_is_never_dumped(which: str) -> None:
    """LangChain dumps a tool's validated input per call: the runtime (the whole state) stays out."""
    from langchain_core.messages import AIMessage
    from langgraph.prebuilt import ToolRuntime

    from langchain_toolsearch._shell import _args_schema, _load_signature, _search_signature

    class Loud(AIMessage):
        def model_dump(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the state was dumped")

    state = {"messages": [Loud(content="x")]}
    runtime = ToolRuntime(
        state=state, context=None, config={}, stream_writer=print, tool_call_id="c", store=None
    )
    signature = _load_signature if which == "load" else _search_signature
    args = {"tool_name": "a"} if which == "load" else {"query": "a"}
    parsed = _args_schema(signature).model_validate({"runtime": runtime, **args})
    assert parsed.runtime is runtime  # type: ignore[attr-defined]
    assert "runtime" not in parsed.model_dump()
