"""The package's exceptions: one tree rooted at :class:`ToolSearchError`.

::

    ToolSearchError                              raised on purpose
    ├── ToolSearchConfigError (ValueError)       a developer's value is wrong
    │   ├── StoreMissingError                    storage="store" and no store
    │   ├── ToolSearchWiringError                a graph that runs tools unguarded
    │   └── ToolSearchDataError                  a malformed file or document
    │       ├── CorruptVectorFileError           a vector cache file fails a check
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
    └── MCPPoolError (RuntimeError)              an ``MCPSessionPool`` misused
        └── MCPPoolClosedError                   ... after ``close()``

(``config.X`` is ``langchain_toolsearch.config.X``.) Mistakes of the model never
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


class MCPPoolError(ToolSearchError, RuntimeError):
    """An `MCPSessionPool` was used in a way it cannot serve."""


class MCPPoolClosedError(MCPPoolError):
    """A closed `MCPSessionPool` was asked for a session."""


class _LoadsStoreError(Exception):
    """The store that keeps a thread's loads failed (its cause is ``__cause__``).

    Not a ``ToolSearchError``: an outage, answered to the model as one (the
    tool index itself is fine). The message names the cause's type and its text, redacted.
    """


class CorruptVectorFileError(ToolSearchDataError):
    """A vector cache file fails a check (it is ignored where read, then rewritten)."""


__all__ += ["CorruptVectorFileError", "MCPPoolClosedError", "MCPPoolError"]
