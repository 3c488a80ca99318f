"""Every text the model sees, in one place so it can be reviewed and snapshot-tested.

Nothing here names a tool that the model has not found through ``search_tools``:
error texts for unknown or hidden tools never list the library. Tool text from
others (descriptions from MCP servers and catalogs, mapping keys) reaches the
model only through :func:`model_text`.
"""

from __future__ import annotations

import re

SEARCH_TOOL_NAME = "search_tools"
LOAD_TOOL_NAME = "load_tool"
META_TOOL_NAMES = frozenset({SEARCH_TOOL_NAME, LOAD_TOOL_NAME})

SEARCH_TOOL_DESCRIPTION = (
    "Search the tool library by keywords (what you want to do, names, nouns); "
    "pass queries to search for several needs at once. "
    "Returns matching tools with a short description and a relevance score in [0, 1]; "
    "tools you loaded already are marked loaded. "
    "{followup}"
)
SEARCH_FOLLOWUP_LOAD = "Call load_tool with the names you need to make them callable."
SEARCH_FOLLOWUP_AUTO = "Matching tools are loaded at once and callable from your next step."

LOAD_TOOL_DESCRIPTION = (
    "Make tools found with search_tools callable. Pass tool_name for one tool or "
    "tool_names for several. Loaded tools are available from your next step."
)

SYSTEM_HINT_TWO_STEP = (
    "You have access to a large tool library that is not bound yet. "
    "To use a capability you do not have, first call search_tools with a few keywords, "
    "then call load_tool with the names you need; loaded tools become callable "
    "from your next step."
)
SYSTEM_HINT_ONE_STEP = (
    "You have access to a large tool library that is not bound yet. "
    "To use a capability you do not have, call search_tools with a few keywords; "
    "the tools it returns are loaded at once and become callable from your next step."
)

# search_tools messages
SEARCH_EMPTY_QUERY = "The query is empty. Describe the capability you need in a few words."
SEARCH_NO_RESULTS = (
    "No tools matched '{query}'. Try other keywords: the action, the object, or a service name."
)
SEARCH_UNAVAILABLE = (
    "No tools matched '{query}', but some tools are unavailable right now (a tool source "
    "did not answer). Try again later, or continue with the tools you have."
)
"""Instead of ``SEARCH_NO_RESULTS`` when a tool source failed for this request."""
SEARCH_FAILED = (
    "Search is unavailable right now (the tool index did not answer). Try again later, or "
    "continue with the tools you have."
)
"""The answer of ``search_tools`` when the search itself failed (an index or store outage)."""
SEARCH_SOME_UNAVAILABLE = " Some tools are unavailable right now (a tool source did not answer)."
"""Appended to a search's message when a tool source failed for this request."""
SEARCH_FOUND = "Found {count} tool(s). {followup}"
SEARCH_FOUND_FOLLOWUP_LOAD = "Load the ones you need with load_tool."
SEARCH_FOUND_FOLLOWUP_AUTO = "They are loaded and callable from your next step."
SEARCH_FOUND_AUTO_DETAIL = " Newly loaded: {loaded}. Already loaded: {already}."
SEARCH_QUERY_TOO_LONG = "The query was longer than {limit} characters and was cut to that length."
SEARCH_BAD_FORM = (
    "Error: pass query as one search (a string) or queries as a list of searches, "
    'e.g. queries=["find a route", "book a restaurant"].'
)
SEARCH_TOO_MANY = "Too many queries ({count}); search for at most {limit} needs at once."
SEARCH_FOUND_NEEDS = (
    "Found {count} tool(s) for {needs} queries; each result's query says which one it "
    "answers. {followup}"
)
SEARCH_NEEDS_UNMATCHED = " Nothing matched: {queries}; try other keywords for it."
SEARCH_SOME_LOADED = " Results marked loaded are callable already."

# the catalog in the system hint (inject_catalog=True)
CATALOG_INTRO_LOAD = (
    "These tools can be loaded without searching: call load_tool with the names you "
    "need. search_tools finds tools by keyword too."
)
CATALOG_INTRO_AUTO = (
    "These tools are in the library: call search_tools with a tool's name to load it."
)
CATALOG_HEADER = "Available tools:"
CATALOG_LINE = "- `{name}`: {description}"
CATALOG_LINE_BARE = "- `{name}`"
CATALOG_TRUNCATED = "- ... and more tools, not listed here: use search_tools to find them."

