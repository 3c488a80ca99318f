"""Snapshot of every text the model sees (``_prompts.py`` and the meta tools'
bound schemas). A change here is a change to the prompt: update the snapshot
on purpose, in review.
"""

from __future__ import annotations

from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from tests.support.library_fixtures import library

SNAPSHOT: dict[str, str] = {
    "CALL_TOOL_DESCRIPTION": "Call a loaded tool: tool_name is its name, arguments an object matching the parameters its definition lists (in the answer that loaded it).",
    "CALL_TOOL_META": "Error: call_tool calls loaded tools; call search_tools and load_tool directly.",
    "CALL_TOOL_NAME": "call_tool",
    "SYSTEM_HINT_STABLE": " Loaded tools are not bound: call them with call_tool(tool_name, arguments), the arguments matching the definition that search_tools or load_tool returned.",
    "ARGUMENT_ERROR": "Error: invalid arguments for {tool}: {detail}",
    "ARGUMENTS_NOT_OBJECT": "Error: invalid arguments: got {detail}; expected an object of named arguments, as the tool's schema describes.",
    "CATALOG_HEADER": "Available tools:",
    "CATALOG_INTRO_AUTO": "These tools are in the library: call search_tools with a tool's name to load it.",
    "CATALOG_INTRO_LOAD": "These tools can be loaded without searching: call load_tool with the names you need. search_tools finds tools by keyword too.",
    "CATALOG_LINE": "- `{name}`: {description}",
    "CATALOG_LINE_BARE": "- `{name}`",
    "CATALOG_TRUNCATED": "- ... and more tools, not listed here: use search_tools to find them.",
    "LOAD_ALREADY": "Already loaded: {names}.",
    "LOAD_BAD_FORM": 'Error: pass tool_name as one name (a string) or tool_names as a list of names, e.g. tool_names=["get_weather", "send_email"].',
    "LOAD_EMPTY_LIST": "tool_names is an empty list. Pass at least one tool name.",
    "LOAD_LOADED": "Loaded: {names}. They are callable from your next step.",
    "LOAD_NOT_FOUND": "Not found: {names}.",
    "LOAD_NOT_PERSISTED": "Error: nothing was loaded, because this graph cannot store loaded tools (its state has no toolsearch_loaded / toolsearch_tools keys). Continue with the tools you have.",
    "LOAD_NO_NAMES": "Pass tool_name (one name) or tool_names (a non-empty list of names).",
    "LOAD_NO_STORE": "Error: nothing was loaded, because no store for loaded tools is configured for this agent. Continue with the tools you have.",
    "LOAD_SEARCH_HINT": " Use search_tools to find tool names.",
    "LOAD_SUGGEST": " Did you mean: {names}?",
    "LOAD_TOOL_DESCRIPTION": "Make tools found with search_tools callable. Pass tool_name for one tool or tool_names for several. Loaded tools are available from your next step.",
    "LOAD_TOOL_NAME": "load_tool",
    "LOAD_TOO_MANY": "Too many names ({count}); load at most {limit} at once.",
    "SEARCH_BAD_FORM": 'Error: pass query as one search (a string) or queries as a list of searches, e.g. queries=["find a route", "book a restaurant"].',
    "SEARCH_EMPTY_QUERY": "The query is empty. Describe the capability you need in a few words.",
    "SEARCH_FOLLOWUP_AUTO": "Matching tools are loaded at once and callable from your next step.",
    "SEARCH_FOLLOWUP_LOAD": "Call load_tool with the names you need to make them callable.",
    "SEARCH_FOUND": "Found {count} tool(s). {followup}",
    "SEARCH_FOUND_AUTO_DETAIL": " Newly loaded: {loaded}. Already loaded: {already}.",
    "SEARCH_FOUND_FOLLOWUP_AUTO": "They are loaded and callable from your next step.",
    "SEARCH_FOUND_FOLLOWUP_LOAD": "Load the ones you need with load_tool.",
    "SEARCH_FOUND_NEEDS": "Found {count} tool(s) for {needs} queries; each result's query says which one it answers. {followup}",
    "SEARCH_NEEDS_UNMATCHED": " Nothing matched: {queries}; try other keywords for it.",
    "SEARCH_NO_RESULTS": "No tools matched '{query}'. Try other keywords: the action, the object, or a service name.",
    "SEARCH_STORE_FAILED": "Search is unavailable right now: the store that keeps this conversation's loaded tools did not answer (the tool index is fine). Try again later, or continue with the tools you have.",
    "CALL_OUTCOME_UNKNOWN": "Error: this call of {tool} started before the run was interrupted (a crash or a stop mid-call), and {tool} may not run twice, so it was not run again. Its outcome is unknown: it may or may not have taken effect. Check before calling it again.",
    "SEARCH_FAILED": "Search is unavailable right now (the tool index did not answer). Try again later, or continue with the tools you have.",
    "SEARCH_SOME_UNAVAILABLE": " Some tools are unavailable right now (a tool source did not answer).",
    "SEARCH_UNAVAILABLE": "No tools matched '{query}', but some tools are unavailable right now (a tool source did not answer). Try again later, or continue with the tools you have.",
    "SEARCH_QUERY_TOO_LONG": "The query was longer than {limit} characters and was cut to that length.",
    "SEARCH_SOME_LOADED": " Results marked loaded are callable already.",
    "SEARCH_WORDS_UNMATCHED": " No tool matched these words: {words}; if they say what you need, rephrase them.",
    "SEARCH_TOOL_DESCRIPTION": "Search the tool library by keywords (what you want to do, names, nouns); pass queries to search for several needs at once. Returns matching tools with a short description and a relevance score in [0, 1]; tools you loaded already are marked loaded. {followup}",
    "SEARCH_TOOL_DESCRIPTION_NATIVE": "Search the tool library by keywords (what you want to do, names, nouns); pass queries to search for several needs at once. The matching tools' definitions are returned and they are callable from your next step.",
    "SEARCH_TOOL_NAME": "search_tools",
    "SEARCH_TOO_MANY": "Too many queries ({count}); search for at most {limit} needs at once.",
    "SYSTEM_HINT_ONE_STEP": "You have access to a large tool library that is not bound yet. To use a capability you do not have, call search_tools with a few keywords; the tools it returns are loaded at once and become callable from your next step.",
    "SYSTEM_HINT_NATIVE": "You have access to a large tool library whose tools are deferred. To use a capability you do not have, call search_tools with a few keywords; the tools it returns become callable from your next step.",
    "SYSTEM_HINT_TWO_STEP": "You have access to a large tool library that is not bound yet. To use a capability you do not have, first call search_tools with a few keywords, then call load_tool with the names you need; loaded tools become callable from your next step.",
    "TOOL_OUTPUT_DROPPED": "; {count} non-text block(s) that did not fit were left out",
    "TOOL_OUTPUT_TRUNCATED": "\n[output truncated: the first {shown:,} of {total:,} characters are shown{dropped}. Ask the tool for less: narrower arguments, a filter, or one page at a time.]",
    "TOOL_FAILED_NO_TEXT": "Error: the tool '{name}' failed without an error message.",
    "TOOL_LOADED_THIS_STEP": "Error: this tool was loaded in this same step and is callable from your next step: call it again now.",
    "TOOL_NOT_LOADED": "Error: this tool is not available. Use search_tools to find a tool for this task and load_tool to load it, then call it.",
    "TOOL_NOT_LOADED_AUTO": "Error: this tool is not available. Use search_tools to find a tool for this task (its results are loaded at once), then call it.",
    "TOOL_LOADED_ON_CALL": "Error: {name} was not loaded, so this call did not run. It is loaded now and callable from your next step: call it again. Its parameters (JSON schema): {parameters}",
    "TOOL_LOADED_ON_CALL_STABLE": 'Error: {name} was not loaded, so this call did not run. It is loaded now and callable from your next step with call_tool(tool_name="{name}", arguments=...), the arguments matching its parameters (JSON schema): {parameters}',
    "TOOL_SCHEMA_UNUSABLE": "Error: this tool cannot be used: its input schema is invalid. Use search_tools to find another tool for this task.",
    "TOOL_SUGGEST": " Tools with a similar name: {names}.",
    "WORKING_SET_EVICTED": "To keep the tool list short, these tools you loaded earlier were unloaded (the least recently used go first): {names}. Load them again with {how} when you need them.",
    "WORKING_SET_HOW_AUTO": "search_tools",
    "WORKING_SET_HOW_LOAD": "load_tool",
    "WORKING_SET_MORE": " and {count} more",
}

