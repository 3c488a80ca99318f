"""Rules (SPEC section 10): every operator, nesting, dot paths, the request context,
and bad rule data rejected when saved with a message naming the field."""

from __future__ import annotations

import dataclasses
import logging
from enum import StrEnum
from typing import Any

import pytest
from langchain_core.runnables.config import var_child_runnable_config
from pydantic import BaseModel

from langchain_toolsearch_editor import (
    RuleGroup,
    ToolConfigStore,
    evaluate_rules,
    parse_rules,
    request_context,
)
from langchain_toolsearch_editor._parsing import MISSING, lookup
from langchain_toolsearch_editor._rules import (
    CONDITION_OPERATORS,
    EXTENSION_OPERATORS,
    SEED_OPERATORS,
)
from langchain_toolsearch_editor.errors import ToolConfigError


def cond(field: str, operator: str, value: Any = ...) -> dict[str, Any]:
    out: dict[str, Any] = {"field": field, "operator": operator}
    if value is not ...:
        out["value"] = value
    return out


def AND(*items: dict[str, Any]) -> dict[str, Any]:
    return {"operator": "AND", "conditions": list(items)}


def OR(*items: dict[str, Any]) -> dict[str, Any]:
    return {"operator": "OR", "conditions": list(items)}


class Plan(StrEnum):
    FREE = "free"
    PRO = "pro"


CTX: dict[str, Any] = {
    "plan": "pro",
    "seats": 12,
    "ratio": 0.5,
    "beta": True,
    "nothing": None,
    "since": "2024-06-01",
    "roles": ["admin", "dev"],
    "user": {"name": "Ada Lovelace", "org": {"tier": 3, "flags": {"sso": True}}},
    "teams": [{"name": "core"}, {"name": "infra"}],
    "enum_plan": Plan.PRO,
}

