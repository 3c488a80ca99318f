"""Every text the model sees, in one place so it can be reviewed and snapshot-tested.

No text names a tool the model has not found; third-party text reaches the model only
through :func:`model_text`.
"""

from __future__ import annotations

import operator
import re
from typing import Any

SEARCH_TOOL_NAME = "search_tools"
LOAD_TOOL_NAME = "load_tool"
CALL_TOOL_NAME = "call_tool"
META_TOOL_NAMES = frozenset({SEARCH_TOOL_NAME, LOAD_TOOL_NAME, CALL_TOOL_NAME})

SEARCH_TOOL_DESCRIPTION = (
    "Search the tool library by keywords (what you want to do, names, nouns); "
    "pass queries to search for several needs at once. "
    "Returns matching tools with a short description and a relevance score in [0, 1]; "
    "tools you loaded already are marked loaded. "
    "{followup}"
)
SEARCH_FOLLOWUP_LOAD = "Call load_tool with the names you need to make them callable."
SEARCH_TOOL_DESCRIPTION_NATIVE = (
    "Search the tool library by keywords (what you want to do, names, nouns); "
    "pass queries to search for several needs at once. "
    "The matching tools' definitions are returned and they are callable from your next step."
)

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

CALL_TOOL_DESCRIPTION = (
    "Call a loaded tool: tool_name is its name, arguments an object matching the parameters "
    "its definition lists (in the answer that loaded it)."
)
SYSTEM_HINT_STABLE = (
    " Loaded tools are not bound: call them with call_tool(tool_name, arguments), the "
    "arguments matching the definition that search_tools or load_tool returned."
)
"""Appended to the hint with ``mode="stable"``."""
CALL_TOOL_META = "Error: call_tool calls loaded tools; call search_tools and load_tool directly."

SYSTEM_HINT_NATIVE = (
    "You have access to a large tool library whose tools are deferred. "
    "To use a capability you do not have, call search_tools with a few keywords; "
    "the tools it returns become callable from your next step."
)
WORKING_SET_EVICTED = (
    "To keep the tool list short, these tools you loaded earlier were unloaded (the least "
    "recently used go first): {names}. Load them again with {how} when you need them."
)
"""Appended to the hint while loaded tools are outside the working set (``{names}``: the
most recently used).
"""
WORKING_SET_HOW_LOAD = "load_tool"
WORKING_SET_HOW_AUTO = "search_tools"
WORKING_SET_MORE = " and {count} more"
"""After the names in ``WORKING_SET_EVICTED`` when more were unloaded than listed."""

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
"""``search_tools``' answer when the search itself failed (an index or store outage)."""
SEARCH_STORE_FAILED = (
    "Search is unavailable right now: the store that keeps this conversation's loaded tools "
    "did not answer (the tool index is fine). Try again later, or continue with the tools "
    "you have."
)
"""``search_tools``' answer when reading or writing the thread's loads failed."""
CALL_OUTCOME_UNKNOWN = (
    "Error: this call of {tool} started before the run was interrupted (a crash or a "
    "stop mid-call), and {tool} may not run twice, so it was not run again. Its outcome is "
    "unknown: it may or may not have taken effect. Check before calling it again."
)
"""The answer to a non-idempotent tool call a resumed step would run a second time."""
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
SEARCH_WORDS_UNMATCHED = (
    " No tool matched these words: {words}; if they say what you need, rephrase them."
)
"""Appended to a search's message: query words that matched no tool the model may see."""

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
"""One text for unknown, hidden and not-loaded tools, naming no tool (not even the one called)."""
TOOL_NOT_LOADED_AUTO = (
    "Error: this tool is not available. Use search_tools to find a tool for this task "
    "(its results are loaded at once), then call it."
)
"""The same, with ``auto_load`` (there is no ``load_tool``)."""
TOOL_LOADED_THIS_STEP = (
    "Error: this tool was loaded in this same step and is callable from your next "
    "step: call it again now."
)
TOOL_LOADED_ON_CALL = (
    "Error: {name} was not loaded, so this call did not run. It is loaded now and callable "
    "from your next step: call it again. Its parameters (JSON schema): {parameters}"
)
"""``load_on_call``: the answer to a call of an allowed library tool that was not loaded."""
TOOL_LOADED_ON_CALL_STABLE = (
    "Error: {name} was not loaded, so this call did not run. It is loaded now and callable "
    'from your next step with call_tool(tool_name="{name}", arguments=...), the arguments '
    "matching its parameters (JSON schema): {parameters}"
)
"""The same with ``mode="stable"``: a loaded tool is never bound, ``call_tool`` runs it."""
TOOL_SCHEMA_UNUSABLE = (
    "Error: this tool cannot be used: its input schema is invalid. "
    "Use search_tools to find another tool for this task."
)
TOOL_SUGGEST = " Tools with a similar name: {names}."
"""Appended to a direct call's not-available answer: ``load_tool``'s suggestions."""
TOOL_FAILED_NO_TEXT = "Error: the tool '{name}' failed without an error message."

ARGUMENT_ERROR = "Error: invalid arguments for {tool}: {detail}"
ARGUMENTS_NOT_OBJECT = (
    "Error: invalid arguments: got {detail}; expected an object of named arguments, as "
    "the tool's schema describes."
)

TOOL_OUTPUT_TRUNCATED = (
    "\n[output truncated: the first {shown:,} of {total:,} characters are shown{dropped}. "
    "Ask the tool for less: narrower arguments, a filter, or one page at a time.]"
)
"""Appended to a tool's output cut at ``max_output_chars``."""
TOOL_OUTPUT_DROPPED = "; {count} non-text block(s) that did not fit were left out"