QUERY_PARAM = {
    "type": "string",
    "default": None,
    "description": 'Keywords for the capability you need, e.g. "create github issue".',
}
QUERIES_PARAM = {
    "type": "array",
    "items": {"type": "string"},
    "default": None,
    "description": 'Several needs at once, keywords for each, e.g. ["find a route", "book a table"].',
}
SEARCH_SCHEMA = {
    "type": "object",
    "properties": {"query": QUERY_PARAM, "queries": QUERIES_PARAM},
}
LOAD_SCHEMA = {
    "type": "object",
    "properties": {
        "tool_name": {
            "type": "string",
            "default": None,
            "description": "One tool name from search_tools results.",
        },
        "tool_names": {
            "type": "array",
            "items": {"type": "string"},
            "default": None,
            "description": "Several tool names from search_tools results.",
        },
    },
}
SEARCH_DESCRIPTION = (
    "Search the tool library by keywords (what you want to do, names, nouns); pass queries "
    "to search for several needs at once. Returns matching tools with a short description "
    "and a relevance score in [0, 1]; tools you loaded already are marked loaded. "
)


def test_every_prompt_text_matches_the_snapshot() -> None:
    texts = {k: v for k, v in vars(P).items() if k.isupper() and isinstance(v, str)}
    expected = dict(SNAPSHOT)
    assert texts == expected
    meta = P.META_TOOL_NAMES
    assert meta == frozenset({"search_tools", "load_tool", "call_tool"})


