"""Small mechanisms every layer shares: failure reports, output bounds, durations, runs.

* Failure reports (:class:`FailureLog`, :class:`CauseLog`, :func:`describe`): a failing
  source or hook is logged at WARNING once per cause, naming the thread it first happened
  in, then at DEBUG with each one's thread (:func:`thread_note`), its message redacted
  (:func:`redact`) and bounded; source failures are counted. One table of
  credential shapes (`SHAPES`: ``Bearer ...``, ``api_key=...``, ``--token X``, URL user
  info, ``ghp_...``, ``sk-...``, JWTs...) masks every error, log line and page
  (:func:`mask`, :func:`redact`, :func:`mask_args`).
* Output bounds (:func:`bound_content`, :func:`bound_result`, :func:`check_limit`): tool
  answers cut at ``max_tool_output_chars``.
* Counters (:func:`count`, :func:`counts`, `COUNTERS`): process-wide, exported through
  OpenTelemetry when it is installed.
* Durations (:func:`as_seconds`, :func:`positive_seconds`): seconds, ``timedelta`` and the
  milliseconds heuristic.
* A graph run's identity and the resolutions kept for it (:class:`Runs`, :func:`run_of`).
* :class:`WeakIdentityMap` (a memo keyed by live objects) and :func:`lazy_exports` (PEP 562).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import logging
import re
import threading
import time
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any, Generic, TypeVar

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.runtime import get_runtime
from pydantic import BaseModel, SecretBytes, SecretStr

from langchain_toolsearch._prompts import TOOL_OUTPUT_DROPPED, TOOL_OUTPUT_TRUNCATED, model_text
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.types import SourceFailure, SourceKind

# -- counters: What the tool search did and what failed, process-wide. Read in-process with
# :func:`counts` (``StateStats.counters``); exported as OpenTelemetry counters of the meter
# ``"langchain_toolsearch"`` when ``opentelemetry-api`` is installed (whichever
# ``MeterProvider`` the application sets, even after the first count). Attributes are
# bounded: server names, exception class names and fixed reasons, at most `SERIES` sets per
# counter; never a thread id, a message or a credential. docs/deploying.md lists them.

METER_NAME = "langchain_toolsearch"

COUNTERS: dict[str, str] = {
    "toolsearch.search.calls": "search_tools calls",
    "toolsearch.search.no_hit": "search_tools calls that found nothing",
    "toolsearch.load.calls": "load_tool calls and load_on_call loads",
    "toolsearch.call.refused": "tool calls refused by the guard, by reason",
    "toolsearch.source.failures": "failed tool sources (resolver, MCP, provider, filter), by kind",
    "toolsearch.mcp.call_failures": "MCP tool calls without an answer, by server and cause",
    "toolsearch.mcp.list_failures": "failed listings of an MCP server's tools",
    "toolsearch.mcp.session_failures": "open MCP sessions lost on their own",
    "toolsearch.store.errors": "failed loaded-tool store operations, by operation and cause",
    "toolsearch.run.reruns": "tool calls found started before (a re-run after a crash)",
}
"""Every counter's name and description (the OpenTelemetry instruments)."""

_ATTRIBUTE_CHARS = 80
SERIES = 200
"""Most attribute sets one counter keeps (and exports); more count as ``other``."""

_lock = threading.Lock()
_counts: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()
_series: dict[str, int] = {}
_instruments: dict[str, Any] = {}
_meter: list[Any] = []
"""The OpenTelemetry meter, ``None`` without ``opentelemetry-api``; empty until first used."""


def _otel_meter() -> Any:
    """The meter ``"langchain_toolsearch"``, or ``None`` without ``opentelemetry-api``."""
    if not _meter:
        try:
            from opentelemetry import metrics  # the extra [otel]
        except ImportError:
            _meter.append(None)
        else:
            _meter.append(metrics.get_meter(METER_NAME))
    return _meter[0]