# load_tool messages
LOAD_NO_NAMES = "Pass tool_name (one name) or tool_names (a non-empty list of names)."
LOAD_BAD_FORM = (
    "Error: pass tool_name as one name (a string) or tool_names as a list of names, "
    'e.g. tool_names=["get_weather", "send_email"].'
)
LOAD_EMPTY_LIST = "tool_names is an empty list. Pass at least one tool name."
LOAD_TOO_MANY = "Too many names ({count}); load at most {limit} at once."
LOAD_LOADED = "Loaded: {names}. They are callable from your next step."
LOAD_ALREADY = "Already loaded: {names}."
LOAD_NOT_FOUND = "Not found: {names}."
LOAD_SUGGEST = " Did you mean: {names}?"
LOAD_SEARCH_HINT = " Use search_tools to find tool names."
LOAD_NOT_PERSISTED = (
    "Error: nothing was loaded, because this graph cannot store loaded tools "
    "(its state has no toolsearch_loaded / toolsearch_tools keys). "
    "Continue with the tools you have."
)
LOAD_NO_STORE = (
    "Error: nothing was loaded, because no store for loaded tools is configured "
    "for this agent. Continue with the tools you have."
)

# execution guard
TOOL_NOT_LOADED = (
    "Error: this tool is not available. Use search_tools to find a tool for this "
    "task and load_tool to load it, then call it."
)
"""Same text for unknown, hidden and not-loaded tools: it names no tool, not even the one
called, so the answer never tells a hidden tool from a missing one."""
TOOL_NOT_LOADED_AUTO = (
    "Error: this tool is not available. Use search_tools to find a tool for this task "
    "(its results are loaded at once), then call it."
)
"""The same, with ``auto_load`` (there is no ``load_tool``)."""
TOOL_LOADED_THIS_STEP = (
    "Error: this tool was loaded in this same step and is callable from your next "
    "step: call it again now."
)
TOOL_SCHEMA_UNUSABLE = (
    "Error: this tool cannot be used: its input schema is invalid. "
    "Use search_tools to find another tool for this task."
)
TOOL_SUGGEST = " Tools with a similar name: {names}."
"""Appended to the not-available answer of a direct call: the names ``load_tool`` would
suggest for the called name (only tools this caller may see and load)."""
TOOL_FAILED_NO_TEXT = "Error: the tool '{name}' failed without an error message."

ARGUMENT_ERROR = "Error: invalid arguments for {tool}: {detail}"

TOOL_OUTPUT_TRUNCATED = (
    "\n[output truncated: the first {shown:,} of {total:,} characters are shown{dropped}. "
    "Ask the tool for less: narrower arguments, a filter, or one page at a time.]"
)
"""Appended to a tool's output cut at its character bound (``max_output_chars``)."""
TOOL_OUTPUT_DROPPED = "; {count} non-text block(s) that did not fit were left out"


# tool text from others, as the model sees it
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]{0,64}[ -/]{0,16}[@-~]"  # CSI: colours, cursor moves ("\x1b[31m")
    r"|\x1b\][^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)"  # OSC: window titles, links
)
"""Terminal escape sequences, dropped whole (dropping only ESC would show ``[31m``). Only
the ESC forms: a lone C1 character is more often mis-decoded text (cp1252's U+203A is
``\\x9b``) than a terminal's 8-bit CSI, so it is dropped alone, never with the letter after
it. The repeats are bounded: a hostile run costs at most 64 (4,096) steps per ESC."""
_HIDDEN = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f"  # C0, DEL, C1 controls that are not whitespace
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, isolates
    "\ud800-\udfff"  # lone surrogates: no UTF-8 encoding, a request carrying one fails
    "\U000e0000-\U000e007f]+"  # tag characters: invisible ASCII a model reads
)
"""Characters dropped from tool text. Whitespace controls (tab, newlines, ``\\x1c``-``\\x1f``,
NEL) become spaces instead; ZWJ and ZWNJ (U+200D, U+200C) stay: emoji sequences and
Persian and Indic scripts need them. Tag characters (U+E0000-U+E007F) spell ASCII text no
reader sees ("ASCII smuggling"); a subdivision flag (England's) shows as the plain black
flag without them. A lone surrogate (``json.loads`` accepts ``"\\ud800"``) would make the
request that carries it fail to encode as UTF-8 at the provider's client."""


def model_text(text: str) -> str:
    """``text`` as the model may see it: one line, no control or bidi characters.

    Terminal escape sequences (CSI, OSC) are dropped whole, other control
    characters (C0, DEL, C1), the bidirectional controls (U+061C, U+200E,
    U+200F, U+202A-U+202E, U+2066-U+2069), tag characters (U+E0000-U+E007F)
    and lone surrogates are dropped, and runs of whitespace
    (tabs and newlines included) become one space. Text of any script, emoji,
    ZWJ and ZWNJ are kept. Linear in ``len(text)``.

    Args:
        text: Tool text from a third party (a description, a mapping key).

    Returns:
        The cleaned text, without leading or trailing spaces.
    """
    if _HIDDEN.search(text) is not None:
        text = _HIDDEN.sub("", _ESCAPE_SEQUENCE.sub("", text))
    return " ".join(text.split())
