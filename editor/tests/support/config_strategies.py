"""Hypothesis strategies for stored tool configuration JSON (agents, MCP clients).

They generate what `parse_agent_config` / `parse_mcp_client` accept: every
operator (the seed's and the extensions) with every kind of value it takes
(``null`` included), empty and nested rule groups, removal
entries of an agent's ``tools``, conditional variants, every allowlist
form and version selector, stdio and HTTP servers with float timeouts.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

_SAFE_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)
NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789-", min_size=1, max_size=10).filter(
    lambda name: name.strip() != ""
)
RECORD_IDS = st.from_regex(r"[A-Za-z0-9_-]{1,20}", fullmatch=True)
FIELDS = st.lists(st.one_of(NAMES, st.integers(0, 3).map(str)), min_size=1, max_size=3).map(
    ".".join
)

INTEGERS = st.integers(-(2**53 - 1), 2**53 - 1)  # what stores keep exactly
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    INTEGERS,
    st.floats(-(2.0**53 - 1), 2.0**53 - 1, allow_nan=False, allow_infinity=False),
    _SAFE_TEXT,
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_SAFE_TEXT, inner, max_size=3)
    ),
    max_leaves=6,
)
NUMBERS = st.one_of(st.integers(-1000, 1000), st.floats(-1e15, 1e15, allow_nan=False))


def _condition() -> st.SearchStrategy[dict[str, Any]]:
    def build(field: str, operator: str, value: Any) -> dict[str, Any]:
        condition: dict[str, Any] = {"field": field, "operator": operator}
        if operator not in ("exists", "not_exists"):
            condition["value"] = value
        return condition

    by_operator = {
        "equals": JSON_VALUES,
        "not_equals": JSON_VALUES,
        "contains": st.one_of(st.booleans(), INTEGERS, _SAFE_TEXT),
        "not_contains": st.one_of(st.booleans(), INTEGERS, _SAFE_TEXT),
        "greater_than": NUMBERS,
        "less_than": NUMBERS,
        "greater_than_or_equal": NUMBERS,
        "less_than_or_equal": NUMBERS,
        "in": st.lists(JSON_VALUES, max_size=3),
        "not_in": st.lists(JSON_VALUES, max_size=3),
        "exists": st.none(),
        "not_exists": st.none(),
        # this package's extensions
        "deep_equals": JSON_VALUES,
        "not_deep_equals": JSON_VALUES,
        "text_greater_than": _SAFE_TEXT,
        "text_less_than": _SAFE_TEXT,
        "text_greater_than_or_equal": _SAFE_TEXT,
        "text_less_than_or_equal": _SAFE_TEXT,
    }
    return st.one_of(
        *(
            st.builds(build, FIELDS, st.just(operator), values)
            for operator, values in by_operator.items()
        )
    )


CONDITIONS = _condition()
RULES: st.SearchStrategy[dict[str, Any]] = st.recursive(
    st.builds(
        lambda op, items: {"operator": op, "conditions": items},
        st.sampled_from(["AND", "OR"]),
        st.lists(CONDITIONS, max_size=3),
    ),
    lambda inner: st.builds(
        lambda op, items: {"operator": op, "conditions": items},
        st.sampled_from(["AND", "OR"]),
        st.lists(st.one_of(CONDITIONS, inner), max_size=3),
    ),
    max_leaves=4,
)


def _optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects where each key may be left out or given (``null`` included where valid)."""
    return st.fixed_dictionaries({}, optional=fields)


ENTRIES = _optional(description=st.one_of(st.none(), _SAFE_TEXT), rules=st.one_of(st.none(), RULES))
SELECTIONS = st.dictionaries(NAMES, ENTRIES, max_size=3)
REMOVALS = _optional(rules=st.one_of(st.none(), RULES)).map(lambda extra: {"remove": True, **extra})
AGENT_SELECTIONS = st.dictionaries(NAMES, st.one_of(ENTRIES, REMOVALS), max_size=3)
VERSIONS = st.one_of(st.none(), st.sampled_from(["draft", "published"]), st.integers(1, 5))
MCP_REFS = _optional(
    tools=st.one_of(st.none(), st.just("*"), SELECTIONS),
    version=VERSIONS,
    rules=st.one_of(st.none(), RULES),
)
SOURCE_REFS = _optional(tools=st.one_of(st.none(), SELECTIONS), rules=st.one_of(st.none(), RULES))


def _conditional(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    variant = _optional(rules=st.one_of(st.none(), RULES)).flatmap(
        lambda extra: value.map(lambda v: {"value": v, **extra})
    )
    return st.one_of(st.none(), value, st.lists(variant, min_size=1, max_size=3))


AGENT_CONFIGS = _optional(
    tools=_conditional(AGENT_SELECTIONS),
    mcp_clients=_conditional(st.dictionaries(RECORD_IDS, MCP_REFS, max_size=3)),
    integration_tools=_conditional(st.dictionaries(NAMES, SOURCE_REFS, max_size=2)),
    tool_providers=_conditional(st.dictionaries(NAMES, SOURCE_REFS, max_size=2)),
)

TIMEOUTS = st.one_of(
    st.none(), st.floats(min_value=0.001, max_value=1e6, allow_nan=False, allow_infinity=False)
)
STDIO_SERVERS = st.builds(
    lambda command, extra: {"command": command, **extra},
    _SAFE_TEXT.filter(bool),
    _optional(
        type=st.just("stdio"),
        args=st.lists(_SAFE_TEXT, max_size=3),
        env=st.one_of(st.none(), st.dictionaries(NAMES, _SAFE_TEXT, max_size=2)),
        timeout=TIMEOUTS,
        tools=st.one_of(st.none(), SELECTIONS),
    ),
)
HTTP_SERVERS = st.builds(
    lambda host, extra: {"url": f"https://{host}.example.com/mcp", **extra},
    NAMES,
    _optional(type=st.just("http"), timeout=TIMEOUTS, tools=st.one_of(st.none(), SELECTIONS)),
)
SERVER_NAMES = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
MCP_CLIENTS = st.builds(
    lambda servers, extra: {"servers": servers, **extra},
    st.dictionaries(SERVER_NAMES, st.one_of(STDIO_SERVERS, HTTP_SERVERS), min_size=1, max_size=3),
    _optional(name=st.one_of(st.none(), _SAFE_TEXT), description=st.one_of(st.none(), _SAFE_TEXT)),
)
