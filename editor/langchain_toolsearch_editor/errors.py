"""The editor's exceptions and warnings, each in a family of the core's `ToolSearchError` tree.

::

    ToolSearchError (langchain_toolsearch.errors)
    ├── ToolSearchConfigError (ValueError)
    │   └── ToolSearchDataError
    │       ├── ToolConfigError                   invalid stored tool configuration
    │       └── InputError                        bad input from the web page
    ├── RecordNotFoundError (LookupError)         no such stored record or version
    ├── VersionConflictError                      a write based on a version that moved
    ├── WriteLockError (TimeoutError)             a record's write lock not granted
    ├── BadAuthToken (ValueError)                 an auth token not sendable
    ├── ConfigCommandError                        a ``toolsearch config`` user error
    ├── CsrfError                                 a web page write without its token
    ├── UnreadableValueError (LookupError)        a context value that raised (never escapes)
    └── UncacheableError                          a request value not fingerprinted (never escapes)
    SingleWriterWarning (UserWarning)             a store without a cross-process lock
    TimeoutUnitWarning (DurationUnitWarning)      a saved timeout that looks like milliseconds

Users catch `ToolConfigError`, `RecordNotFoundError`, `VersionConflictError` and
`WriteLockError` (also exported by `langchain_toolsearch_editor`).
"""

from __future__ import annotations

from langchain_toolsearch.errors import DurationUnitWarning, ToolSearchDataError, ToolSearchError

__all__ = [
    "BadAuthToken",
    "ConfigCommandError",
    "CsrfError",
    "InputError",
    "RecordNotFoundError",
    "SingleWriterWarning",
    "TimeoutUnitWarning",
    "ToolConfigError",
    "VersionConflictError",
    "WriteLockError",
]


class ToolConfigError(ToolSearchDataError):
    """Stored tool configuration data is invalid.

    The message has one line per problem, each starting with the path of the
    offending field (``tools[0].rules.conditions[1].operator: ...``).

    Attributes:
        errors: ``(field path, message)`` pairs, in the order found.
    """

    def __init__(self, what: str, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        lines = "\n".join(f"  {path or '<root>'}: {message}" for path, message in errors)
        super().__init__(f"invalid {what}:\n{lines}")


class RecordNotFoundError(ToolSearchError, LookupError):
    """A record, or the requested version of it, does not exist."""


class VersionConflictError(ToolSearchError):
    """A compare-and-set write found the record at another version than expected.

    Also raised by ``publish`` of a version older than the published one without
    ``rollback``. ``expected``: the ``if_version`` given, or the version that publish
    asked for; ``current``: the latest version (``0``: no record), or the published one.
    """

    def __init__(
        self, label: str, record_id: str, expected: int, current: int, *, state: str = ""
    ) -> None:
        self.record_id = record_id
        self.expected = expected
        self.current = current
        if not state:  # a compare-and-set write: what was expected, what was found
            if not expected:
                state = f"already exists at version {current} (if_version=0 expects no record)"
            elif not current:
                state = f"does not exist (if_version={expected} expects version {expected})"
            else:
                state = f"is at version {current}, not version {expected} (if_version={expected})"
            state += (
                f": it changed since it was read; read it again and retry with if_version={current}"
            )
        super().__init__(f"{label} {record_id!r} {state}")


class WriteLockError(ToolSearchError, TimeoutError):
    """A record's write lock was not granted within the timeout, or could not be taken."""


class ConfigCommandError(ToolSearchError):
    """A user error: printed as ``toolsearch config: error: ...``, exit code 1."""


class BadAuthToken(ToolSearchError, ValueError):
    """The request context's auth token cannot be sent as a bearer token."""


class CsrfError(ToolSearchError):
    """A write without a valid CSRF token, or from another origin (answered 403)."""


class InputError(ToolSearchDataError):
    """Bad input from the page: ``errors`` are ``(field path, message)`` pairs."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{p or '<root>'}: {m}" for p, m in errors))


class UnreadableValueError(ToolSearchError, LookupError):
    """A request-context value could not be read; conditions on it are false (never escapes)."""


class UncacheableError(ToolSearchError):
    """A request value that cannot be fingerprinted by what it holds (never escapes)."""


class SingleWriterWarning(UserWarning):
    """The store gives no cross-process write lock: run one writing process."""


class TimeoutUnitWarning(DurationUnitWarning):
    """A saved server ``timeout`` (seconds) looks like milliseconds, the seed system's unit."""