def count(name: str, **attributes: str) -> None:
    """Add one to counter ``name`` (a key of `COUNTERS`) with ``attributes``.

    A counter keeps at most `SERIES` attribute sets (server names are chosen by whoever
    configures a server); later new sets count under ``other`` for every attribute.
    """
    description = COUNTERS[name]  # a name not declared fails with or without OpenTelemetry
    attrs = tuple(sorted((key, str(value)[:_ATTRIBUTE_CHARS]) for key, value in attributes.items()))
    with _lock:
        if (name, attrs) not in _counts:
            _series[name] = seen = _series.get(name, 0) + 1
            if seen > SERIES:
                attrs = tuple((key, "other") for key, _ in attrs)
        _counts[(name, attrs)] += 1
        instrument = _instruments.get(name)
        if name not in _instruments:
            meter = _otel_meter()
            _instruments[name] = instrument = (
                None
                if meter is None
                else meter.create_counter(name, unit="1", description=description)
            )
    if instrument is not None:
        instrument.add(1, dict(attrs))


def counts() -> dict[str, int]:
    """Every count so far, keyed ``name`` or ``name{key=value,...}`` (attributes sorted)."""
    with _lock:
        items = sorted(_counts.items())
    return {
        name + ("{" + ",".join(f"{k}={v}" for k, v in attrs) + "}" if attrs else ""): value
        for (name, attrs), value in items
    }


# -- durations: Durations given by developers: seconds or ``timedelta``, and millisecond-looking


def as_seconds(value: object) -> object:
    """``value`` in seconds (a float) if it is a ``timedelta``, else ``value`` unchanged."""
    return value.total_seconds() if isinstance(value, timedelta) else value


