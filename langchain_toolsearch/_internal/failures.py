"""Failing tool sources: redacted messages, logged once per distinct cause, kept for stats.

Secrets are the request's credential-named values (``configurable`` keys, context
fields) and anything credential-shaped (`SHAPES`: ``Bearer ...``, ``api_key=...``,
``--token X``, URL user info, ``ghp_...``, ``sk-...``, JWTs...); they become
``[redacted]`` in every error, log line and page (`mask`, `redact`, `mask_args`).
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Generic, TypeVar

from langgraph.runtime import get_runtime
from pydantic import BaseModel, SecretBytes, SecretStr

from langchain_toolsearch.types import SourceFailure, SourceKind

__all__ = ["SHAPES", "CauseLog", "FailureLog", "describe", "mask", "mask_args", "redact"]
__all__ += ["request_secrets", "source_name"]

_K = TypeVar("_K")
_V = TypeVar("_V")

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
    """``text`` masked (`mask`), on one line, words of prose kept; at most 300 characters."""
    text = " ".join(mask(text, secrets).split())
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
        """Count ``failure``; log it at WARNING if its cause is new, else at DEBUG."""
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
            "tool search: %s %r failed%s: %s; %s",
            _LABELS[failure.kind],
            failure.source,
            f" ({failure.error})" if failure.error else "",
            failure.message or "no message",
            "denying" if failure.kind == "filter" else "continuing without its tools",
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
    """Logs a non-source failure's cause at WARNING once, at DEBUG after (thread-safe).

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
        self._logger.log(logging.WARNING if new else logging.DEBUG, self._message, *cause)
        return cause
