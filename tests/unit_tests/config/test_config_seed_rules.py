"""Every case of ``shared/cases/mastra-rules.md``: the seed system's outcome wins.

Each case runs through `evaluate_rules` and through a stored agent resolved by
`ToolResolver` (a conditional variant selecting one registered tool, so the tool
is there exactly when the rule matches: variants are evaluated by the seed too).
Rules our own format accepts are also saved as they are; rules it refuses (an
operator the seed does not know, a value the seed reads as never matching, a
lowercase group operator, a ``value`` on ``exists``) are refused at save with the
field path and the fix, and ``from_mastra`` converts them to the seed's outcome.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest
from langchain_core.tools import StructuredTool
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.config import (
    AgentToolConfig,
    RuleGroup,
    ToolConfigError,
    ToolConfigStore,
    ToolResolver,
    evaluate_rules,
)

# The context of every case, as the case file gives it.
CTX: dict[str, Any] = {
    "plan": "pro",
    "n": 5,
    "f": 1.5,
    "flag": True,
    "tags": ["a", "b"],
    "user": {"plan": "pro", "roles": ["admin"]},
    "s": "hello world",
    "nul": None,
    "date": "2024-06-01",
    "obj": {"k": 1},
    "num_str": "5",
}


def rule(field: str, operator: str, value: Any) -> dict[str, Any]:
    return {
        "operator": "AND",
        "conditions": [{"field": field, "operator": operator, "value": value}],
    }


# (case, seed rule group, seed outcome, what our own format says when it refuses it)
CASES: list[tuple[str, dict[str, Any], bool, str | None]] = [
    ("equals list", rule("tags", "equals", ["a", "b"]), False, None),
    ("not_equals list", rule("tags", "not_equals", ["a", "b"]), True, None),
    ("equals object", rule("obj", "equals", {"k": 1}), False, None),
    ("contains object key", rule("obj", "contains", "k"), False, None),
    ("not_contains object", rule("obj", "not_contains", "k"), True, None),
    (
        "greater_than on strings",
        rule("date", "greater_than", "2024-01-01"),
        False,
        "use 'text_greater_than'",
    ),
    ("in, list field", rule("tags", "in", ["a", "z"]), False, None),
    ("not_in, list field", rule("tags", "not_in", ["a", "z"]), True, None),
    ("in, non-array value", rule("plan", "in", "pro"), False, "needs a list of values"),
    ("not_in, non-array value", rule("plan", "not_in", "free"), False, "needs a list of values"),
    ("unknown operator", rule("plan", "matches", "p.*"), False, "unknown operator 'matches'"),
    (
        "lowercase group",
        {
            "operator": "and",
            "conditions": [
                {"field": "plan", "operator": "equals", "value": "free"},
                {"field": "plan", "operator": "equals", "value": "pro"},
            ],
        },
        True,
        "use 'AND' or 'OR'",
    ),
    ("exists with a value", rule("plan", "exists", True), True, "remove 'value'"),
]

IDS = [case[0] for case in CASES]


def probe_agent(rules: dict[str, Any]) -> dict[str, Any]:
    """An agent whose one registered tool ``probe`` is there when ``rules`` match."""
    return {"tools": [{"value": {"probe": {}}, "rules": rules}]}


def resolve_names(configs: ToolConfigStore, agent_id: str) -> list[str]:
    probe = StructuredTool.from_function(lambda: "ok", name="probe", description="Probe.")
    resolver = ToolResolver(store=configs, agent_id=agent_id, registry=[probe])
    resolved = resolver.resolve(context=CTX)
    assert resolved.failures == {}
    return resolved.names


@pytest.mark.parametrize(("case", "rules", "outcome", "refusal"), CASES, ids=IDS)
def test_evaluate_rules_gives_the_seed_outcome(
    case: str, rules: dict[str, Any], outcome: bool, refusal: str | None
) -> None:
    converted = RuleGroup.from_mastra(copy.deepcopy(rules))
    assert evaluate_rules(converted, CTX) is outcome
    if refusal is None:  # our own format takes the rule as it is, with the same outcome
        assert evaluate_rules(rules, CTX) is outcome
        assert converted == RuleGroup.model_validate(rules)  # nothing to convert
    else:
        with pytest.raises(ToolConfigError, match=refusal):
            evaluate_rules(rules, CTX)


@pytest.mark.parametrize(("case", "rules", "outcome", "refusal"), CASES, ids=IDS)
def test_a_resolved_stored_agent_gives_the_seed_outcome(
    case: str, rules: dict[str, Any], outcome: bool, refusal: str | None
) -> None:
    configs = ToolConfigStore(InMemoryStore())
    expected = ["probe"] if outcome else []
    # imported from the seed system's JSON
    configs.agents.save("imported", AgentToolConfig.from_mastra(probe_agent(copy.deepcopy(rules))))
    assert resolve_names(configs, "imported") == expected
    if refusal is None:
        configs.agents.save("ours", probe_agent(rules))
        assert resolve_names(configs, "ours") == expected
        return
    # refused at save, with the field path and the fix; nothing written
    with pytest.raises(ToolConfigError) as caught:
        configs.agents.save("ours", probe_agent(rules))
    ((path, message),) = caught.value.errors
    assert path.startswith("tools[0].rules"), path
    assert refusal in message
    assert [record.record_id for record in configs.agents.list_records()] == ["imported"]


def test_from_mastra_says_what_it_converted(caplog: pytest.LogCaptureFixture) -> None:
    snapshot = {
        "tools": [
            {"value": {"a": {}}, "rules": CASES[11][1]},  # lowercase group
            {"value": {"b": {}}, "rules": rule("plan", "exists", True)},
            {"value": {"c": {}}, "rules": rule("plan", "matches", "p.*")},
            {"value": {"d": {}}, "rules": rule("date", "greater_than", "2024-01-01")},
        ]
    }
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.config.mastra"):
        config = AgentToolConfig.from_mastra(snapshot)
    text = caplog.text
    assert "tools[0].rules.operator: Mastra Editor reads group operator 'and' as OR" in text
    assert "tools[1].rules.conditions[0].value: ignored by Mastra Editor" in text
    assert "tools[2].rules.conditions[0]: operator 'matches' is unknown" in text
    assert "tools[3].rules.conditions[0]" in text and "'text_greater_than'" in text
    data = config.to_json()["tools"]
    assert data[0]["rules"]["operator"] == "OR"
    assert data[1]["rules"]["conditions"] == [{"field": "plan", "operator": "exists"}]
    never = {"field": "plan", "operator": "in", "value": []}
    assert data[2]["rules"]["conditions"] == [never]
    # the never-matching form means the same in the seed system: it survives export
    assert AgentToolConfig.from_mastra(config.to_mastra()) == config


@pytest.mark.parametrize(
    ("rules", "outcome"),
    [
        ({"operator": "AND", "conditions": []}, True),  # a group with no conditions is true
        ({"operator": "OR", "conditions": []}, True),
        (rule("missing", "equals", "pro"), False),  # a missing field fails comparisons
        (rule("missing", "greater_than", 1), False),
        (rule("missing", "contains", "x"), False),
        (rule("missing", "in", ["pro"]), False),
        (rule("nul", "greater_than", 0), False),  # and so does null
        (rule("nul", "contains", "x"), False),
        (rule("nul", "in", ["x"]), False),
        ({"operator": "AND", "conditions": [{"field": "nul", "operator": "exists"}]}, False),
        ({"operator": "AND", "conditions": [{"field": "missing", "operator": "exists"}]}, False),
        (rule("user.plan", "equals", "pro"), True),  # dot paths walk objects ...
        (rule("user.roles.0", "equals", "admin"), True),  # ... and array indexes
        (rule("tags.1", "equals", "b"), True),
        (rule("tags.2", "equals", "b"), False),
        (rule("n", "equals", 5.0), True),  # one number type, as in JavaScript
        (rule("flag", "equals", 1), False),  # booleans are not numbers
        (rule("num_str", "equals", 5), False),  # no coercion in ===
        (rule("num_str", "contains", 5), False),  # the seed's evaluator needs two strings
        (rule("f", "less_than", 2), True),
    ],
)
def test_the_seed_rules_stated_beside_the_table(rules: dict[str, Any], outcome: bool) -> None:
    assert evaluate_rules(rules, CTX) is outcome
    configs = ToolConfigStore(InMemoryStore())
    configs.agents.save("agent", probe_agent(rules))
    assert resolve_names(configs, "agent") == (["probe"] if outcome else [])


def test_extension_operators_are_refused_by_to_mastra() -> None:
    ours = AgentToolConfig.model_validate(
        {
            "tools": [
                {"value": {"a": {}}, "rules": rule("tags", "deep_equals", ["a", "b"])},
                {"value": {"b": {"rules": rule("date", "text_greater_than", "2024-01-01")}}},
            ]
        }
    )
    with pytest.raises(ToolConfigError) as caught:
        ours.to_mastra()
    assert [path for path, _ in caught.value.errors] == [
        "tools[0].rules.conditions[0].operator",
        "tools[1].value.b.rules.conditions[0].operator",
    ]
    assert "Mastra Editor has no operator 'deep_equals'" in str(caught.value)
    with pytest.raises(ToolConfigError, match="no operator 'text_less_than'"):
        RuleGroup.model_validate(rule("d", "text_less_than", "x")).to_mastra()
    assert RuleGroup.model_validate(rule("n", "less_than", 3)).to_mastra() == rule(
        "n", "less_than", 3
    )
