"""The engine's step shape: a tool step decides once and reads the history once; one model
message with many tool calls is read once, not once per call; engine logic yields only
``Effect`` values, so one sync and one async driver run all of it."""

from __future__ import annotations

import inspect
import itertools
from typing import Any

import pytest

from langchain_toolsearch import _access as access
from langchain_toolsearch import _effects as drive
from langchain_toolsearch import _engine as engine
from langchain_toolsearch import _guard as guard
from langchain_toolsearch import _steps as load
from langchain_toolsearch import _steps as search
from langchain_toolsearch.storage import _strategy as strategy
from tests.support.fakes import ai, call
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param, tool_msgs


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


@form_param
@mode_param
async def test_a_tool_step_checks_once_and_reads_the_history_once(
    form: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="ok"),
    ]
    h = build(form, steps)
    checks = counting(monkeypatch, guard, "pre_check")
    reads = counting(monkeypatch, guard, "messages_of")
    out = await h.run("go", cfg(), mode)
    assert tool_msgs(out)[-1].text.startswith("Sunny")
    assert len(checks) == 2  # load_tool, get_weather: one check each
    assert len(reads) == 1  # only the library tool's step reads the history, once


@mode_param
async def test_one_message_with_many_calls_is_read_once(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = 200
    calls = [call("get_weather", {"city": f"c{i}"}) for i in range(count)]
    steps = [ai(call("load_tool", {"tool_name": "get_weather"})), ai(*calls), ai(content="ok")]
    h = build("agent", steps)
    built = counting(monkeypatch, guard.StepCalls, "__init__")
    out = await h.run("go", cfg(), mode)
    answers = [m for m in tool_msgs(out) if m.name == "get_weather"]
    assert len(answers) == count and all(m.status == "success" for m in answers)
    assert len(built) == 1  # the calls' message, read once for all of them


def test_step_helpers_take_what_they_need_not_the_engine() -> None:
    for module in (guard, load, search, access):
        source = inspect.getsource(module)
        assert "Engine" not in source, module.__name__
        assert "_engine.engine" not in source, module.__name__
    assert "Engine" in inspect.getsource(engine)


def test_engine_logic_never_returns_before_a_dead_yield() -> None:
    """``return x`` followed by a bare ``yield`` (to make a generator) appears nowhere."""
    for module in (guard, load, search, access, engine, drive, strategy):
        lines = [line.strip() for line in inspect.getsource(module).splitlines()]
        for before, after in itertools.pairwise(lines):
            assert not (before.startswith("return") and after.startswith("yield")), (
                module.__name__,
                before,
            )


async def test_one_effect_type_runs_sync_and_async() -> None:
    trace: list[str] = []

    async def aread() -> int:
        trace.append("async")
        return 2

    def read() -> int:
        trace.append("sync")
        return 2

    def logic() -> drive.Logic[int]:
        first = yield drive.Effect(read, aread)
        known = yield drive.Effect.of(3)
        return first * known

    assert drive.drive(logic()) == 6
    assert await drive.adrive(logic()) == 6
    assert trace == ["sync", "async"]


@form_param
@mode_param
async def test_who_loaded_a_tool_is_asked_only_when_a_call_of_its_step_could_have(
    form: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One store read fewer per call; and models that number calls per step (``call_0``
    every time) no longer see a loaded tool refused for an id an earlier load had."""
    load = call("load_tool", {"tool_name": "get_weather"}, "call_0")
    both = [call("get_weather", {"city": c}, f"call_{i}") for i, c in enumerate(("Oslo", "Rome"))]
    h = build(form, [ai(load), ai(*both), ai(content="ok")])
    origins = counting(monkeypatch, access.Access, "origin")
    answers = tool_msgs(await h.run("go", cfg(), mode), "get_weather")
    assert [(m.status, m.text) for m in answers] == [
        ("success", "Sunny in Oslo"),
        ("success", "Sunny in Rome"),
    ]
    assert origins == []