# tool text from others, as the model sees it
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]{0,64}[ -/]{0,16}[@-~]"  # CSI: colours, cursor moves ("\x1b[31m")
    r"|\x1b\][^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)"  # OSC: window titles, links
)
"""Terminal escape sequences (ESC forms only; a lone C1 is dropped alone), bounded repeats."""
_HIDDEN = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f"  # C0, DEL, C1 controls that are not whitespace
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f"  # soft hyphen, CGJ, fillers, FVS
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, isolates
    "\u200b\u2060-\u2064\u206a-\u206f\ufeff"  # zero-width space, joiners, BOM, invisibles
    "\u3164\uffa0\ufe00-\ufe0d\ufff9-\ufffb"  # Hangul fillers, VS1-14, interlinear notes
    "\ud800-\udfff"  # lone surrogates: no UTF-8 encoding, a request carrying one fails
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"  # format controls
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]+"  # tag characters, VS17-256
)
"""HIDDEN: invisible and format characters that can carry text, dropped from model-bound text.

C0, DEL and C1 controls but whitespace; format characters (Cf) but the visible
prepended concatenation marks (U+0600-U+0605, U+06DD, U+070F, U+0890-U+0891, U+08E2,
U+110BD, U+110CD); lone surrogates; variation selectors (U+180B-U+180D, U+180F,
U+FE00-U+FE0F, U+E0100-U+E01EF) and fillers (U+034F, U+115F, U+1160, U+17B4, U+17B5,
U+3164, U+FFA0, U+00AD). Conditional (:data:`_JOINERS`): ZWNJ/ZWJ stay between letters
of a joining script, ZWJ between emoji, VS15/VS16 once after an emoji base.
"""
_CONDITIONAL = frozenset("\u200c\u200d\ufe0e\ufe0f")
_JOINERS = re.compile(f"[{''.join(sorted(_CONDITIONAL))}]")
"""The conditional members of :data:`_HIDDEN`: kept only in context."""
_JOINING_SCRIPT = re.compile(
    "[\u0600-\u08ff\u0900-\u0dff\u0f00-\u0fff\u1000-\u109f\u1780-\u18af"
    "\ua800-\uabff\ufb50-\ufdff\ufe70-\ufefe\U00011000-\U000111ff]"
)
"""Letters and marks of the scripts whose words use ZWNJ/ZWJ (by block)."""
_EMOJI = re.compile(
    "[#*0-9\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21ff\u2300-\u23ff\u24c2"
    "\u25a0-\u27bf\u2900-\u297f\u2b00-\u2bff\u3030\u303d\u3297\u3299"
    "\U0001f000-\U0001faff]"
)
"""Emoji bases (by block): what VS15/VS16 follow and what ZWJ sequences join."""
_LAYOUT_SPACE = re.compile("[\x0b\x0c\x1c-\x1f\x85\u2028\u2029]")
"""Whitespace controls other than tab, CR and LF: line breaks where text keeps its lines."""


def _joiner_kept(text: str, at: int) -> bool:
    """Whether the conditional character at ``text[at]`` stays (see :data:`_HIDDEN`)."""
    char = text[at]
    before = text[at - 1] if at > 0 else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if char in "\ufe0e\ufe0f":
        return bool(before) and _EMOJI.match(before) is not None
    if before and after and _JOINING_SCRIPT.match(before) and _JOINING_SCRIPT.match(after):
        return True
    if char == "\u200d" and after and _EMOJI.match(after):
        base = text[at - 2] if before == "\ufe0f" and at > 1 else before
        return bool(base) and _EMOJI.match(base) is not None
    return False


def _drop_hidden(text: str) -> str:
    text = _HIDDEN.sub("", _ESCAPE_SEQUENCE.sub("", text))
    if _JOINERS.search(text) is None:
        return text
    kept = (c for i, c in enumerate(text) if c not in _CONDITIONAL or _joiner_kept(text, i))
    return "".join(kept)


def model_text(text: str, *, lines: bool = False) -> str:
    """``text`` as the model may see it: no member of :data:`_HIDDEN`, one line by default.

    The one sanitiser of model-bound text. Escape sequences (CSI, OSC) are dropped whole;
    text of any script, emoji sequences and in-word joiners are kept. Linear time.

    Args:
        text: Text from a third party (a description, a mapping key, a tool's output).
        lines: Keep tabs and line breaks (other whitespace controls become breaks)
            instead of one line with single spaces, stripped.

    Returns:
        The cleaned text; ``text`` itself when ``lines`` and nothing changes.
    """
    if _HIDDEN.search(text) is not None or (
        not text.isascii() and _JOINERS.search(text) is not None
    ):
        text = _drop_hidden(text)
    if lines:
        return _LAYOUT_SPACE.sub("\n", text) if _LAYOUT_SPACE.search(text) else text
    return " ".join(text.split())


def model_content(content: str | list[Any]) -> str | list[Any]:
    """A message content with each text through ``model_text`` (lines kept; other blocks as is).

    Args:
        content: A ``ToolMessage``'s content (a string or a list of blocks).
    """
    if isinstance(content, str):
        return model_text(content, lines=True)
    out: list[Any] = []
    for block in content:
        if isinstance(block, str):
            out.append(model_text(block, lines=True))
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            text = model_text(block["text"], lines=True)
            out.append(block if text == block["text"] else {**block, "text": text})
        else:
            out.append(block)
    return content if all(map(operator.is_, out, content)) else out
