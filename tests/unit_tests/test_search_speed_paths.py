"""The speed paths of the search index give the same results as the plain definitions.

A build tokenizes through ``BatchTokenizer`` (its own chunk memo) instead of
the module functions; ``rank`` rounds and sorts only the first 64 hits and
finds hits with a boolean scan. These tests pin that both give what the plain
definitions give: the module tokenizer, and every positive score of
``scores()`` rounded to 6 decimals, sorted by score then name.
"""

from __future__ import annotations

import functools
import gc
import itertools
import random
import re
import unicodedata

import numpy as np
import pytest

from langchain_toolsearch.search import BM25ToolIndex, ToolDocument
from langchain_toolsearch.search import _analysis as analysis
from langchain_toolsearch.search import _analysis as tokenize_module
from langchain_toolsearch.search._analysis import (
    PLAIN_WORD,
    STEMMED_WORD,
    BatchTokenizer,
    clear_caches,
    name_phrase,
    split_key,
    tokenize,
    tokenize_forms,
    tokenize_name,
)
from langchain_toolsearch.search._bm25 import _split_keys, first_batch
from langchain_toolsearch.search._protocol import name_key
from langchain_toolsearch.search._stages import (
    NameMatcher,
    NameSuggester,
    fold_name,
    literal,
    name_words,
)

TEXTS = [
    "Get the weather for a city",
    "getWeather_now",
    "HTTPServer v1 addPerson",
    "Upload a résumé to the café",
    "e-mail the to-do list; sign-in first",
    "PRs and APIs of my repo",
    "ดูสภาพอากาศวันนี้",
    "नोट बनाएँ",
    "天気を調べる get_天気",
    "Returns The Value Of A",
    "x" * 60 + "_long_identifier_" + "y" * 60,
    "who am i",
    "",
    "...",
]


@pytest.mark.parametrize("text", TEXTS)
def test_batch_tokenizer_gives_the_module_functions_terms(text: str) -> None:
    batch = BatchTokenizer()
    for _ in range(2):  # the second call is answered from the memo
        assert list(batch.tokenize(text)) == tokenize(text)
        assert list(batch.tokenize_name(text)) == tokenize_name(text)
        assert batch.name_phrase(text) == name_phrase(text)


@pytest.mark.parametrize("text", TEXTS)
def test_forms_as_written_come_from_the_same_pass_aligned_with_the_terms(text: str) -> None:
    every, written = tokenize_forms(text)
    assert every == tokenize(text, keep_stopwords=True)
    assert written == tokenize(text, keep_stopwords=True, stemmed=False)
    pairs = list(zip(tokenize(text), tokenize(text, stemmed=False), strict=True))
    batch = BatchTokenizer(forms=True)
    for _ in range(2):  # tokenized, then from the memo
        assert [split_key(k) for k in batch.keys(text)] == pairs
        assert list(batch.written_name(text)) == tokenize(text, keep_stopwords=True, stemmed=False)
        assert list(batch.tokenize(text)) == tokenize(text)  # joined again when asked
    assert list(BatchTokenizer().keys(text)) == tokenize(text)  # no forms: the terms


SNAKE_CHUNKS = [
    "get_weather",
    "list-issues",
    "e-mail",
    "to-do",
    "sign-in",
    "get__me",
    "files/read",
    "a.b.c",
    "x_y",
    "who_am_i",
    "my_repo_pr",
    "db-query",
    "organisation_list",
    "send_it_to_my_friend",
    "get_" + "a" * 40 + "_now",
    "weather",
]


def _entries_three_ways(chunks: list[str]) -> None:
    """Each chunk's entry from a build's memo and from the shared caches is its analysed one."""
    for word, plain, cache in (
        (STEMMED_WORD, PLAIN_WORD, analysis._CACHE),
        (PLAIN_WORD, None, analysis._PLAIN_CACHE),
    ):
        clear_caches()
        memo = analysis._ChunkMemo(cache)
        for chunk in chunks:
            expected = analysis.entry(analysis.analyse(chunk, word, plain))
            assert memo[chunk] == expected, chunk
            assert cache.get(chunk) == expected, chunk


def test_snake_case_chunks_fast_entries_are_the_analysed_ones() -> None:
    _entries_three_ways([*SNAKE_CHUNKS, *(c.upper() for c in SNAKE_CHUNKS), "Sign-Off", "set-up"])