# (operator, field, value, expected)
OPERATOR_CASES: list[tuple[str, str, Any, bool]] = [
    # equals / not_equals
    ("equals", "plan", "pro", True),
    ("equals", "plan", "free", False),
    ("equals", "seats", 12, True),
    ("equals", "seats", 12.0, True),
    ("equals", "seats", "12", False),  # no string/number coercion
    ("equals", "beta", True, True),
    ("equals", "beta", 1, False),  # booleans never equal numbers
    ("equals", "seats", True, False),
    ("equals", "roles", ["admin", "dev"], False),  # === on lists: never (as the seed)
    ("equals", "user.org", {"tier": 3}, False),  # nor on objects
    ("equals", "user.org.tier", 3, True),
    ("equals", "enum_plan", "pro", True),  # StrEnum values compare as strings
    ("equals", "missing", "pro", False),
    ("equals", "nothing", None, True),
    ("not_equals", "plan", "free", True),
    ("not_equals", "plan", "pro", False),
    ("not_equals", "missing", "pro", True),  # exact negation of equals
    ("not_equals", "roles", ["admin", "dev"], True),
    # contains / not_contains
    ("contains", "user.name", "Love", True),
    ("contains", "user.name", "love", False),  # case-sensitive
    ("contains", "roles", "admin", True),
    ("contains", "roles", "owner", False),
    ("contains", "user.org", "tier", False),  # an object contains nothing (as the seed)
    ("contains", "seats", 1, False),  # a number contains nothing
    ("contains", "since", 2024, False),  # two strings only, as the seed's evaluator
    ("contains", "user.name", True, False),
    ("contains", "missing", "x", False),
    ("not_contains", "roles", "owner", True),
    ("not_contains", "roles", "admin", False),
    ("not_contains", "missing", "x", True),
    ("not_contains", "user.org", "tier", True),  # the negation, on other types too
    # ordering
    ("greater_than", "seats", 10, True),
    ("greater_than", "seats", 12, False),
    ("greater_than", "ratio", 0.25, True),
    ("greater_than", "plan", 3, False),  # mismatched types never match
    ("greater_than", "beta", 0, False),  # booleans are not numbers
    ("greater_than", "missing", 0, False),
    ("less_than", "seats", 13, True),
    ("less_than", "seats", 12, False),
    ("less_than", "missing", 100, False),
    ("greater_than_or_equal", "seats", 12, True),
    ("greater_than_or_equal", "seats", 13, False),
    ("greater_than_or_equal", "user.org.tier", 3, True),
    ("greater_than_or_equal", "missing", 0, False),
    ("less_than_or_equal", "seats", 12, True),
    ("less_than_or_equal", "seats", 11, False),
    ("less_than_or_equal", "missing", 0, False),
    # in / not_in
    ("in", "plan", ["pro", "enterprise"], True),
    ("in", "plan", ["free"], False),
    ("in", "seats", [1, 12], True),
    ("in", "beta", [1], False),
    ("in", "roles", ["owner", "admin"], False),  # a list field is never === an item
    ("in", "roles", [["admin", "dev"]], False),
    ("in", "user.org", [{"tier": 3}], False),
    ("in", "missing", ["pro"], False),
    ("in", "plan", [], False),
    ("not_in", "plan", ["free"], True),
    ("not_in", "plan", ["pro"], False),
    ("not_in", "roles", ["admin"], True),  # the negation
    ("not_in", "missing", ["pro"], True),
    # exists / not_exists
    ("exists", "plan", ..., True),
    ("exists", "user.org.flags.sso", ..., True),
    ("exists", "missing", ..., False),
    ("exists", "nothing", ..., False),  # null counts as absent
    ("exists", "user.missing.deeper", ..., False),
    ("not_exists", "missing", ..., True),
    ("not_exists", "nothing", ..., True),
    ("not_exists", "plan", ..., False),
    # dot paths through lists
    ("equals", "teams.1.name", "infra", True),
    ("exists", "teams.5.name", ..., False),
    ("equals", "roles.0", "admin", True),
    ("exists", "roles.x", ..., False),
    # extensions: value equality, text order
    ("deep_equals", "roles", ["admin", "dev"], True),
    ("deep_equals", "roles", ["dev", "admin"], False),
    ("deep_equals", "user.org", {"tier": 3, "flags": {"sso": True}}, True),
    ("deep_equals", "user.org", {"tier": 3}, False),
    ("deep_equals", "seats", 12.0, True),
    ("deep_equals", "beta", 1, False),
    ("deep_equals", "missing", None, False),
    ("not_deep_equals", "roles", ["admin", "dev"], False),
    ("not_deep_equals", "missing", ["x"], True),
    ("text_greater_than", "since", "2024-01-01", True),  # ISO dates order as text
    ("text_greater_than", "since", "2024-06-01", False),
    ("text_greater_than", "seats", "1", False),  # two strings only
    ("text_less_than", "since", "2024-06-02", True),
    ("text_less_than", "missing", "z", False),
    ("text_greater_than_or_equal", "since", "2024-06-01", True),
    ("text_less_than_or_equal", "since", "2024-06-01", True),
    ("text_less_than_or_equal", "since", "2024-05-31", False),
]


@pytest.mark.parametrize(("operator", "field", "value", "expected"), OPERATOR_CASES)
def test_every_operator(operator: str, field: str, value: Any, expected: bool) -> None:
    rules = AND(cond(field, operator, value))
    assert evaluate_rules(rules, CTX) is expected
    # the same condition through a validated RuleGroup
    assert evaluate_rules(RuleGroup.model_validate(rules), CTX) is expected


