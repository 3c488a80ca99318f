"""Mixed-script queries, up to 2,000 times repeated, never raise and rank soundly.

A hypothesis search over the edge-case index of tests/unit_tests/test_index.py;
it takes seconds, so it runs in the integration lane.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_toolsearch.search._analysis import tokenize
from tests.unit_tests.test_index import _edge_index

_SCRIPTS = st.sampled_from(
    [
        "abcdefghijklmnopqrstuvwxyz",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "0123456789",
        "天気予報東京大阪查询股票价格",
        "ひらがなカタカナ",
        "날씨정보조회",
        "перевдтекстаязык",
        "αβγδεζηθ",
        "مرحبابالعالم",
        "नमस्तेदुनिया",
        "éèêëçñüöß",
        "😀🎉✨",
        " ._-/:,;!?'\"()\t\n",
    ]
)
_mixed = st.lists(
    _SCRIPTS.flatmap(lambda chars: st.text(st.sampled_from(chars), min_size=1, max_size=12)),
    max_size=12,
).map("".join)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(query=_mixed, repeat=st.sampled_from([1, 1, 1, 2_000]))
def test_mixed_script_queries_never_raise_and_rank_soundly(query: str, repeat: int) -> None:
    index = _edge_index()
    text = query * repeat
    hits = list(index.rank(text))
    assert hits == list(index.rank(text))  # deterministic
    assert all(0.0 < h.score <= 1.0 for h in hits)
    assert [(-h.score, h.name) for h in hits] == sorted((-h.score, h.name) for h in hits)
    assert len({h.name for h in hits}) == len(hits)
    if not tokenize(text):  # stopword-only or no letters/digits: nothing
        assert all(h.score >= 0.9 for h in hits)  # only a tool named by the query itself