def test_ascii_chunk_pattern_splits_ascii_text_like_the_unicode_one() -> None:
    rnd = random.Random(7)
    alphabet = "aZ9_-./: ,;!()\t"
    texts = [*TEXTS, *("".join(rnd.choices(alphabet, k=rnd.randint(0, 16))) for _ in range(20_000))]
    for text in (t for t in texts if t.isascii()):
        assert tokenize_module._ASCII_CHUNK.findall(text) == tokenize_module._CHUNK.findall(text)


def test_text_without_combining_marks_splits_as_the_marked_pattern_does() -> None:
    rnd = random.Random(23)
    alphabet = "aé字नस्तेก\u0e35\u0301\U0001d165\U000e0100\U00020000_-./: "
    texts = [*TEXTS, "x\U0001d165y z", "e\u0301t\u00e9", "ok_\u0301_x", "नमस्ते दुनिया"]
    texts += ["".join(rnd.choices(alphabet, k=rnd.randint(1, 16))) for _ in range(20_000)]
    marked = 0
    for text in (t for t in texts if not t.isascii()):
        normal = unicodedata.normalize("NFKC", text)
        marked += tokenize_module._has_marks(normal)
        assert tokenize_module._chunks(text) == tokenize_module.marked_chunk().findall(normal)
    assert 0 < marked < len(texts)


def test_one_word_and_snake_case_chunks_get_the_analysed_entries() -> None:
    rnd = random.Random(11)
    words = ["API", "Returns", "get", "PRs", "HTTPServer", "v2", "250", "A", "x", "e", "I", "my"]
    words += ["Sign", "off", "Off", "up", "mail", "the", "The", "café", "K", "\u212a"]
    texts = [rnd.choice("_-./: ").join(rnd.choices(words, k=3)) for _ in range(2_000)]
    texts += ["".join(rnd.choices("aAzZeE09_-./ ", k=rnd.randint(1, 14))) for _ in range(20_000)]
    chunks = list(dict.fromkeys(c for t in texts for c in analysis._chunks(t)))
    _entries_three_ways(chunks)


def test_name_suggester_maps_of_plain_names_are_the_general_ones() -> None:
    rnd = random.Random(5)
    names = ["get_weather", "list-issues", "getWeather", "__x__", "a--b__c", "_", "v2_x"]
    names += ["".join(rnd.choices("abZ9_-", k=rnd.randint(1, 10))) for _ in range(5_000)]
    names = list(dict.fromkeys(names))
    suggester = NameSuggester((n, ()) for n in names)
    suggester._tables()
    by_word: dict[str, set[str]] = {}
    for name in names:
        assert suggester._folds_of[name] == (fold_name(name),)
        for word in name_words(name):
            by_word.setdefault(word, set()).add(name)
    assert {w: set(found) for w, found in suggester._by_word.items()} == by_word
    assert all(len(found) == len(set(found)) for found in suggester._by_word.values())


def test_name_words_of_plain_names_are_the_regex_ones() -> None:
    from langchain_toolsearch.search import _stages as suggest

    rnd = random.Random(17)
    names = ["get_weather", "list-issues", "weather.get", "a..b", "_", "x.-_y", "getWeather"]
    names += ["".join(rnd.choices("abzAZ09_-./é", k=rnd.randint(0, 16))) for _ in range(20_000)]
    for name in names:
        assert name_words(name) == [w.lower() for w in suggest._WORDS.findall(name)], name


def test_spelling_name_endings_skip_names_ending_in_a_number_as_the_definition_does() -> None:
    """The spelling fallback's name endings, with names ending in a digit skipped unsplit,
    are the endings of every name split by ``name_words``."""
    from langchain_toolsearch.search import _stages as spelling

    rnd = random.Random(13)
    names = ["add_issue_comment", "list-issues", "weather.get", "addCommentToIssue", "get_v2"]
    names += ["x_" + "é" * 6, "a--b__c", "issue_comment_", "ÀddIssue_comment", "run9_tests"]
    names += ["".join(rnd.choices("abcdeZ9_-.é", k=rnd.randint(1, 24))) for _ in range(5_000)]
    fast = spelling._Endings(names)
    general: dict[str, tuple[str, ...]] = {}
    for name in names:  # _Endings as defined: every name through name_words
        words = name_words(name)
        joined = words[-1] if words else ""
        if not joined.isalpha():
            continue
        for word in reversed(words[-spelling.MAX_PARTS : -1]):
            joined = word + joined
            if not word.isalpha() or len(joined) > spelling._MAX_RUN:
                break
            if len(joined) >= 2 * spelling._MIN_CHARS:
                general.setdefault(joined, tuple(words))
    assert fast._words_of == general
    assert fast._forwards == sorted(general)