def test_the_table_covers_every_operator() -> None:
    assert {case[0] for case in OPERATOR_CASES} == set(CONDITION_OPERATORS)
    assert len(SEED_OPERATORS) == 12 and len(CONDITION_OPERATORS) == 18
    assert set(SEED_OPERATORS) | set(EXTENSION_OPERATORS) == set(CONDITION_OPERATORS)


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (AND(cond("plan", "equals", "pro"), cond("seats", "greater_than", 10)), True),
        (AND(cond("plan", "equals", "pro"), cond("seats", "greater_than", 20)), False),
        (OR(cond("plan", "equals", "free"), cond("seats", "greater_than", 10)), True),
        (OR(cond("plan", "equals", "free"), cond("seats", "greater_than", 20)), False),
        (AND(cond("plan", "exists")), True),
        (OR(cond("plan", "not_exists")), False),
        # AND of ORs
        (
            AND(
                OR(cond("plan", "equals", "free"), cond("beta", "equals", True)),
                OR(cond("roles", "contains", "admin"), cond("seats", "less_than", 1)),
            ),
            True,
        ),
        (
            AND(
                OR(cond("plan", "equals", "free"), cond("beta", "equals", True)),
                OR(cond("roles", "contains", "owner"), cond("seats", "less_than", 1)),
            ),
            False,
        ),
        # OR of ANDs
        (
            OR(
                AND(cond("plan", "equals", "free"), cond("beta", "equals", True)),
                AND(cond("plan", "equals", "pro"), cond("user.org.tier", "in", [3])),
            ),
            True,
        ),
        (
            OR(
                AND(cond("plan", "equals", "free"), cond("beta", "equals", True)),
                AND(cond("plan", "equals", "pro"), cond("user.org.tier", "in", [1])),
            ),
            False,
        ),
        # three levels deep
        (AND(OR(AND(OR(cond("user.org.flags.sso", "equals", True))))), True),
        (AND(OR(AND(OR(cond("user.org.flags.sso", "equals", False))))), False),
        # a group mixed with plain conditions
        (
            AND(cond("plan", "equals", "pro"), OR(cond("x", "exists"), cond("y", "not_exists"))),
            True,
        ),
    ],
)
def test_nesting(rules: dict[str, Any], expected: bool) -> None:
    assert evaluate_rules(rules, CTX) is expected


def test_no_rules_always_match() -> None:
    assert evaluate_rules(None, {}) is True


def test_groups_short_circuit_in_order() -> None:
    reads: list[str] = []

    class Counts:
        @property
        def boom(self) -> Any:
            reads.append("boom")
            return 1

    ctx = {"plan": "pro", "obj": Counts()}
    assert evaluate_rules(OR(cond("plan", "equals", "pro"), cond("obj.boom", "exists")), ctx)
    assert not evaluate_rules(AND(cond("plan", "equals", "free"), cond("obj.boom", "exists")), ctx)
    assert reads == []  # decided groups never read further fields
    assert evaluate_rules(AND(cond("plan", "equals", "pro"), cond("obj.boom", "exists")), ctx)
    assert reads == ["boom"]


# -- fail closed: a context value that raises never grants and never raises ------------


class Hostile:
    """A context object whose attributes and comparisons raise."""

    def __init__(self) -> None:
        self.plan = "pro"

    @property
    def secret(self) -> Any:
        raise PermissionError("no access")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparison")

    def __gt__(self, other: object) -> bool:
        raise RuntimeError("no ordering")

    __hash__ = object.__hash__


class Exploding(int):
    """A number whose comparisons raise (an int, so ordering operators compare it)."""

    def __gt__(self, other: object) -> bool:
        raise ValueError("boom")

    def __eq__(self, other: object) -> bool:
        raise ValueError("boom")

    __hash__ = int.__hash__


@pytest.mark.parametrize(
    "condition",
    [
        cond("obj.secret", "equals", "x"),
        cond("obj.secret", "not_equals", "x"),  # a negation must not turn a raise into True
        cond("obj.secret", "exists"),
        cond("obj.secret", "not_exists"),
        cond("obj.secret", "not_in", ["x"]),
        cond("obj.secret", "not_contains", "x"),
        cond("num", "greater_than", 1),
        cond("num", "equals", 3),
        cond("num", "not_equals", 3),
        cond("num", "not_deep_equals", 3),
        cond("num", "not_in", [3]),
    ],
)
def test_a_value_that_raises_fails_its_condition(condition: dict[str, Any]) -> None:
    ctx = {"obj": Hostile(), "num": Exploding(3), "plan": "pro"}
    assert evaluate_rules(AND(condition), ctx) is False
    # ... and only its condition: the rest of the rules still decide
    assert evaluate_rules(OR(condition, cond("plan", "equals", "pro")), ctx) is True
    assert evaluate_rules(AND(cond("obj.plan", "equals", "pro")), ctx) is True