def positive_seconds(name: str, value: object) -> float:
    """``value`` (seconds or a ``timedelta``) as seconds > 0.

    Raises:
        ToolSearchConfigError: Not a finite positive number of seconds.
    """
    given, value = value, as_seconds(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise ToolSearchConfigError(
            f"{name} must be a number of seconds > 0 (and < 1e9) or a timedelta, got {given!r}"
        )
    return float(value)


def seconds_of(value: float | timedelta) -> float:
    """``value`` in seconds, as a float."""
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def looks_like_ms_ttl(seconds: float) -> bool:
    """A ``ttl`` that is a whole multiple of 1,000 from 1,000 up (3600, 86400 are not)."""
    return seconds >= 1000 and seconds % 1000 == 0


def looks_like_ms_timeout(seconds: float) -> bool:
    """Looks like ms: a multiple of 1,000, or 100-999 in steps of 50 but not whole minutes."""
    if looks_like_ms_ttl(seconds):
        return True
    return 100 <= seconds < 1000 and seconds % 50 == 0 and seconds % 60 != 0


_CONVERTED: ContextVar[bool] = ContextVar("toolsearch_ms_converted", default=False)


@contextlib.contextmanager
def converted_from_milliseconds() -> Iterator[None]:
    """Within it, durations were converted from milliseconds: none warns (``from_mastra``)."""
    token = _CONVERTED.set(True)
    try:
        yield
    finally:
        _CONVERTED.reset(token)


def ms_conversion_active() -> bool:
    """Whether the durations being validated were converted from milliseconds."""
    return _CONVERTED.get()


# -- weakmemo: Values remembered per live object, by identity, gone when the object is collected.

_V = TypeVar("_V")


class WeakIdentityMap(Generic[_V]):
    """``object -> value`` by identity while the object lives, at most ``size`` (oldest out).

    Thread-safe; unhashable objects work.

    Args:
        size: Most entries kept.
    """

    def __init__(self, *, size: int = 256) -> None:
        self._data: dict[int, tuple[weakref.ref[Any], _V]] = {}
        self._size = size
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Entries whose object is alive (count)."""
        return len(self._data)

    def get(self, key: object) -> _V | None:
        """The value remembered for this very object, or ``None``."""
        entry = self._data.get(id(key))
        return entry[1] if entry is not None and entry[0]() is key else None

    def put(self, key: object, value: _V) -> bool:
        """Remember ``value`` for ``key``; ``False`` if it has no weak reference."""
        data, slot = self._data, id(key)

        def gone(ref: weakref.ref[Any]) -> None:
            entry = data.get(slot)
            if entry is not None and entry[0] is ref:
                data.pop(slot, None)

        try:
            ref = weakref.ref(key, gone)
        except TypeError:  # a plain dict or string in a hand-built state
            return False
        with self._lock:
            data.pop(slot, None)  # re-inserted last: the newest
            data[slot] = (ref, value)
            while len(data) > self._size:
                try:
                    data.pop(next(iter(data)), None)
                except RuntimeError:  # an entry's object died meanwhile (its callback): again
                    continue
        return True


# -- lazy: PEP 562 lazy exports: a package's names imported from their modules on first use.


def lazy_exports(
    namespace: dict[str, Any], modules: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a package whose ``modules`` map name -> module.

    ``namespace`` is the package's ``globals()``: a name, once imported, is put
    there, so the next lookup is a plain attribute. ``__getattr__`` raises
    ``AttributeError`` for any other name (what the import system expects).
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(importlib.import_module(module), name)
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *modules})

    return __getattr__, __dir__


# -- failures: Failing tool sources: redacted messages, logged once per distinct cause, kept for

_K = TypeVar("_K")

REDACTED = "[redacted]"
MESSAGE_LIMIT = 300
"""Most characters of a failure message kept (after redaction)."""

_SECRET_KEY = re.compile(
    r"token|secret|passw|pwd|auth|credential|cookie|session|api[-_]?key|apikey|"
    r"private|signature|bearer|jwt|key$",
    re.IGNORECASE,
)
_STRONG_KEYS = (
    r"pass(?:word|wd|phrase)?|pwd|secret|client[-_]?secret|api[-_]?key|apikey|x-api-key|"
    r"access[-_]?token|refresh[-_]?token|id[-_]?token|private[-_]?key|"
    r"(?:proxy-)?authorization|(?:set-)?cookie|x-auth-token|signature|sig"
)
"""Names whose value is a credential whatever it looks like (headers, parameters, fields)."""
_WEAK_KEYS = r"token|auth|session|credentials?|[a-z_-]{0,40}key"
"""Names whose value is a credential when assigned (``=``, quoted) or credential-shaped."""
_CREDENTIAL_NAME = rf"(?:[a-z0-9]{{1,40}}[_-]){{0,6}}?(?:(?P<strong>{_STRONG_KEYS})|{_WEAK_KEYS})"
"""A credential's name, env-style prefixes allowed (``GITHUB_TOKEN``, ``--db-password``)."""
_PLAIN_WORD = re.compile(r"[A-Za-z][a-z]{0,11}")
"""A word of prose ("expired", "Invalid"): a cause, not a credential."""


def _credential_name(name: str) -> bool:
    """Whether ``name`` is a credential's (`_STRONG_KEYS`, `_WEAK_KEYS`, env-style prefixes)."""
    return re.fullmatch(_CREDENTIAL_NAME, name, re.IGNORECASE) is not None


def _pair(match: re.Match[str]) -> str:
    """A ``key: value`` pair with its value redacted, unless a weak key's bare word."""
    strength = "strong" if match.group("strong") else "weak"
    head = match.group("key") + match.group("sep")
    bare = match.group("bare")
    if bare is not None:
        assigned = "=" in match.group("sep") or "%3d" in match.group("sep").lower()
        if not assigned and strength == "weak" and _PLAIN_WORD.fullmatch(bare):
            return match.group(0)
        return head + REDACTED
    quote = match.group("q")
    return f"{head}{quote}{REDACTED}{quote}"


def _flag(match: re.Match[str]) -> str:
    """``--token value``: the value redacted (a weak name's word of prose kept)."""
    if not match.group("strong") and _PLAIN_WORD.fullmatch(match.group("value")):
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + REDACTED


def _scheme(match: re.Match[str]) -> str:
    value = match.group("value")
    if _PLAIN_WORD.fullmatch(value):  # "Bearer token expired": no credential given
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + REDACTED


_Replace = Callable[[re.Match[str]], str] | None
SHAPES: dict[str, tuple[re.Pattern[str], _Replace]] = {
    # key=value, key: value, "key": "value" (JSON), Header: scheme value, ?api_key=...
    "assignment": (
        re.compile(
            rf"\b(?P<key>{_CREDENTIAL_NAME})(?P<sep>[\"']?\s*(?:=|%3d|:)\s*)"
            r"(?:(?P<q>[\"'])(?P<quoted>[^\"'\n]{0,2000})(?P=q)"
            r"|(?P<bare>(?:(?:bearer|basic|digest|token|negotiate)\s+)?[^\s\"',;&}]+))",
            re.IGNORECASE,
        ),
        _pair,
    ),
    # a command line's --token value, --password value, -api-key value
    "flag": (
        re.compile(
            rf"(?<![\w-])--?(?P<name>{_CREDENTIAL_NAME})\s+(?P<value>(?!-)[^\s\"',;]+)",
            re.IGNORECASE,
        ),
        _flag,
    ),
    # an Authorization scheme and its credentials in prose
    "auth-scheme": (
        re.compile(r"\b(?:bearer|basic)(?:\s+|%20|\+)(?P<value>[A-Za-z0-9._~+/=:%-]{4,})", re.I),
        _scheme,
    ),
    "url-userinfo": (re.compile(r"(?<=://)[^/\s@]+(?=@)"), None),  # user:password@, token@
    # the same, percent-encoded in another URL's query (?next=https%3A%2F%2Fuser%3Apw%40host)
    "url-userinfo-encoded": (re.compile(r"(?i)(?<=%3A%2F%2F)(?:(?!%2F)[^/\s@&])+?(?=%40)"), None),
    "github-token": (re.compile(r"\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{8,}"), None),
    "slack-token": (re.compile(r"\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]{8,}"), None),
    "api-key-prefix": (re.compile(r"\b(?:sk|pk|rk)(?:-|_live_|_test_)[A-Za-z0-9_-]{8,}"), None),
    "aws-access-key": (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), None),
    "google-api-key": (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), None),
    "gitlab-token": (re.compile(r"\bgl(?:pat|dt|rt)-[A-Za-z0-9_-]{16,}"), None),
    "huggingface-token": (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), None),
    "jwt": (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), None),
}
"""The one table of credential shapes: name -> (pattern, replacement; ``None``: the match).

Applied in order by `mask` (pages, exports, diffs), `redact` (errors, log
lines) and `mask_args` (a command's argument list).
"""


