"""The package's exceptions: one tree rooted at :class:`ToolSearchError`.

::

    ToolSearchError                              raised on purpose
    ├── ToolSearchConfigError (ValueError)       a developer's value is wrong
    │   ├── StoreMissingError                    storage="store" and no store
    │   ├── ToolSearchWiringError                a graph that runs tools unguarded
    │   └── ToolSearchDataError                  a malformed file or document
    │       └── config.ToolConfigError           invalid stored tool configuration
    ├── ToolSearchTypeError (TypeError)          an object of the wrong kind
    ├── ToolSearchDependencyError (ImportError)  an optional extra is missing
    ├── ToolSearchTimeoutError (TimeoutError)    no answer in time
    ├── ToolSourceError (RuntimeError)           a tool source failed, on_error="raise"
    ├── ToolSearchUsageError (RuntimeError)      an object used where it cannot work
    ├── config.RecordNotFoundError (LookupError) no such stored record or version
    ├── config.VersionConflictError              a write based on a version that moved
    ├── config.WriteLockError (TimeoutError)     a record's write lock not granted
    ├── config.servers.BadAuthToken (ValueError) an auth token not sendable
    ├── cli.bundle.ConfigCommandError            a ``toolsearch config`` user error
    ├── mcp.pool.MCPPoolError (RuntimeError)     an ``MCPSessionPool`` misused
    │   └── mcp.pool.MCPPoolClosedError          ... after ``close()``
    └── UnboundToolCallError (AssertionError)    the offline test model called a tool
                                                 not bound for that model call

    DurationUnitWarning (UserWarning)            seconds that look like milliseconds
    ├── TTLUnitWarning                           ... as ``ttl=``
    └── config.servers.TimeoutUnitWarning        ... as a stored server's timeout

    NotSimpleAnnotation, UnusableIdentifier      internal: caught where raised, never
                                                 seen by a caller

(``config.X`` is ``langchain_toolsearch.config.X``; ``__all__`` lists the
:class:`ToolSearchError` tree, the warnings are imported by name.) Mistakes of the model never
raise: they come back as error ``ToolMessage`` objects.
"""

from __future__ import annotations

__all__ = [
    "StoreMissingError",
    "ToolSearchConfigError",
    "ToolSearchDataError",
    "ToolSearchDependencyError",
    "ToolSearchError",
    "ToolSearchTimeoutError",
    "ToolSearchTypeError",
    "ToolSearchUsageError",
    "ToolSearchWiringError",
    "ToolSourceError",
    "UnboundToolCallError",
]


class ToolSearchError(Exception):
    """Base of every exception this package raises on purpose."""


class ToolSearchConfigError(ToolSearchError, ValueError):
    """A developer-supplied value is invalid; the message says what to change."""


class ToolSearchTypeError(ToolSearchError, TypeError):
    """A developer-supplied object has the wrong type; the message names the expected one."""


class StoreMissingError(ToolSearchConfigError):
    """``storage="store"`` but neither ``store=`` nor the graph provides a LangGraph store."""


class ToolSearchWiringError(ToolSearchConfigError):
    """A ``ToolSearchNode`` graph wired so tools could run unguarded or loads stay unbound.

    Raised at the first step of a run where it shows; the message names the fix.
    """


class ToolSourceError(ToolSearchError, RuntimeError):
    """A tool source (resolver, MCP server, provider) failed and ``on_error="raise"``.

    Attributes:
        failures: What failed (`SourceFailure` values, never a secret).
    """

    def __init__(self, message: str, failures: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.failures = failures


class ToolSearchUsageError(ToolSearchError, RuntimeError):
    """An object is used where it cannot work; the message names the call to use instead."""


class ToolSearchDataError(ToolSearchConfigError):
    """A file or document the developer gave is malformed; the message names where."""


class ToolSearchDependencyError(ToolSearchError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class ToolSearchTimeoutError(ToolSearchError, TimeoutError):
    """Something this package waited for gave no answer within its timeout (seconds)."""


class UnboundToolCallError(ToolSearchError, AssertionError):
    """A scripted tool call names a tool not bound for that model call (lists the bound ones)."""


class DurationUnitWarning(UserWarning):
    """A duration given in seconds looks like milliseconds (the seed system's unit)."""


class TTLUnitWarning(DurationUnitWarning):
    """``ttl`` looks like milliseconds (Mastra's unit) given where seconds are expected."""


class NotSimpleAnnotation(Exception):  # control flow, caught where raised
    """An annotation that needs the full JSON schema (nested models, ...)."""


class UnusableIdentifier(Exception):  # control flow, caught where raised
    """A schema identifier (parameter name, allowed value) is not model text."""