def test_placeholders_format() -> None:
    # every template formats with the fields the code passes (no stray braces)
    fields: dict[str, Any] = dict(
        names="a",
        query="q",
        count=1,
        followup="f",
        loaded="l",
        already="a",
        limit=2,
        name="n",
        tool="t",
        detail="d",
        needs=2,
        queries="q",
        description="d",
        shown=1,
        total=2,
        dropped="",
        how="load_tool",
        words="w",
        parameters="p",
    )
    for key, text in SNAPSHOT.items():
        assert "{" not in text.format(**fields), key


def _schemas(tools: Any) -> list[dict[str, Any]]:
    return [convert_to_openai_tool(t) for t in tools]


def test_meta_tool_schemas_match_the_snapshot() -> None:
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        two = _schemas(cls(tools=library()).meta_tools)
        assert two == [
            {
                "type": "function",
                "function": {
                    "name": "search_tools",
                    "description": SEARCH_DESCRIPTION + P.SEARCH_FOLLOWUP_LOAD,
                    "parameters": SEARCH_SCHEMA,
                },
            },
            {
                "type": "function",
                "function": {
                    "name": "load_tool",
                    "description": P.LOAD_TOOL_DESCRIPTION,
                    "parameters": LOAD_SCHEMA,
                },
            },
        ]
        one = _schemas(cls(tools=library(), auto_load=True).meta_tools)
        assert one == [
            {
                "type": "function",
                "function": {
                    "name": "search_tools",
                    "description": SEARCH_DESCRIPTION + P.SEARCH_FOLLOWUP_AUTO,
                    "parameters": SEARCH_SCHEMA,
                },
            }
        ]