def mask(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with ``secrets`` and every credential shape (`SHAPES`) ``[redacted]``."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern, replace_with in SHAPES.values():
        text = pattern.sub(replace_with or REDACTED, text)
    return text


def mask_args(args: Iterable[str], secrets: Iterable[str] = ()) -> list[str]:
    """A command's arguments masked, and the value after a credential flag (``--token X``)."""
    shown: list[str] = []
    after_flag = False
    for arg in args:
        masked = REDACTED if after_flag and not arg.startswith("-") else mask(arg, secrets)
        shown.append(masked)
        name = arg.lstrip("-")
        after_flag = arg.startswith("-") and _credential_name(name)
    return shown


_LABELS: dict[str, str] = {
    "resolver": "tool source",
    "mcp": "MCP server",
    "provider": "tool provider",
    "filter": "filter",
    "config": "stored tool config entry",
}
_MAX_DEPTH = 3
_MAX_NESTING = 6
"""Levels of non-credential keys searched for credential-named ones below them."""
_MAX_VISITS = 10_000
"""Most keys looked at per request (bounded work on a hostile context)."""


def _is_record(value: Any) -> bool:
    """A pydantic model or dataclass instance (whose fields may hold credentials)."""
    return isinstance(value, BaseModel) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    )


def _secret_values(value: Any, found: set[str], depth: int) -> None:
    """Every string in ``value`` (nested mappings and lists, pydantic secrets; bounded depth)."""
    if isinstance(value, SecretStr | SecretBytes):
        secret = value.get_secret_value()
        value = secret if isinstance(secret, str) else secret.decode("utf-8", "replace")
    if isinstance(value, str):
        text = value.strip()
        if len(text) >= 4:
            found.add(text)
            parts = text.split(None, 1)  # "Bearer <token>": the token alone too
            if len(parts) == 2 and len(parts[1]) >= 4:
                found.add(parts[1])
    elif depth < _MAX_DEPTH and isinstance(value, Mapping):
        for item in value.values():
            _secret_values(item, found, depth + 1)
    elif depth < _MAX_DEPTH and isinstance(value, list | tuple):
        for item in value:
            _secret_values(item, found, depth + 1)


def _fields(obj: Any) -> Mapping[str, Any]:
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return obj
    if isinstance(obj, BaseModel):
        return {name: getattr(obj, name, None) for name in type(obj).model_fields}
    try:
        return {k: v for k, v in vars(obj).items() if isinstance(k, str)}
    except TypeError:
        return {}


def current_runtime() -> Any:
    """The running graph's ``Runtime``, or ``None`` outside a run."""
    try:
        return get_runtime()
    except (RuntimeError, KeyError):
        return None


