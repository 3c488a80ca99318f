"""The package's exceptions: one tree rooted at :class:`ToolSearchError`.

::

    ToolSearchError                          anything this package raises on purpose
    ├── ToolSearchConfigError (ValueError)   a value the developer gave is wrong: an option
    │   │                                    out of range, duplicate or reserved tool names,
    │   │                                    an unknown storage mode, no tools=, a tool name
    │   │                                    that is not valid Unicode text
    │   ├── StoreMissingError                storage="store" and no LangGraph store where the
    │   │                                    loads live (first model step, get_loaded_tools,
    │   │                                    get_state_stats, clear_state)
    │   ├── ToolSearchWiringError            a hand-built graph that would run tools
    │   │                                    unguarded or leave loads unbound (raised at
    │   │                                    the first step where it shows)
    │   └── ToolSearchDataError              a file or document given is malformed: a tool
    │       │                                catalog, an evaluation query file, an MCP
    │       │                                config file
    │       └── config.ToolConfigError       stored tool configuration is invalid (one
    │                                        "field path: problem" line per problem)
    ├── ToolSearchTypeError (TypeError)      an object of the wrong kind: a tool that is not
    │                                        a tool, a filter that is not callable, an
    │                                        index= that is not an index
    ├── ToolSearchDependencyError (ImportError)  an optional extra is not installed; the
    │                                        message names it ([mcp], [semantic])
    ├── ToolSearchTimeoutError (TimeoutError)    something waited for gave no answer in
    │                                        time (a resolver, a bridged coroutine)
    ├── ToolSourceError (RuntimeError)       a tool source failed and on_error="raise"
    ├── ToolSearchUsageError (RuntimeError)  an object used where it cannot work (a sync
    │                                        call on an async store from its own loop)
    ├── config.RecordNotFoundError (LookupError)  a stored record or version does not exist
    ├── config.VersionConflictError          a save / publish / delete based on a version
    │                                        that moved (compare-and-set, if_version=)
    ├── config.WriteLockError (TimeoutError) a record's write lock not granted in
    │                                        lock_timeout seconds
    ├── config.connections.BadAuthToken (ValueError)  the request's auth token cannot be
    │                                        sent as a bearer token
    ├── config.bundle.ConfigCommandError     a ``toolsearch config`` user error (printed as
    │                                        one line, exit code 1)
    └── mcp_pool.MCPPoolError (RuntimeError) an ``MCPSessionPool`` used in a way it cannot
        └── mcp_pool.MCPPoolClosedError      serve (e.g. after ``close()``)

(``config.X`` is ``langchain_toolsearch.config.X``.) Each family also
subclasses the matching built-in, so ``except ValueError`` / ``TypeError`` /
``ImportError`` / ``TimeoutError`` keep working, and ``except ToolSearchError``
catches everything the package raises on purpose. Mistakes of the *model*
never raise: they come back as error ``ToolMessage`` objects and the run goes
on (a tool's own failure is LangChain's ``ToolException``, answered the same
way).
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
    """A ``ToolSearchNode`` graph is wired so tools could run unguarded or loads stay unbound.

    Raised during a run, at the first step where the wiring shows (a tools
    node without the execution guard or listing library tools, a tools edge
    that skips the tool-search node); the message names the fix.
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