@dataclasses.dataclass
class RaisingField:
    plan: str
    token: str

    def __getattribute__(self, name: str) -> Any:
        if name == "token":
            raise PermissionError("token is not readable")
        return object.__getattribute__(self, name)


class Unlistable:
    """A run context whose fields cannot even be listed."""

    @property
    def __dict__(self) -> Any:  # type: ignore[override]
        raise RuntimeError("no fields")


def test_request_context_never_raises_for_the_run_context(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ctx = request_context({"configurable": {"region": "eu"}}, RaisingField("pro", "t"))
    assert evaluate_rules(AND(cond("plan", "equals", "pro")), ctx)
    for condition in (cond("token", "exists"), cond("token", "not_exists")):
        assert not evaluate_rules(AND(condition), ctx)
    # a context that cannot be listed: every condition is false, with a warning
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch_editor._rules"):
        ctx = request_context({"configurable": {"region": "eu"}}, Unlistable())
    assert "could not be read" in caplog.text
    for condition in (cond("region", "equals", "eu"), cond("x", "not_exists")):
        assert not evaluate_rules(AND(condition), ctx)
    assert evaluate_rules(AND(), ctx)  # no constraints still match


def test_request_context_inside_a_run_whose_config_has_no_configurable() -> None:
    token = var_child_runnable_config.set({"tags": []})
    try:
        assert request_context({"configurable": {"plan": "pro"}}) == {"plan": "pro"}
    finally:
        var_child_runnable_config.reset(token)


@pytest.mark.parametrize(
    ("context", "field"),
    [
        ({"obj": Hostile(), "plan": "pro"}, "obj.secret"),  # a property that raises
        ({"num": Exploding(3), "plan": "pro"}, "num"),  # a comparison that raises
        (RaisingField("pro", "t"), "token"),  # a run-context field that raises
        (Unlistable(), "plan"),  # a run context that cannot be listed
    ],
)
async def test_resolve_never_raises_for_a_hostile_context(context: Any, field: str) -> None:
    from langchain_core.tools import StructuredTool

    from langchain_toolsearch_editor import ToolResolver

    tools = {
        name: StructuredTool.from_function(lambda: "ok", name=name, description=name)
        for name in ("always", "gated", "ungated")
    }
    resolver = ToolResolver(registry=tools)
    stored = {
        "tools": {
            "always": {},
            "gated": {"rules": AND(cond(field, "not_equals", 3))},  # fail closed: absent
            "ungated": {"rules": AND(cond("plan", "equals", "pro"))},
        }
    }
    expected = ["always"] if isinstance(context, Unlistable) else ["always", "ungated"]
    assert resolver.resolve(context=context, agent_config=stored).names == expected
    assert (await resolver.aresolve(context=context, agent_config=stored)).names == expected
    # the same context handed over as configurable values
    if isinstance(context, dict):
        config = {"configurable": context}
        assert (await resolver.aresolve(config, agent_config=stored)).names == expected  # type: ignore[arg-type]


def test_lookup_walks_mappings_lists_and_attributes() -> None:
    @dataclasses.dataclass
    class Org:
        tier: int
        _secret: str = "hidden"

    ctx = {"org": Org(tier=2), "items": [{"a": 1}], "text": "abc"}
    assert lookup(ctx, "org.tier") == 2
    assert lookup(ctx, "items.0.a") == 1
    assert lookup(ctx, "org._secret") is MISSING  # private attributes are never read
    assert lookup(ctx, "text.0") is MISSING  # strings are not walked
    assert lookup(ctx, "items.-") is MISSING
    assert lookup(ctx, "org.tier.real") is MISSING  # nor are numbers


# -- the request context --------------------------------------------------------------


@dataclasses.dataclass
class DataContext:
    plan: str
    user_id: str


class ModelContext(BaseModel):
    plan: str
    org: dict[str, Any]


class Runtime:
    def __init__(self, context: Any) -> None:
        self.context = context


def test_request_context_from_configurable_without_internal_keys() -> None:
    config = {
        "configurable": {
            "thread_id": "t1",
            "plan": "pro",
            "__pregel_checkpointer": object(),
            "__pregel_runtime": Runtime({"plan": "enterprise"}),  # internal: never read
        }
    }
    assert request_context(config) == {"thread_id": "t1", "plan": "pro"}  # type: ignore[arg-type]
    assert request_context(None) == {}
    assert request_context({}) == {}


@pytest.mark.parametrize(
    "context",
    [
        {"plan": "enterprise", "user_id": "u1"},
        DataContext(plan="enterprise", user_id="u1"),
    ],
)
def test_run_context_overlays_configurable(context: Any) -> None:
    config = {"configurable": {"plan": "free", "thread_id": "t1"}}
    ctx = request_context(config, context)  # type: ignore[arg-type]
    assert ctx["plan"] == "enterprise"
    assert ctx["user_id"] == "u1"
    assert ctx["thread_id"] == "t1"


@pytest.mark.parametrize(
    "context",
    [
        {"plan": "enterprise", "user_id": "u1"},
        DataContext(plan="enterprise", user_id="u1"),
    ],
)
def test_inside_a_graph_run_the_run_context_is_picked_up(context: Any) -> None:
    """Through LangGraph's public ``get_runtime`` / ``get_config``, in a real graph."""
    from langgraph.config import get_config
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        seen: dict[str, Any]

    def node(state: State) -> dict[str, Any]:
        return {"seen": request_context(get_config())}

    graph = StateGraph(State, context_schema=type(context))
    graph.add_node("node", node)
    graph.add_edge(START, "node")
    graph.add_edge("node", END)
    out = graph.compile().invoke(
        {"seen": {}}, {"configurable": {"plan": "free", "region": "eu"}}, context=context
    )
    assert out["seen"]["plan"] == "enterprise"  # the run context wins
    assert out["seen"]["user_id"] == "u1"
    assert out["seen"]["region"] == "eu"
    assert not any(key.startswith("__") for key in out["seen"])
    # outside a run there is no run context to pick up
    assert request_context({"configurable": {"plan": "free"}}) == {"plan": "free"}


def test_pydantic_and_plain_object_contexts() -> None:
    ctx = request_context(None, ModelContext(plan="pro", org={"tier": 2}))
    assert evaluate_rules(AND(cond("org.tier", "greater_than_or_equal", 2)), ctx)

    class Plain:
        def __init__(self) -> None:
            self.plan = "pro"
            self._private = "x"

    assert request_context(None, Plain()) == {"plan": "pro"}


# -- bad rule data is rejected when saved ---------------------------------------------


@pytest.mark.parametrize(
    ("rules", "path", "says"),
    [
        (AND(cond("plan", "eq", "pro")), "conditions[0].operator", "unknown operator 'eq'"),
        ({"operator": "and", "conditions": [cond("a", "exists")]}, "operator", "'AND' or 'OR'"),
        ({"operator": "and", "conditions": []}, "operator", "reads any other value as OR"),
        (AND(cond("plan", "in", "pro")), "conditions[0].value", "needs a list"),
        (AND(cond("plan", "not_in", {"a": 1})), "conditions[0].value", "needs a list"),
        (AND(cond("n", "greater_than", [1])), "conditions[0].value", "needs a number"),
        (AND(cond("n", "less_than", True)), "conditions[0].value", "needs a number"),
        (AND(cond("d", "greater_than", "2024")), "conditions[0].value", "'text_greater_than'"),
        (AND(cond("d", "text_less_than", 3)), "conditions[0].value", "needs a string"),
        (AND(cond("plan", "matches", "p.*")), "conditions[0].operator", "never matching"),
        (AND(cond("n", "greater_than_or_equal", None)), "conditions[0].value", "number"),
        (AND(cond("n", "less_than_or_equal", {"x": 1})), "conditions[0].value", "number"),
        (AND(cond("n", "contains", ["a"])), "conditions[0].value", "string, number or boolean"),
        (AND(cond("n", "not_contains", None)), "conditions[0].value", "string, number"),
        (AND(cond("n", "exists", 1)), "conditions[0].value", "takes no value"),
        (AND(cond("n", "not_exists", "x")), "conditions[0].value", "takes no value"),
        (AND(cond("n", "equals")), "conditions[0]", "'value' is required"),
        (AND(cond("", "exists")), "conditions[0].field", "dot path"),
        (AND(cond("a..b", "exists")), "conditions[0].field", "dot path"),
        (AND({"fld": "a", "operator": "exists"}), "conditions[0].fld", "unknown key"),
        (AND("plan == pro"), "conditions[0]", "expected a condition"),  # type: ignore[arg-type]
        (AND(OR(cond("a", "in", 3))), "conditions[0].conditions[0].value", "needs a list"),
    ],
)
def test_bad_rules_name_the_field(rules: dict[str, Any], path: str, says: str) -> None:
    with pytest.raises(ToolConfigError) as caught:
        parse_rules(rules)
    assert any(p == path and says in m for p, m in caught.value.errors), caught.value.errors
    with pytest.raises(ToolConfigError) as caught:
        evaluate_rules(rules, CTX)  # raw rule data is validated before use
    # the same data inside an agent config: the path starts at the stored field
    config = {"tools": [{"value": {"a": {}}, "rules": rules}]}
    with pytest.raises(ToolConfigError) as caught:
        _save(config)
    full = f"tools[0].rules.{path}" if not path.startswith("[") else f"tools[0].rules{path}"
    assert any(p == full and says in m for p, m in caught.value.errors), caught.value.errors
    assert full in str(caught.value)


def _save(config: dict[str, Any]) -> None:
    from langgraph.store.memory import InMemoryStore

    store = ToolConfigStore(InMemoryStore())
    try:
        store.agents.save("agent", config)
    finally:
        assert store.agents.list_records() == []  # nothing was written


def test_rules_nest_at_most_16_deep() -> None:
    rules: dict[str, Any] = cond("a", "exists")
    for _ in range(16):
        rules = AND(rules)
    assert evaluate_rules(rules, {"a": 1})
    with pytest.raises(ToolConfigError, match="at most 16"):
        parse_rules(AND(rules))


def test_rules_in_every_place_are_validated() -> None:
    bad = AND(cond("plan", "bogus", 1))
    places = {
        "tools.t.rules": {"tools": {"t": {"rules": bad}}},
        "mcp_clients.c.rules": {"mcp_clients": {"c": {"rules": bad}}},
        "mcp_clients.c.tools.x.rules": {"mcp_clients": {"c": {"tools": {"x": {"rules": bad}}}}},
        "integration_tools[0].rules": {"integration_tools": [{"value": {}, "rules": bad}]},
        "tool_providers.p.rules": {"tool_providers": {"p": {"rules": bad}}},
    }
    for prefix, config in places.items():
        with pytest.raises(ToolConfigError) as caught:
            _save(config)
        assert f"{prefix}.conditions[0].operator" in str(caught.value), caught.value


def test_empty_rule_groups_mean_no_constraints() -> None:
    false = cond("plan", "equals", "nobody-has-this")
    for group, expected in (
        (AND(), True),
        (OR(), True),
        (OR(AND()), True),
        (AND(OR(), AND(OR())), True),
        (OR(AND(), false), True),  # the empty group is true, so OR is
        (AND(OR(), false), False),  # ... and AND still needs the false condition
    ):
        parse_rules(group)  # saving one is allowed
        assert evaluate_rules(group, CTX) is expected, group
        assert evaluate_rules(group, {}) is expected, group
    _save_ok({"tools": [{"value": {"a": {}}, "rules": OR(AND())}]})


def _save_ok(config: dict[str, Any]) -> None:
    from langgraph.store.memory import InMemoryStore

    store = ToolConfigStore(InMemoryStore())
    store.agents.save("agent", config)
    assert store.agents.get("agent").to_json() == config
