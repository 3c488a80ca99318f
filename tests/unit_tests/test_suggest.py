"""Bounded "did you mean" suggestions."""

from __future__ import annotations

import difflib
from typing import Any

import pytest

from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import _stages as suggest_module
from langchain_toolsearch.search._stages import MAX_NAME_CHARS, NameSuggester
from tests.support.library_fixtures import library


def _suggester(count: int) -> NameSuggester:
    return NameSuggester((f"svc_{i:05d}_get_record", ()) for i in range(count))


def test_long_names_get_no_suggestions_and_no_work() -> None:
    lib = ToolLibrary(library())
    assert lib.suggest("get_weather" * 20_000) == []
    assert lib.suggest("g" * (MAX_NAME_CHARS + 1)) == []
    assert lib.suggest("get_wether") == ["get_weather"]


def test_near_spellings_compare_a_bounded_number_of_names(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Any] = []

    class Counting(difflib.SequenceMatcher):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(suggest_module.difflib, "SequenceMatcher", Counting)
    small, large = _suggester(100), _suggester(20_000)
    for names in (small, large):
        made.clear()
        assert names.suggest("svc_00050_get_recrod")[:1] == ["svc_00050_get_record"]
        assert len(made) <= 4 * 6  # two sort orders, six neighbours each side


def test_names_starting_with_the_asked_one_are_read_from_its_place_only() -> None:
    """The prefix lookup reads at most ``limit`` sorted names, wherever the asked name sorts.

    Stepping through every name sorted before the asked one (an ``islice`` over
    the list) would cost about 0.7 ms per unknown name at 100,000 tools.
    """
    read: list[int] = []

    class Counting(list):  # type: ignore[type-arg]
        def __iter__(self) -> Any:
            for item in super().__iter__():
                read.append(1)
                yield item

    names = _suggester(20_000)
    names._tables()
    names._forward = Counting(names._forward)
    assert names._prefixed("svc19990get", 5) == ["svc_19990_get_record"]
    assert names._prefixed("zzz", 5) == []
    assert len(read) <= 2 * 5


def test_common_words_stop_after_the_limit() -> None:
    names = _suggester(20_000)
    assert names.suggest("get_record", limit=3) == [
        "svc_00000_get_record",
        "svc_00001_get_record",
        "svc_00002_get_record",
    ]


def test_a_name_is_found_by_its_original_spelling() -> None:
    names = NameSuggester([("weather_get_1234abcd", ("weather.get",)), ("get_weather", ())])
    assert names.suggest("weather.get") == ["weather_get_1234abcd"]
    assert names.suggest("Weather-Get") == ["weather_get_1234abcd"]
    assert names.suggest("weather") == ["get_weather", "weather_get_1234abcd"]


def test_a_load_of_many_huge_unknown_names_gives_a_bounded_receipt() -> None:
    """64 unknown names of 100,000 characters: a receipt of bounded size, no suggestions."""
    from langchain_toolsearch import ToolSearchMiddleware
    from tests.support.fakes import ai, call
    from tests.unit_tests.test_model_guidance import run

    mw = ToolSearchMiddleware(tools=library())
    names = [f"{i:02d}" + "x" * 100_000 for i in range(64)]
    (receipt,) = run(mw, ai(call("load_tool", {"tool_names": names})))
    assert len(str(receipt.content)) < 64 * 300
    assert "Did you mean" not in str(receipt.content)
    near = [f"get_wether{'_' * i}" for i in range(3)]
    (receipt,) = run(mw, ai(call("load_tool", {"tool_names": near})))
    assert "get_weather" in str(receipt.content)


_ASKED = [
    "svc_00005_get_recrod",
    "svc_00007_get",
    "svc00012getrecord",
    "record",
    "svc_00003_get_record_x",
]


def test_suggestion_maps_are_built_on_first_use_and_answer_as_built_up_front() -> None:
    lazy = _suggester(2_000)
    assert lazy._entries is not None  # nothing built with the library
    assert lazy.suggest("ab") == [] and lazy._entries is not None  # too short: no maps needed
    eager = _suggester(2_000)
    eager._tables()
    first = [lazy.suggest(name) for name in _ASKED]
    assert lazy._entries is None  # built by the first suggestion
    assert first == [eager.suggest(name) for name in _ASKED]
    assert first == [lazy.suggest(name) for name in _ASKED]  # after first use: the same
    assert all(first)


def test_concurrent_first_suggestions_build_the_maps_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    builds: list[int] = []
    build = NameSuggester._build

    def counted(self: NameSuggester, names: list[tuple[str, Any]]) -> None:
        builds.append(1)
        build(self, names)

    monkeypatch.setattr(NameSuggester, "_build", counted)
    expected = [_suggester(2_000).suggest(name) for name in _ASKED]
    builds.clear()
    shared = _suggester(2_000)
    start = threading.Barrier(8)
    got: list[list[list[str]]] = []

    def ask() -> None:
        start.wait()
        got.append([shared.suggest(name) for name in _ASKED])

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert builds == [1]
    assert got == [expected] * 8