def test_name_matcher_keys_with_and_without_aliases() -> None:
    docs = [
        ToolDocument(name="get_weather", description=""),
        ToolDocument(name="Get-Weather", description="", aliases=("get weather",)),
        ToolDocument(
            name="repo_x_1a2b3c4d", description="", aliases=("repo.x",), generated_name=True
        ),
        ToolDocument(name="same", description="", aliases=("same",)),
    ]
    matcher = NameMatcher(docs, BatchTokenizer())
    keys: dict[str, list[int]] = {}
    written: dict[str, list[int]] = {}
    for i, doc in enumerate(docs):
        every = dict.fromkeys((doc.name, *doc.aliases))
        for key in dict.fromkeys(map(name_key, every)):
            keys.setdefault(key, []).append(i)
        for form in dict.fromkeys(map(literal, every)):
            written.setdefault(form, []).append(i)
    assert matcher._name_keys == {key: tuple(hits) for key, hits in keys.items()}
    assert matcher._literal_names == {form: tuple(hits) for form, hits in written.items()}


def test_ending_docs_stopping_at_shorter_names_gives_the_plain_definitions_hits() -> None:
    # names of mixed lengths, listed short first: the matcher checks longest first and
    # stops below the query's length without stopwords
    rnd = random.Random(5)
    words = ["create", "issue", "a", "the", "pull", "request", "get", "me", "of"]
    names = ["_".join(rnd.choices(words, k=rnd.randint(1, 7))) for _ in range(1_000)]
    names += ["github__create_issue", "create_an_issue", "issue", "get_me", "the_issue"]
    docs = [
        ToolDocument(name=f"{n}_{i}" if i % 3 else n, description="") for i, n in enumerate(names)
    ]
    memo = BatchTokenizer()
    matcher = NameMatcher(docs, memo)
    phrases = [memo.name_phrase(d.name) for d in docs]
    stop = tokenize_module.STOPWORDS

    def plain(asked: tuple[str, ...]) -> set[int]:
        core = tuple(w for w in asked if w not in stop)
        found = set()
        for i, phrase in enumerate(phrases):
            bare = tuple(w for w in phrase if w not in stop)
            if (
                len(phrase) >= 2
                and phrase[-1] == asked[-1]
                and (
                    phrase[-len(asked) :] == asked
                    or (core != asked and len(bare) >= len(core) and bare[-len(core) :] == core)
                )
            ):
                found.add(i)
        if 2 <= len(core) <= 4 and len(set(core)) == len(core):  # the words in any order
            found |= {
                i
                for i, phrase in enumerate(phrases)
                if len(phrase) >= 2
                and phrase[-1] in core
                and sorted(phrase[-len(core) :]) == sorted(core)
            }
        return found

    queries = ["create an issue", "issue", "get me", "the pull request of the issue"]
    queries += [" ".join(rnd.choices(words, k=rnd.randint(1, 9))) for _ in range(150)]
    for query in queries:
        asked = name_phrase(query)
        if not asked or stop.issuperset(asked):
            continue
        hits = matcher.ending_docs(asked)
        assert len(hits) == len(set(hits))
        assert set(hits) == plain(asked), query


def test_name_keys_of_plain_names_take_the_general_paths_result() -> None:
    def normalised(text: str) -> str:  # the general path of name_key
        lowered = unicodedata.normalize("NFKC", text).strip().lower()
        return re.sub(r"[\s_\-./:]+", "_", lowered).strip("_")

    rnd = random.Random(3)
    texts = ["Get-Weather", "get_weather", "__x__", "-", "", "a--b__c", "GitHub_get-Me"]
    texts += ["".join(rnd.choices("aZ9_-", k=rnd.randint(0, 10))) for _ in range(20_000)]
    for text in texts:
        assert name_key(text) == normalised(text)
        assert fold_name(text) == re.sub(r"[\s_\-./:]+", "", text.strip().lower())


