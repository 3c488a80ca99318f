"""Loaders for the shared benchmark data (BFCL, GitHub MCP, ToolSDK, RestBench + ToolAlpaca).

The data lives outside the repository (``../shared/data`` next to it; see its
``README.md``) and is never copied in. :func:`default_data_dir` finds it.

Every loader returns :class:`ToolDef` records (name, description, JSON-schema
parameters); :meth:`ToolDef.to_tool` turns one into a LangChain tool with no
implementation attached, ready for search and binding.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool

from langchain_toolsearch._library import schema_parameters
from langchain_toolsearch.catalog import load_definitions, tool_from_definition
from langchain_toolsearch.evaluation import EvalQuery
from langchain_toolsearch.search import ToolDocument

__all__ = [
    "DATA_DIR_ENV",
    "EvalQuery",
    "ToolDef",
    "default_data_dir",
    "load_bfcl",
    "load_github_mcp_tools",
    "load_restbench_toolalpaca",
    "load_toolsdk",
    "merge_libraries",
    "scale_library",
]

DATA_DIR_ENV = "TOOLSEARCH_SHARED_DATA"
"""Environment variable naming the shared data folder (the one holding ``bfcl/``)."""

_EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True)
class ToolDef:
    """One tool of a benchmark library.

    Attributes:
        name: Unique tool name within its library.
        description: Free-text description (may be ``""``).
        parameters: JSON schema object for the arguments
            (``{"type": "object", "properties": {...}, ...}``). Treat it as
            read-only: copies made by :func:`scale_library` share it.
    """

    name: str
    description: str
    parameters: dict[str, Any]

    def to_tool(self) -> BaseTool:
        """Build a LangChain tool for this definition.

        Returns:
            A ``StructuredTool`` whose ``args_schema`` is a copy of ``parameters``,
            ``metadata["source"] == "catalog"``, and no implementation (calls return
            an error message); see :func:`~langchain_toolsearch.catalog.tool_from_definition`.

        Raises:
            ValueError: If ``name`` is empty or ``parameters`` is not an object schema.
        """
        return tool_from_definition(
            {"name": self.name, "description": self.description, "inputSchema": self.parameters}
        )


def default_data_dir() -> Path:
    """Locate the shared data folder.

    Checks, in order: ``$TOOLSEARCH_SHARED_DATA``; ``<cwd>/../shared/data``;
    ``<repository>/../shared/data`` relative to this file (the ``benchmarks/``
    folder of a clone).

    Returns:
        The absolute, resolved path of the folder.

    Raises:
        FileNotFoundError: If ``$TOOLSEARCH_SHARED_DATA`` is set but is not a
            folder, or none of the candidates exists. The message says to set
            ``TOOLSEARCH_SHARED_DATA``.
    """
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        path = Path(env).expanduser()
        if path.is_dir():
            return path.resolve()
        msg = f"{DATA_DIR_ENV}={env!r} is not a folder; point it at the shared data folder"
        raise FileNotFoundError(msg)
    candidates = [
        Path.cwd() / ".." / "shared" / "data",
        Path(__file__).resolve().parents[1] / ".." / "shared" / "data",
    ]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    tried = ", ".join(str(c.resolve()) for c in candidates)
    msg = (
        f"shared benchmark data not found (tried {tried}); set {DATA_DIR_ENV} to the "
        "folder holding bfcl/, github-mcp-server-tools/ and toolsdk-mcp-registry/"
    )
    raise FileNotFoundError(msg)


def _resolve(data_dir: Path | str | None) -> Path:
    return default_data_dir() if data_dir is None else Path(data_dir).resolve()


# --------------------------------------------------------------------------- BFCL

_BFCL_TYPES: dict[str, str | None] = {
    "dict": "object",
    "HashMap": "object",
    "float": "number",
    "double": "number",
    "tuple": "array",
    "Array": "array",
    "ArrayList": "array",
    "long": "integer",
    "String": "string",
    "char": "string",
    "Boolean": "boolean",
    "any": None,
    "": None,
}
_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


def bfcl_to_json_schema(schema: Mapping[str, Any], *, where: str = "") -> dict[str, Any]:
    """Map a BFCL parameter schema to JSON Schema, recursively.

    BFCL type names are mapped as the data README lists: ``dict``/``HashMap`` ->
    ``object``, ``float``/``double`` -> ``number``, ``tuple``/``Array``/``ArrayList``
    -> ``array``, ``long`` -> ``integer``, ``String``/``char`` -> ``string``,
    ``Boolean`` -> ``boolean``, ``any`` or ``""`` -> no ``type`` key. The mapping
    applies in ``properties``, ``items`` and ``additionalProperties`` too. Other
    keys (including BFCL's non-standard ``optional``) are kept.

    Args:
        schema: A BFCL ``parameters`` object (or nested property schema).
        where: Context for error messages (e.g. the function name).

    Returns:
        A new dict; ``schema`` is not modified.

    Raises:
        ValueError: On a type name that is neither JSON Schema nor in the mapping.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            if value in _BFCL_TYPES:
                mapped = _BFCL_TYPES[value]
                if mapped is not None:
                    out["type"] = mapped
            elif value in _JSON_TYPES:
                out["type"] = value
            else:
                msg = f"BFCL {where}: unknown parameter type {value!r}"
                raise ValueError(msg)
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {
                prop: bfcl_to_json_schema(sub, where=f"{where}.{prop}")
                if isinstance(sub, Mapping)
                else copy.deepcopy(sub)
                for prop, sub in value.items()
            }
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = bfcl_to_json_schema(value, where=f"{where}[{key}]")
        else:
            out[key] = copy.deepcopy(value)
    return out


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                msg = f"{path}:{line_no}: not valid JSON ({exc.msg})"
                raise ValueError(msg) from exc
            if not isinstance(record, dict):
                msg = f"{path}:{line_no}: expected a JSON object per line"
                raise ValueError(msg)
            yield record


@functools.lru_cache(maxsize=4)
def _load_bfcl_cached(
    bfcl_dir: Path,
) -> tuple[tuple[tuple[str, str, str], ...], tuple[EvalQuery, ...]]:
    """Parse BFCL once per folder; tools come back as ``(name, description, schema JSON)``."""
    question_files = sorted(p for p in bfcl_dir.glob("*.json") if p.is_file())
    if not question_files:
        msg = f"no BFCL question files (*.json) in {bfcl_dir}"
        raise FileNotFoundError(msg)
    tools: dict[str, tuple[str, str, str]] = {}
    queries: list[EvalQuery] = []
    for question_file in question_files:
        answer_file = bfcl_dir / "possible_answer" / question_file.name
        answers: dict[str, list[Any]] | None = None
        if answer_file.is_file():
            answers = {
                str(record["id"]): record["ground_truth"] for record in _read_jsonl(answer_file)
            }
        for record in _read_jsonl(question_file):
            qid = str(record["id"])
            functions = record["function"]
            for function in functions:
                name = function["name"]
                if name not in tools:  # first schema seen wins
                    params = bfcl_to_json_schema(function["parameters"], where=name)
                    tools[name] = (name, function.get("description") or "", json.dumps(params))
            if answers is None:
                continue  # no answer file: the questions still contribute tools
            if qid not in answers:
                msg = f"{answer_file}: no answer for question {qid!r}"
                raise ValueError(msg)
            text = "\n".join(
                message["content"]
                for turn in record["question"]
                for message in turn
                if message.get("role") == "user"
            )
            offered = {function["name"] for function in functions}
            gold: list[str] = []
            for call in answers[qid]:
                for gold_name in call:
                    if gold_name not in offered:
                        msg = (
                            f"{answer_file}: {qid}: gold function {gold_name!r} "
                            "is not in the question's function list"
                        )
                        raise ValueError(msg)
                    if gold_name not in gold:
                        gold.append(gold_name)
            if not gold:
                continue  # an answer with no call cannot be scored for retrieval
            queries.append(EvalQuery(id=qid, query=text, gold=tuple(gold)))
    return tuple(tools.values()), tuple(queries)


def load_bfcl(data_dir: Path | None = None) -> tuple[list[ToolDef], list[EvalQuery]]:
    r"""Load BFCL v4 as one pooled tool library plus retrieval queries.

    All question files in ``<data_dir>/bfcl`` are read in file-name order. Tools:
    one per function name, keeping the first schema seen (1,437 tools on the
    shared data), in first-seen order, parameters mapped to JSON Schema by
    :func:`bfcl_to_json_schema`. Queries: one per question line whose file has a
    ``possible_answer/<same name>`` twin (matched by ``id``); ``query`` is the
    user messages' ``content`` joined with ``"\n"``; ``gold`` is the function
    name of each ``ground_truth`` entry, de-duplicated in order (2,501 queries).

    Parsing is cached per folder, so repeated calls are cheap; each call returns
    fresh lists and fresh ``parameters`` dicts.

    Args:
        data_dir: Shared data folder (default: :func:`default_data_dir`).

    Returns:
        ``(tools, queries)``.

    Raises:
        FileNotFoundError: If the data folder or its ``bfcl`` question files are
            missing.
        ValueError: On malformed lines, an unknown parameter type, a question
            with no answer line, or a gold name missing from its question's
            ``function`` list.
    """
    raw_tools, queries = _load_bfcl_cached(_resolve(data_dir) / "bfcl")
    tools = [
        ToolDef(name, description, json.loads(params)) for name, description, params in raw_tools
    ]
    return tools, list(queries)


# ------------------------------------------------------------------ GitHub MCP tools


def load_github_mcp_tools(data_dir: Path | None = None) -> list[ToolDef]:
    """Load GitHub's MCP server tool definitions (117 tools).

    Args:
        data_dir: Shared data folder (default: :func:`default_data_dir`).

    Returns:
        Tools sorted by name; ``parameters`` is each ``inputSchema`` as published
        (``annotations`` are dropped; use
        :func:`~langchain_toolsearch.catalog.load_catalog` to keep them).

    Raises:
        FileNotFoundError: If ``<data_dir>/github-mcp-server-tools`` is missing.
        ValueError: On a malformed or duplicate definition.
    """
    folder = _resolve(data_dir) / "github-mcp-server-tools"
    return [
        ToolDef(defn["name"], defn["description"], defn["inputSchema"])
        for defn in load_definitions(folder)
    ]


# ------------------------------------------------------- RestBench + ToolAlpaca (validation)


def load_restbench_toolalpaca(
    data_dir: Path | None = None,
) -> tuple[list[ToolDef], list[EvalQuery]]:
    """Load the validation set: 134 REST endpoints and 265 requests with gold tools.

    Never tuned on (``docs/benchmarks.md``): only reported. Built by the
    folder's ``convert.py`` from RestBench (TMDB, Spotify) and ToolAlpaca.

    Args:
        data_dir: Shared data folder (default: :func:`default_data_dir`).

    Returns:
        ``(tools, queries)``: tools in file order; query ids are
        ``"<source>_<line>"``.

    Raises:
        FileNotFoundError: If ``restbench-toolalpaca/tools.json`` or
            ``queries.json`` is missing.
    """
    folder = _resolve(data_dir) / "restbench-toolalpaca"
    with (folder / "tools.json").open(encoding="utf-8") as handle:
        raw_tools = json.load(handle)
    with (folder / "queries.json").open(encoding="utf-8") as handle:
        raw_queries = json.load(handle)
    tools = [ToolDef(t["name"], t["description"], t["parameters"]) for t in raw_tools]
    queries = [
        EvalQuery(f"{q['source']}_{i}", q["query"], tuple(dict.fromkeys(q["gold"])))
        for i, q in enumerate(raw_queries)
    ]
    return tools, queries


# ------------------------------------------------------------------- ToolSDK registry


def package_slug(package: str) -> str:
    """Turn an npm-style package name into a name-safe slug.

    ``"@toolsdk.ai/aws-ses-mcp"`` -> ``"toolsdk-ai_aws-ses-mcp"``: lower-cased,
    leading ``@`` dropped, ``/`` -> ``_``, other runs of characters outside
    ``[a-z0-9_-]`` -> ``-``.

    Args:
        package: Package name.

    Returns:
        The slug (may be ``""`` for a name with no usable characters).
    """
    slug = package.strip().lower().lstrip("@").replace("/", "_")
    slug = re.sub(r"[^a-z0-9_-]+", "-", slug)
    return re.sub(r"-{2,}", "-", slug).strip("-_")


def _unique_name(name: str, origin: str, used: set[str]) -> str:
    """``name``, else ``<name>__<origin>``, else ``<name>__<origin>__2``, ...; added to ``used``."""
    unique = name
    if unique in used:
        unique = f"{name}__{origin}"
        counter = 2
        while unique in used:
            unique = f"{name}__{origin}__{counter}"
            counter += 1
    used.add(unique)
    return unique


def load_toolsdk(data_dir: Path | None = None) -> list[ToolDef]:
    """Load the tools of the ToolSDK MCP registry's validated packages (~8,000).

    Packages are visited in sorted package-name order, tools in the order each
    package lists them. A tool keeps its own ``name`` the first time that name is
    seen; later tools with the same name (700 on the shared data: e.g. 22
    ``search`` tools) are renamed ``<name>__<package-slug>`` (see
    :func:`package_slug`), and if that is still taken, ``__2``, ``__3``, ... is
    appended. Names are otherwise kept as published (some contain ``/``).

    Args:
        data_dir: Shared data folder (default: :func:`default_data_dir`).

    Returns:
        Tools in the visiting order, with unique names; ``parameters`` is the empty
        object schema ``{"type": "object", "properties": {}}`` (the registry has no
        input schemas); a missing description becomes ``""``.

    Raises:
        FileNotFoundError: If ``toolsdk-mcp-registry/packages-list.json`` is missing.
        ValueError: If the file is not a JSON object of packages.
    """
    path = _resolve(data_dir) / "toolsdk-mcp-registry" / "packages-list.json"
    with path.open(encoding="utf-8") as handle:
        packages = json.load(handle)
    if not isinstance(packages, dict):
        msg = f"{path}: expected a JSON object mapping package names to entries"
        raise ValueError(msg)
    used: set[str] = set()
    tools: list[ToolDef] = []
    for package in sorted(packages):
        entry = packages[package]
        if not isinstance(entry, dict) or entry.get("validated") is not True:
            continue
        for key, tool in (entry.get("tools") or {}).items():
            if not isinstance(tool, dict):
                continue
            name = str(tool.get("name") or key).strip()
            if not name:
                continue
            unique = _unique_name(name, package_slug(package), used)
            tools.append(
                ToolDef(
                    unique, str(tool.get("description") or ""), copy.deepcopy(_EMPTY_OBJECT_SCHEMA)
                )
            )
    return tools


# --------------------------------------------------------------------------- scaling


def scale_library(tools: Sequence[ToolDef], n: int) -> list[ToolDef]:
    """Repeat a library under distinct names to get exactly ``n`` tools.

    The originals come first, then whole rounds of copies named ``<name>__r2``,
    ``<name>__r3``, ... (same description, and the *same* ``parameters`` dict
    object, to keep 100,000-tool libraries cheap); the last round is cut short.
    With ``n <= len(tools)`` the first ``n`` originals are returned.

    Args:
        tools: Library with unique names.
        n: Wanted size (>= 0).

    Returns:
        A new list of exactly ``n`` tools with unique names.

    Raises:
        ValueError: If ``n < 0``, ``tools`` is empty while ``n > 0``, ``tools`` has
            duplicate names, or a generated name collides with an original one.
    """
    if n < 0:
        msg = f"n must be >= 0, got {n}"
        raise ValueError(msg)
    names = [tool.name for tool in tools]
    if len(set(names)) != len(names):
        msg = "scale_library needs unique tool names; the input repeats some"
        raise ValueError(msg)
    if n <= len(tools):
        return list(tools[:n])
    if not tools:
        msg = f"cannot scale an empty library to {n} tools"
        raise ValueError(msg)
    out = list(tools)
    seen = set(names)
    round_no = 1
    while len(out) < n:
        round_no += 1
        for tool in tools:
            if len(out) == n:
                break
            name = f"{tool.name}__r{round_no}"
            if name in seen:
                msg = f"scale_library: generated name {name!r} collides with an existing tool"
                raise ValueError(msg)
            seen.add(name)
            out.append(ToolDef(name, tool.description, tool.parameters))
    return out


def merge_libraries(*libraries: Sequence[ToolDef]) -> list[ToolDef]:
    """Concatenate libraries, renaming later tools whose name is already taken.

    Use it to add distractors without touching gold names, e.g.
    ``merge_libraries(bfcl_tools, load_toolsdk())``: the first library keeps every
    name; a later tool whose name is taken becomes ``<name>__lib<i>`` (``i`` = the
    library's 1-based position), then ``<name>__lib<i>__2``, ... if needed.

    Args:
        *libraries: Tool lists, in priority order.

    Returns:
        A new list with all tools, unique names, in input order (renamed tools are
        new ``ToolDef`` objects sharing the original ``parameters``).
    """
    used: set[str] = set()
    out: list[ToolDef] = []
    for index, library in enumerate(libraries, start=1):
        for tool in library:
            name = _unique_name(tool.name, f"lib{index}", used)
            if name != tool.name:
                tool = ToolDef(name, tool.description, tool.parameters)
            out.append(tool)
    return out


def tool_documents(tools: Sequence[ToolDef]) -> list[ToolDocument]:
    """Index documents straight from definitions (what ``ToolLibrary`` builds, without tools)."""
    return [ToolDocument(t.name, t.description, schema_parameters(t.parameters)) for t in tools]
