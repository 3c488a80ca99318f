"""SPEC section 4, tokenizing: identifiers, CJK, stopwords, stemming."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_toolsearch.search._analysis import (
    STOPWORDS,
    clear_caches,
    is_cjk,
    name_phrase,
    name_words,
    stem,
    tokenize,
    tokenize_name,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("get_weather", ["get", "weather", "get_weather"]),
        ("get-weather", ["get", "weather", "get_weather"]),
        ("weather.get", ["weather", "get", "weather_get"]),
        ("addPerson", ["add", stem("person"), "addperson"]),
        ("HTTPServer", ["http", stem("server"), "httpserver"]),
        ("GetWeather", ["get", "weather", "getweather"]),
        ("v1", ["v", "1", "v1"]),
        ("files/read", [stem("files"), "read", "files_read"]),
        ("Get Weather", ["get", "weather"]),
    ],
)
def test_identifiers_split_lowercase_and_keep_the_whole(text: str, expected: list[str]) -> None:
    assert tokenize_name(text) == expected


def test_compound_identifiers_in_prose() -> None:
    terms = tokenize("call bitable_v1_appTableRecord_search now")
    for word in ("call", "bitable", "v", "1", "v1", "table", "record", "search", "now"):
        assert stem(word) in terms
    assert "apptablerecord" in terms
    assert "bitable_v1_apptablerecord_search" in terms


def test_mcp_style_double_underscores() -> None:
    terms = tokenize_name("mcp__plugin_x__ask_codex")
    assert {"mcp", stem("plugin"), "x", "ask", stem("codex")} <= set(terms)
    assert "mcp_plugin_x_ask_codex" in terms


def test_digits_are_tokens() -> None:
    assert tokenize("ec2 instance 42") == ["ec", "2", "ec2", stem("instance"), "42"]


def test_cjk_gives_bigrams_and_single_characters() -> None:
    assert tokenize("天気予報") == ["天気", "気予", "予報"]
    assert tokenize("天") == ["天"]
    assert tokenize("東京の天気") == ["東京", "京の", "の天", "天気"]
    assert tokenize("날씨 정보") == ["날씨", "정보"]
    mixed = tokenize("東京weather予報")
    assert "東京" in mixed and "weather" in mixed and "予報" in mixed
    assert is_cjk("天") and is_cjk("カ") and is_cjk("한") and not is_cjk("a")


def test_stopwords_are_dropped_from_prose_but_kept_in_names() -> None:
    assert tokenize("what is the weather in Paris") == ["weather", stem("paris")]
    assert tokenize("the of and to") == []
    assert tokenize("the of and to", keep_stopwords=True) == ["the", "of", "and", "to"]
    assert tokenize_name("github_get_me") == ["github", "get", "me", "github_get_me"]
    assert "me" in STOPWORDS


def test_only_punctuation_gives_no_tokens() -> None:
    for text in ("", "   ", "!!!", "-- // ..", "?!", "_", "___"):
        assert tokenize(text) == []
        assert tokenize(text, keep_stopwords=True) == []


@pytest.mark.parametrize(
    "words",
    [
        ["issue", "issues"],
        ["create", "created", "creates", "creating"],
        ["list", "lists", "listing", "listed"],
        ["repository", "repositories"],
        ["stop", "stopped"],
        ["message", "messages"],
    ],
)
def test_stemming_folds_inflections(words: list[str]) -> None:
    assert len({stem(w) for w in words}) == 1
    assert tokenize(" ".join(words)) == [stem(words[0])] * len(words)


def test_stemming_leaves_short_and_non_ascii_words() -> None:
    for word in ("bus", "gas", "use", "status", "café", "ès", "a1s"):
        assert stem(word) == word
    assert all(len(stem(w)) >= 3 for w in ("uses", "does", "lied", "seed"))


def test_stemming_folds_inflections_and_derivations() -> None:
    # Snowball English (Porter 2): one stem for a word's family
    assert stem("calculate") == stem("calculation") == stem("calculator") == stem("calculating")
    assert stem("issues") == stem("issue")
    assert stem("meetings") == stem("meeting")


def test_nfkc_folds_full_width_text() -> None:
    assert tokenize("ＧＥＴ＿ＷＥＡＴＨＥＲ") == tokenize("GET_WEATHER")  # noqa: RUF001


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(max_size=80))
def test_tokens_exist_for_any_text_with_letters_or_digits(text: str) -> None:
    terms = tokenize(text, keep_stopwords=True)
    normalised = unicodedata.normalize("NFKC", text)
    if any(ch.isalnum() for ch in normalised):
        assert terms, text
    assert all(t and t == t.lower() for t in terms)
    content = tokenize(text)
    assert set(content) <= set(terms) | {stem(t) for t in terms}


def test_accented_and_non_latin_words_stay_whole() -> None:
    # a Latin word with accents is kept as written and also folded ("resume" finds "résumé")
    assert tokenize("café crème brûlée") == ["café", "cafe", "crème", "creme", "brûlée", "brule"]
    assert tokenize_name("naïveBayes") == ["naïve", "naiv", stem("bayes"), "naïvebayes"]
    assert tokenize("Перевод текста") == ["перевод", "текста"]
    assert tokenize("Tìm chuyến đi") == ["tìm", "tim", "chuyến", "chuyen", "đi"]
    assert tokenize("مرحبا بالعالم") == ["مرحبا", "بالعالم"]
    assert tokenize("emoji 😀🎉 only") == ["emoji", stem("only")]


def test_stopwords_are_never_stemmed() -> None:
    assert tokenize("please does these") == []
    assert tokenize("please does these", keep_stopwords=True) == ["please", "does", "these"]
    assert tokenize_name("does_exist") == ["does", "exist", "does_exist"]


def test_names_with_dots_slashes_spaces_and_colons() -> None:
    assert tokenize_name("weather.get") == ["weather", "get", "weather_get"]
    assert tokenize_name("files/read") == [stem("files"), "read", "files_read"]
    assert tokenize_name("mcp:server/tool.run") == [
        "mcp",
        "server",
        "tool",
        "run",
        "mcp_server_tool_run",
    ]
    assert tokenize_name("fax send") == ["fax", "send"]
    assert name_phrase("getMe_now.v2") == ("get", "me", "now", "v", "2")


def test_name_words_are_unstemmed_lowercase_words_of_any_identifier_style() -> None:
    assert name_words("createPullRequest") == ["create", "pull", "request"]
    assert name_words("HTTPServer.get_issues-v2") == ["http", "server", "get", "issues", "v", "2"]
    assert name_words("résumé_upload") == ["résumé", "upload"]
    assert name_words("") == []
    assert name_phrase("天気_get") == ("get",)
    assert tokenize_name("天気_get") == ["天気", "get"]


def test_a_100kb_text_tokenizes_and_the_caches_change_nothing() -> None:
    text = "Create an issue in a GitHub repository; 東京の天気 " * 2_200
    assert len(text) > 100_000
    first = tokenize(text)
    clear_caches()
    assert tokenize(text) == first
    assert len(first) == 2_200 * 10  # creat issu git hub github repository + 4 bigrams


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    st.text(
        st.sampled_from("abcXYZ019 _-./:天気予報날씨éßПр😀!?"),
        max_size=60,
    )
)
def test_dropping_stopwords_is_a_filter(text: str) -> None:
    every = tokenize(text, keep_stopwords=True)
    assert tokenize(text) == [t for t in every if t not in STOPWORDS]
    assert all(t == stem(t) or t not in STOPWORDS for t in every)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("नोट बनाएं", "नोट"),  # Devanagari: vowel signs are combining marks
        ("भुगतान करें", "भुगतान"),
        ("செய்தி அனுப்பு", "செய்தி"),  # Tamil
        ("বাংলা খবর", "বাংলা"),  # Bengali
    ],
)
def test_words_with_combining_marks_stay_whole(text: str, word: str) -> None:
    terms = tokenize(text)
    assert word in terms
    # no single letters split off at the marks
    assert all(len(t) > 1 for t in terms), terms


def test_scripts_without_spaces_give_cluster_bigrams() -> None:
    # Thai: a word inside a run without spaces shares all its bigrams with the run
    sentence = set(tokenize("ดูสภาพอากาศวันนี้"))
    word = tokenize("อากาศ")
    assert word and set(word) <= sentence
    assert not set(tokenize("ราคา")) & sentence  # another word shares nothing
    # a cluster keeps its marks: "วั" is one unit, never the bare mark
    assert all(not unicodedata.combining(t[0]) for t in sentence)
    for text in ("ສະບາຍດີ", "សួស្តី", "မင်္ဂလာပါ"):  # Lao, Khmer, Myanmar
        assert tokenize(text), text


def test_accent_folding_keeps_the_written_form() -> None:
    assert tokenize("résumé") == ["résumé", "resum"]
    assert tokenize("resume") == ["resum"]
    assert "cafe" in tokenize("Café") and "café" in tokenize("Café")
    assert tokenize("straße") == ["straße"]  # no ASCII fold: left as written


def test_stemming_is_switchable_and_leaves_other_scripts_alone() -> None:
    assert tokenize("creating issues") == ["creat", "issu"]
    assert tokenize("creating issues", stemmed=False) == ["creating", "issues"]
    # the English stemmer never touches a word of another script, nor one as written with
    # accents (only its ASCII fold)
    for stemmed in (True, False):
        assert tokenize("погода créations", stemmed=stemmed)[:2] == ["погода", "créations"]


def test_hyphenated_words_meet_their_joined_form() -> None:
    assert "email" in tokenize("send an e-mail")
    assert "todo" in tokenize("to-do list")
    assert "signin" in tokenize("sign-in page")
    assert "getweather" not in tokenize("get-weather")  # only parts of one or two letters


def test_first_person_pronouns_fold_to_me() -> None:
    assert tokenize("who am i", keep_stopwords=True) == ["who", "am", "me"]
    assert tokenize("who am i") == []


def test_chunk_cache_is_bounded_by_size() -> None:
    from langchain_toolsearch.search._analysis import cache_bytes

    clear_caches()
    for i in range(3000):
        tokenize(f"w{i}x" * 10)  # distinct long chunks: analysed, not cached
        tokenize(f"q{i}z")
    assert cache_bytes() < 32 << 20
    clear_caches()
    assert cache_bytes() == 0
