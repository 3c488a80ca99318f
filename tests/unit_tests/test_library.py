"""The tool library: input forms, validation, provider-safe names, documents,
truncated descriptions and load suggestions.
"""

from __future__ import annotations

import re

import pytest
from langchain_core.tools import BaseTool, StructuredTool, tool

from langchain_toolsearch import ToolLibrary
from langchain_toolsearch._library import SAFE_NAME, safe_tool_name, tool_parameters
from tests.support.library_fixtures import get_weather, library, send_email


def _tool(name: str, description: str = "does things") -> BaseTool:
    return StructuredTool(
        name=name,
        description=description,
        args_schema={"type": "object", "properties": {}},
        func=lambda **kw: "",
    )


# -- provider-safe names ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("original", "safe"),
    [
        ("get_weather", "get_weather"),
        ("Get-Weather-2", "Get-Weather-2"),
        ("weather.get", "weather_get_7773d2d2"),
        ("my tool", "my_tool_af998d1f"),
        ("天気", "tool_77f5c581"),
        ("a/b/c", "a_b_c_ee2be6da"),
        ("Ünïcødé tool", "Unicde_tool_4d427507"),
        (
            "very_long_tool_name_" * 5,
            "very_long_tool_name_very_long_tool_name_very_long_tool__0fb149c2",
        ),
    ],
)
def test_safe_names_are_fixed_strings(original: str, safe: str) -> None:
    # literal values: a change here changes the names providers and checkpoints saw
    assert safe_tool_name(original) == safe
    assert SAFE_NAME.match(safe)


def test_safe_names_are_unique_for_similar_originals() -> None:
    originals = ["a.b", "a b", "a/b", "a:b", "a_b_", "天", "地", "x" * 65, "x" * 66]
    safe = [safe_tool_name(n) for n in originals]
    assert len(set(safe)) == len(safe)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", s) for s in safe)


def test_library_maps_names_and_resolves_both_forms() -> None:
    lib = ToolLibrary([_tool("weather.get"), get_weather])
    safe = "weather_get_7773d2d2"
    assert lib.names == [safe, "get_weather"]
    entry = lib.get("weather.get")
    assert entry is not None and entry is lib.get(safe)
    assert entry.name == entry.tool.name == safe
    assert entry.original_name == "weather.get"
    assert lib.resolve("weather.get") == safe and lib.resolve("nope") is None
    assert safe in lib and "weather.get" not in lib  # membership is by bound name
    assert len(lib) == 2
    doc = entry.document()
    assert doc.name == safe and doc.aliases == ("weather.get",)
    assert lib.get("get_weather").tool is get_weather  # type: ignore[union-attr]


def test_a_safe_name_colliding_with_another_tool_raises() -> None:
    with pytest.raises(ValueError, match=r"both map to the provider-safe name.*rename one"):
        ToolLibrary([_tool("weather_get_7773d2d2"), _tool("weather.get")])


# -- input forms and validation -----------------------------------------------------------------


def test_tools_keep_their_own_names_and_mapping_keys_are_aliases() -> None:
    """Searched, loaded, filtered, bound by the tool's own name."""

    def shout(text: str) -> str:
        """Shout a text"""
        return text.upper()

    lib = ToolLibrary({"forecast": get_weather, "shout": shout})
    assert lib.names == ["get_weather", "shout"]
    weather = lib.get("forecast")  # the key stays accepted (load_tool's alias)
    assert weather is not None and weather.name == "get_weather"
    assert weather.tool is get_weather and weather.given_name == "forecast"
    assert "forecast" in weather.document().aliases
    assert lib.get("shout").tool.invoke({"text": "hi"}) == "HI"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="also the name of another library tool"):
        ToolLibrary({"shout": get_weather, "other": shout})


def test_sequences_and_generators_and_functions() -> None:
    def ping() -> str:
        """Ping"""
        return "pong"

    assert ToolLibrary([get_weather, ping]).names == ["get_weather", "ping"]
    assert ToolLibrary(iter([send_email])).names == ["send_email"]
    assert ToolLibrary([]).names == []


@pytest.mark.parametrize(
    ("tools", "error", "says"),
    [
        ([get_weather, get_weather], ValueError, r"two library tools are named 'get_weather'"),
        ([_tool("")], ValueError, r"empty name; give every tool a name"),
        ([_tool("   ")], ValueError, r"empty name"),
        ([_tool("load_tool")], ValueError, r"'load_tool', which is reserved"),
        ({"search_tools": get_weather}, ValueError, r"'search_tools' is reserved"),
        ({1: get_weather}, TypeError, r"tool mapping keys must be str"),
        ([get_weather, "send_email"], TypeError, r"tools\[1\] is the string .send_email."),
        ({"x": 3}, TypeError, r"tools\['x'\] is a int"),
        ("get_weather", TypeError, r"tools must be a sequence of tools or a mapping"),
        (get_weather, TypeError, r"tools must be a sequence"),
    ],
)
def test_bad_libraries_raise(tools: object, error: type[Exception], says: str) -> None:
    with pytest.raises(error, match=says):
        ToolLibrary(tools)  # type: ignore[arg-type]