def test_batch_tokenizer_gives_the_same_terms_with_cold_and_warm_shared_caches() -> None:
    clear_caches()
    cold = [list(BatchTokenizer().tokenize_name(t)) for t in TEXTS]
    warm_shared = [tokenize_name(t) for t in TEXTS]  # fills the shared cache
    warm = [list(BatchTokenizer().tokenize_name(t)) for t in TEXTS]
    assert cold == warm_shared == warm


def _library(size: int) -> list[ToolDocument]:
    verbs = ["get", "list", "create", "delete", "update", "search"]
    nouns = ["weather", "city", "issue", "repo", "invoice", "meeting", "work_item", "user"]
    docs = []
    for i in range(size):
        verb, noun = verbs[i % len(verbs)], nouns[(i // len(verbs)) % len(nouns)]
        docs.append(
            ToolDocument(
                name=f"{verb}_{noun}_{i}",
                description=f"{verb.title()} the {noun.replace('_', ' ')} number {i % 7}",
                parameters=((f"{noun}_id", f"The {noun} to {verb}"),),
            )
        )
    return docs


@pytest.mark.parametrize(
    "query",
    [
        "get weather",
        "create work item",
        "list open invoices",
        "who am i",
        "get_weather_3",
        "weathr city",
        "delete the meeting of a user",
        "number",
    ],
)
@pytest.mark.parametrize("size", [700, 6_000])  # 6,000: the first batch from the high scores
def test_rank_is_every_positive_rounded_score_sorted_by_score_then_name(
    query: str, size: int
) -> None:
    index = _built(size)  # hundreds of hits: past the first batch of 64
    score, raw = index.scores(query)
    names = [d.name for d in index.documents]
    expected = sorted(
        (
            (-round(float(s), 6), names[i], float(raw[i]))
            for i, s in enumerate(score)
            if s > 0 and round(float(s), 6) > 0
        ),
        key=lambda e: (e[0], e[1]),
    )
    got = [(-h.score, h.name, h.raw_score) for h in index.rank(query)]
    assert got == expected
    assert len(got) > 64 or query in ("who am i", "get_weather_3", "weathr city")


@functools.cache
def _built(size: int) -> BM25ToolIndex:
    return BM25ToolIndex(_library(size))


@pytest.mark.parametrize("query", ["get weather", "delete the meeting of a user", "number"])
def test_a_large_library_takes_the_first_batch_from_the_high_scores(query: str) -> None:
    score, _ = _built(6_000).scores(query)
    first = first_batch(score)
    assert first is not None
    assert first_batch(score[:700]) is None  # small: every hit is scanned


def test_scores_stay_in_the_unit_range() -> None:
    index = BM25ToolIndex(_library(200))
    for query in ("get_weather_0", "get weather city issue repo", "x"):
        score, _ = index.scores(query)
        assert np.all((score >= 0.0) & (score <= 1.0))


def test_spelling_bigram_index_holds_the_words_of_its_definition() -> None:
    """The spelling fallback's bigram index, built with array operations over the
    vocabulary, holds exactly the terms of 3 to 24 ASCII letters, in vocabulary order."""
    from langchain_toolsearch.search import _stages as spelling
    from langchain_toolsearch.search._analysis import bigram_table

    def grams(vocab: list[str]) -> dict[str, list[str]]:
        return bigram_table(vocab, spelling._MIN_CHARS, spelling._MAX_CHARS)

    rnd = random.Random(19)
    vocab = ["ab", "abc", "Abc", "ab1c", "café", "a_b_c", "x" * 24, "y" * 25, "naïve", "get"]
    vocab += ["".join(rnd.choices("abzAZ9_é", k=rnd.randint(1, 27))) for _ in range(5_000)]
    vocab = list(dict.fromkeys(vocab))
    expected: dict[str, list[str]] = {}
    for term in vocab:
        if spelling._word(term):
            for gram in spelling._bigrams(term):
                expected.setdefault(gram, []).append(term)
    assert grams(vocab) == expected
    assert "abc" in grams(["abc", "ab"])["^a"]
    assert grams(["ab", "x1"]) == {}


def _full_osa(a: str, b: str, limit: int) -> int:
    """The spelling fallback's edit distance by its definition: the full table, capped."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return min(prev[-1], limit + 1)


def test_spelling_distance_of_the_band_is_the_full_tables() -> None:
    """``spelling.distance`` computes only the diagonal band (2 * limit + 1 cells a row)."""
    from langchain_toolsearch.search._stages import distance

    rng = random.Random(20)
    pairs = [("naviagte", "navigate"), ("ab", "ba"), ("", "abc"), ("abc", ""), ("ca", "abc")]
    for _ in range(800):
        alphabet = "abc" if rng.random() < 0.5 else "abcdefgh"
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        b = list(a) if rng.random() < 0.6 else [rng.choice(alphabet) for _ in range(12)]
        for _ in range(rng.randint(0, 3)):  # a few slips: replace, delete, insert, swap
            at = rng.randint(0, max(0, len(b) - 2))
            kind = rng.randint(0, 3)
            if kind == 0 and b:
                b[at] = rng.choice(alphabet)
            elif kind == 1 and b:
                del b[at]
            elif kind == 2:
                b.insert(at, rng.choice(alphabet))
            elif len(b) > at + 1:
                b[at], b[at + 1] = b[at + 1], b[at]
        pairs.append((a, "".join(b)))
    for a, b in pairs:
        for limit in (0, 1, 2, 3):
            assert distance(a, b, limit) == _full_osa(a, b, limit), (a, b, limit)


_FIRST_USE_QUERIES = [
    "weathr city",  # a misspelled word: the spelling bigrams
    "getweathercity",  # a name run together: the spelling name endings
    "get_weather_3",  # an exact name
    "who am i",  # function words only
    "get weather",
]


def _top(index: BM25ToolIndex, query: str) -> list[tuple[str, float, float]]:
    return [(h.name, h.score, h.raw_score) for h in itertools.islice(index.rank(query), 10)]


def test_tables_built_on_first_use_rank_the_same_from_many_threads_at_once() -> None:
    """The spelling tables are built by the first query that needs them: queries from 8
    threads at once on a fresh index rank as one thread does, before and after."""
    import threading

    expected = {q: _top(BM25ToolIndex(_library(3_000)), q) for q in _FIRST_USE_QUERIES}
    assert expected["weathr city"] and expected["getweathercity"]
    fresh = BM25ToolIndex(_library(3_000))
    start = threading.Barrier(8)
    got: list[dict[str, list[tuple[str, float, float]]]] = []

    def ask() -> None:
        start.wait()
        got.append({q: _top(fresh, q) for q in _FIRST_USE_QUERIES})

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == [expected] * 8
    assert {q: _top(fresh, q) for q in _FIRST_USE_QUERIES} == expected


def test_split_keys_splits_every_key_as_split_key_does() -> None:
    keys = ["star\x00starred", "star", "issu\x00issues", "get_me", "\x01url", "star\x00stars"]
    terms, tok_term, (at, _), forms = _split_keys(dict(zip(keys, itertools.count())), np.arange(6))
    assert list(terms) == list(dict.fromkeys(split_key(k)[0] for k in keys))
    assert tok_term.tolist() == [terms[split_key(k)[0]] for k in keys]
    assert list(forms) == ["starred", "star", "stars"]  # the forms of a stem written 3 ways
    assert at.tolist() == [0, 1, 5]
    empty = _split_keys({}, np.zeros(0, dtype=np.int64))
    assert (empty[0], empty[1].size, empty[3]) == ({}, 0, {})


def test_name_tables_hold_tuples_the_collector_stops_tracking() -> None:
    """Lists would stay tracked: every full collection in the process walks them."""
    from langchain_toolsearch.search import _stages as spelling

    names = ["get_item", "get-item", "list_open_items", "Get_Item", "close_open_items"]
    matcher = NameMatcher([ToolDocument(name=n, description="") for n in names], BatchTokenizer())
    endings = spelling._Endings(names)
    gc.collect()
    gc.collect()  # a tuple of tuples is untracked once its items are
    tables = [
        *matcher._name_keys.values(),
        *matcher._literal_names.values(),
        *matcher._endings.values(),
        *endings._words_of.values(),
    ]
    assert tables
    assert not any(map(gc.is_tracked, tables))
