"""The package's exceptions: one tree rooted at :class:`ToolSearchError`.

::

    ToolSearchError                      anything this package raises on purpose
    ├── ToolSearchConfigError (ValueError)   a bad option value, duplicate or reserved
    │   │                                    tool names, an unknown storage mode, a tool
    │   │                                    name that is not valid Unicode text
    │   ├── StoreMissingError                storage="store" and no LangGraph store
    │   │                                    anywhere (raised at the first model step)
    │   ├── ToolSearchWiringError            a hand-built graph that would run tools
    │   │                                    unguarded or leave loads unbound (raised
    │   │                                    at the first step where it shows)
    │   └── config.ToolConfigError           stored tool configuration data is invalid
    │                                        (one "field path: problem" line per problem)
    ├── ToolSearchTypeError (TypeError)      an object of the wrong kind (a tool that
    │                                        is not a tool, a filter that is not callable)
    ├── ToolSourceError (RuntimeError)       a tool source failed and on_error="raise"
    ├── config.RecordNotFoundError (LookupError)
    │                                        a stored record or version does not exist
    ├── config.connections.BadAuthToken (ValueError)
    │                                        the request's auth token cannot be sent as
    │                                        a bearer token
    └── config.bundle.ConfigCommandError     a ``toolsearch config`` user error (printed
                                             as one line, exit code 1)

(``config.X`` is ``langchain_toolsearch.config.X``.) Errors also subclass
the matching built-in (``ValueError``, ``TypeError``, ``LookupError``), so
``except ValueError`` keeps working. Mistakes of the *model* never raise:
they come back as error ``ToolMessage`` objects and the run goes on.
"""

from __future__ import annotations

__all__ = [
    "StoreMissingError",
    "ToolSearchConfigError",
    "ToolSearchError",
    "ToolSearchTypeError",
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