def thread_note(first: bool) -> str:
    """`` (first in thread T)`` / `` (in thread T)`` of the running graph's thread id, redacted.

    ``""`` outside a run with a thread id.
    """
    try:
        thread = (get_config().get("configurable") or {}).get("thread_id")
    except RuntimeError:
        return ""
    if thread is None or thread == "":
        return ""
    return f" ({'first in' if first else 'in'} thread {redact(str(thread))[:80]})"


def request_secrets(config: Mapping[str, Any] | None, context: Any = None) -> frozenset[str]:
    """Credential-like values of a request: never shown in a failure message.

    Args:
        config: The request's ``RunnableConfig`` (its ``configurable`` keys).
        context: The run's context; ``None``: the running graph's, if any.

    Returns:
        The strings of credential-named keys and fields, nested ones too (bounded).
    """
    configurable = (config or {}).get("configurable") or {}
    if context is None:
        context = getattr(current_runtime(), "context", None)
    found: set[str] = set()
    budget = [_MAX_VISITS]
    _secrets_under(configurable, found, 0, budget)
    _secrets_under(_fields(context), found, 0, budget)
    return frozenset(found)


def _secrets_under(
    source: Mapping[Any, Any], found: set[str], depth: int, budget: list[int]
) -> None:
    """Values of credential-named keys in ``source`` and in what it nests (bounded work)."""
    for key, value in source.items():
        budget[0] -= 1
        if budget[0] < 0:
            return
        if not isinstance(key, str) or key.startswith("__"):
            continue
        if _SECRET_KEY.search(key):
            _secret_values(value, found, 0)
        elif depth < _MAX_NESTING:
            items = value if isinstance(value, list | tuple) else (value,)
            for item in items[:_MAX_VISITS]:
                if isinstance(item, Mapping) or _is_record(item):
                    _secrets_under(_fields(item), found, depth + 1, budget)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` masked (`mask`), one line, escapes dropped (`model_text`); at most 300 chars."""
    text = model_text(mask(text, secrets))
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def describe(exc: BaseException, secrets: Iterable[str] = ()) -> tuple[str, str]:
    """``(exception type name, redacted message)`` of ``exc`` (its notes too)."""
    name = type(exc).__name__
    notes = [str(n) for n in getattr(exc, "__notes__", ())]
    if isinstance(exc, TimeoutError) and not str(exc).strip() and not notes:
        return name, "timed out: no answer within the timeout"
    return name, redact("; ".join(t for t in (str(exc).strip(), *notes) if t), secrets)


def source_name(source: object) -> str:
    """A readable name for a tool source (its ``name``, function name or type)."""
    for attribute in ("name", "__name__"):
        name = getattr(source, attribute, None)
        if isinstance(name, str) and name:
            return name
    return type(source).__name__


class _Recent(Generic[_K, _V]):
    """The latest ``size`` distinct keys with a value each (thread-safe)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[_K, _V] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: _K, make: Callable[[_V | None], _V]) -> bool:
        """Set ``key`` to ``make(previous or None)`` as the newest; whether it is new."""
        with self._lock:
            new = key not in self._items
            previous = self._items.pop(key, None)
            self._items[key] = make(previous)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return new

    def values(self) -> tuple[_V, ...]:
        """The values kept, oldest first."""
        with self._lock:
            return tuple(self._items.values())


class FailureLog:
    """Logs each distinct failure cause once and keeps the latest ``size`` (thread-safe)."""

    def __init__(self, logger: logging.Logger, *, size: int = 64) -> None:
        self._logger = logger
        self._seen: _Recent[tuple[str, str, str], SourceFailure] = _Recent(size)

    def record(self, failure: SourceFailure) -> None:
        """Count ``failure``; log it at WARNING if its cause is new, else at DEBUG (its thread)."""
        count("toolsearch.source.failures", kind=failure.kind, cause=failure.error or "-")
        key = (failure.source, failure.error, failure.message)
        now = time.time()
        new = self._seen.put(
            key,
            lambda previous: replace(
                failure, count=1 if previous is None else previous.count + 1, last_seen=now
            ),
        )
        level = logging.WARNING if new else logging.DEBUG
        self._logger.log(
            level,
            "tool search: %s %r failed%s: %s; %s%s",
            _LABELS[failure.kind],
            failure.source,
            f" ({failure.error})" if failure.error else "",
            failure.message or "no message",
            "denying" if failure.kind == "filter" else "continuing without its tools",
            thread_note(new),
        )

    def failed(
        self, source: str, exc: BaseException, kind: SourceKind, secrets: Iterable[str] = ()
    ) -> SourceFailure:
        """Record an exception of ``source``; return its description."""
        error, message = describe(exc, secrets)
        failure = SourceFailure(source=source, kind=kind, error=error, message=message)
        self.record(failure)
        return failure

    def snapshot(self) -> tuple[SourceFailure, ...]:
        """The distinct causes kept, oldest first, with counts and last-seen times."""
        return self._seen.values()


class CauseLog:
    """Logs a non-source failure's cause at WARNING once, at DEBUG after, with its thread.

    Args:
        logger: Where to log.
        message: ``%``-format with two ``%s``: the exception type and message.
        size: Most distinct causes remembered.
    """

    def __init__(self, logger: logging.Logger, message: str, *, size: int = 64) -> None:
        self._logger = logger
        self._message = message
        self._seen: _Recent[tuple[str, str], None] = _Recent(size)

    def failed(self, exc: BaseException) -> tuple[str, str]:
        """Log ``exc``; return its cause (type name, redacted message)."""
        cause = describe(exc)
        new = self._seen.put(cause, lambda previous: None)
        level = logging.WARNING if new else logging.DEBUG
        self._logger.log(level, self._message + "%s", *cause, thread_note(new))
        return cause


# -- bounds: Tool output cut to a number of characters, with a marker the model can read.


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: UTF-8 bytes / 4, rounded up (characters / 4 for ASCII)."""
    return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4


DEFAULT_MAX_OUTPUT_CHARS = 100_000
"""Characters of an MCP tool's output kept unless ``max_output_chars`` says otherwise."""


def check_limit(
    name: str, limit: object, unit: str = "characters", *, optional: bool = True
) -> int | None:
    """``limit`` if it is an int >= 1 (or ``None`` when ``optional``).

    Raises:
        ToolSearchConfigError: Otherwise, naming ``name`` and ``unit`` (``""``: none shown).
    """
    if limit is None and optional:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        shown = f" ({unit})" if unit else ""
        bound = " or None (no bound)" if optional else ""
        raise ToolSearchConfigError(f"{name} must be an int >= 1{shown}{bound}, got {limit!r}")
    return limit


def _size(value: Any, limit: int) -> int:
    """Characters of the strings in ``value`` (nested), stopping once above ``limit``."""
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        total += 1 if not isinstance(item, str) else len(item)
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return total


def _text_of(block: Any) -> str | None:
    if isinstance(block, str):
        return block
    if isinstance(block, Mapping) and block.get("type") == "text":
        text = block.get("text")
        return text if isinstance(text, str) else None
    return None


def bound_content(content: Any, limit: int | None) -> Any:
    """``content`` cut to ``limit`` characters plus the marker (itself when it fits).

    Args:
        content: A string or a list of strings and content blocks.
        limit: Characters kept (``None``: no bound).

    Returns:
        ``content``, or a string (for a string) or a list ending with the marker block.
    """
    if limit is None:
        return content
    if isinstance(content, str):
        if len(content) <= limit:
            return content
        return content[:limit] + TOOL_OUTPUT_TRUNCATED.format(
            shown=limit, total=len(content), dropped=""
        )
    if not isinstance(content, list):
        return content
    sizes = [len(text) if (text := _text_of(b)) is not None else _size(b, limit) for b in content]
    total = sum(sizes)
    if total <= limit:
        return content
    kept: list[Any] = []
    left, dropped = limit, 0
    for block, size in zip(content, sizes, strict=True):
        text = _text_of(block)
        if size <= left:
            kept.append(block)
            left -= size
        elif text is not None and left > 0:
            cut = text[:left]
            kept.append(cut if isinstance(block, str) else {**block, "text": cut})
            left = 0
        elif text is None:
            dropped += 1
    shown = limit - left
    more = TOOL_OUTPUT_DROPPED.format(count=dropped) if dropped else ""
    marker = TOOL_OUTPUT_TRUNCATED.format(shown=shown, total=total, dropped=more)
    kept.append({"type": "text", "text": marker})
    return kept


def bound_result(result: Any, limit: int | None) -> Any:
    """A tool's return value with its content bounded (`bound_content`).

    Args:
        result: Content, a ``(content, artifact)`` pair, or a ``ToolMessage``; anything
            else (a ``Command``) is returned as is.
        limit: Characters kept (``None``: no bound).

    Returns:
        The same shape, bounded; an artifact over the bound becomes ``None``.
    """
    if limit is None:
        return result
    if isinstance(result, ToolMessage):
        bounded = bound_content(result.content, limit)
        return (
            result if bounded is result.content else result.model_copy(update={"content": bounded})
        )
    if isinstance(result, tuple) and len(result) == 2:
        content, artifact = result
        if artifact is not None and _size(artifact, limit) > limit:
            artifact = None
        return bound_result(content, limit), artifact
    return bound_content(result, limit)


# -- runs: A graph run's identity and the resolutions kept for it while it runs.

Resolution = TypeVar("Resolution")

_PER_STEP_KEYS = frozenset({"checkpoint_id", "checkpoint_map", "checkpoint_ns"})
"""``configurable`` keys LangGraph sets anew for each step (not part of a caller's identity)."""


@dataclass(frozen=True, eq=False)
class RunId:
    """One run's identity: its control and the caller's ``configurable`` values and context.

    A graph invoked inside another's node shares its control; the caller's values (by
    identity, held while kept) tell such runs apart.

    Attributes:
        control: The run's ``Runtime.control``.
        inputs: ``id`` of the run context and ``(id(key), id(value))`` of the items.
        held: The values themselves (kept alive, never compared).
    """

    control: Any
    inputs: tuple[Any, ...]
    held: tuple[Any, ...] = field(repr=False)


class Runs(Generic[Resolution]):
    """Resolutions of the runs in progress, weakly keyed by the run's stream writer; thread-safe."""

    def __init__(self) -> None:
        self._done: weakref.WeakKeyDictionary[
            Any, dict[tuple[Any, ...], tuple[RunId, Resolution]]
        ] = weakref.WeakKeyDictionary()
        self._pending: weakref.WeakKeyDictionary[
            Any, dict[tuple[Any, ...], tuple[RunId, asyncio.Future[Resolution]]]
        ] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    @staticmethod
    def _find(table: Any, run: tuple[Any, RunId]) -> Any:
        entry = table.get(run[0], {}).get(run[1].inputs)
        return entry[1] if entry is not None and entry[0].control is run[1].control else None

    def get(self, run: tuple[Any, RunId]) -> Resolution | None:
        with self._lock:
            found: Resolution | None = self._find(self._done, run)
        return found

    def put(self, run: tuple[Any, RunId], value: Resolution) -> Resolution:
        """Keep ``value`` for the run, unless another step kept one first (returned then)."""
        with self._lock:
            found: Resolution | None = self._find(self._done, run)
            if found is not None:
                return found
            self._done.setdefault(run[0], {})[run[1].inputs] = (run[1], value)
            return value

    def pending(self, run: tuple[Any, RunId]) -> asyncio.Future[Resolution] | None:
        """The resolution of ``run`` under way on this event loop, if any."""
        with self._lock:
            future: asyncio.Future[Resolution] | None = self._find(self._pending, run)
        if future is None:
            return None
        return future if future.get_loop() is asyncio.get_running_loop() else None

    def start(self, run: tuple[Any, RunId]) -> asyncio.Future[Resolution]:
        future: asyncio.Future[Resolution] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._pending.setdefault(run[0], {})[run[1].inputs] = (run[1], future)
        return future

    def finish(self, run: tuple[Any, RunId], future: asyncio.Future[Resolution]) -> None:
        with self._lock:
            table = self._pending.get(run[0], {})
            entry = table.get(run[1].inputs)
            if entry is not None and entry[1] is future:
                del table[run[1].inputs]


def run_of(config: RunnableConfig) -> tuple[Any, RunId] | None:
    """``(stream writer, RunId)`` of the running graph run, or ``None`` outside a run."""
    runtime = current_runtime()
    control = getattr(runtime, "control", None)
    writer = getattr(runtime, "stream_writer", None)
    if control is None or writer is None:
        return None
    try:
        weakref.ref(writer)
        hash(writer)
    except TypeError:
        return None
    configurable = config.get("configurable") or {}
    items = [
        (key, value)
        for key, value in configurable.items()
        if not (isinstance(key, str) and (key.startswith("__") or key in _PER_STEP_KEYS))
    ]
    context = getattr(runtime, "context", None)
    inputs = (id(context), *((id(key), id(value)) for key, value in items))
    held = (context, *items)
    return writer, RunId(control, inputs, held)