# -- documents and descriptions ---------------------------------------------------------------


def test_parameters_are_documented() -> None:
    @tool
    def lookup(postal_code: str, country: str = "JP") -> str:
        """Find an address.

        Args:
            postal_code: ZIP or postcode.
            country: ISO country code.
        """
        return ""

    assert tool_parameters(lookup) == (("postal_code", ""), ("country", ""))
    parsed = tool(parse_docstring=True)(lookup.func)  # type: ignore[call-overload]
    assert tool_parameters(parsed) == (
        ("postal_code", "ZIP or postcode."),
        ("country", "ISO country code."),
    )
    schema_tool = StructuredTool(
        name="s",
        description="d",
        args_schema={"type": "object", "properties": {"q": {"description": "Query"}, "n": True}},
        func=lambda **kw: "",
    )
    assert tool_parameters(schema_tool) == (("q", "Query"), ("n", ""))
    doc = ToolLibrary([parsed]).get("lookup").document()  # type: ignore[union-attr]
    assert doc.parameters == (("postal_code", "ZIP or postcode."), ("country", "ISO country code."))


def test_short_description_cuts_at_a_word_near_150_chars() -> None:
    text = "Create an issue in a GitHub repository, " * 10
    entry = ToolLibrary([_tool("x_tool", text)]).get("x_tool")
    assert entry is not None
    short = entry.short_description()
    assert short.endswith("...") and len(short) <= 150  # ellipsis included
    assert text.startswith(short[:-3])
    assert not short[:-3].endswith((" ", ","))
    assert entry.short_description(limit=1000) == " ".join(text.split())
    unbroken = ToolLibrary([_tool("y_tool", "z" * 400)]).get("y_tool")
    assert unbroken is not None and unbroken.short_description() == "z" * 147 + "..."
    spaced = ToolLibrary([_tool("w_tool", "  many   \n spaces  ")]).get("w_tool")
    assert spaced is not None and spaced.short_description() == "many spaces"


def test_suggestions_contain_or_are_contained() -> None:
    lib = ToolLibrary([*library(), _tool("weather.get")])
    assert lib.suggest("weather") == ["get_weather", "weather_get_7773d2d2"]
    assert lib.suggest("weather.get") == ["weather_get_7773d2d2"]  # by original name too
    assert lib.suggest("get_weather_now") == ["get_weather"]
    assert lib.suggest("GITHUB_GET") == ["github_get_me"]
    assert lib.suggest("ge") == []  # too short to mean anything
    assert len(lib.suggest("_")) == 0
    assert lib.suggest("github", limit=2) == [
        "github_add_comment_to_pending_review",
        "github_create_issue",
    ]


def test_schema_parameters_index_enum_values_and_nested_properties() -> None:
    from langchain_toolsearch._library import schema_parameters

    schema = {
        "type": "object",
        "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "properties": {
            "genre": {"type": "string", "description": "Genre.", "enum": ["Rock", "Jazz", 7]},
            "unit": {"$ref": "#/$defs/Unit", "description": "Temperature unit"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["new", "hot"]}},
            "mode": {"anyOf": [{"enum": ["fast"]}, {"type": "null"}]},
            "filters": {
                "type": "object",
                "description": "Filters",
                "properties": {"max_price": {"type": "number", "description": "Price cap"}},
            },
            "rows": {
                "type": "array",
                "items": {"type": "object", "properties": {"cell": {"description": "A cell"}}},
            },
            "flag": True,
        },
    }
    assert schema_parameters(schema) == (
        ("genre", "Genre. Rock Jazz 7"),
        ("unit", "Temperature unit celsius fahrenheit"),
        ("tags", "new hot"),
        ("mode", "fast"),
        ("filters", "Filters"),
        ("max_price", "Price cap"),
        ("rows", ""),
        ("cell", "A cell"),
        ("flag", ""),
    )
    assert schema_parameters({}) == ()
    assert schema_parameters({"properties": "junk"}) == ()
    deep: dict[str, object] = {"type": "object", "properties": {}}
    node = deep
    for i in range(10):  # nesting is cut at 3 levels
        child: dict[str, object] = {"type": "object", "properties": {}}
        node["properties"] = {f"level{i}": child}  # type: ignore[index]
        node = child
    assert [n for n, _ in schema_parameters(deep)] == ["level0", "level1", "level2"]
    many = {"properties": {"x": {"enum": [f"v{i}" for i in range(500)]}}}
    assert len(schema_parameters(many)[0][1].split()) == 50
