"""The package's exceptions: one tree rooted at :class:`ToolSearchError`.

::

    ToolSearchError                              raised on purpose
    ├── ToolSearchConfigError (ValueError)       a developer's value is wrong
    │   ├── StoreMissingError                    storage="store" and no store
    │   ├── ToolSearchWiringError                a graph that runs tools unguarded
    │   └── ToolSearchDataError                  a malformed file or document
    │       └── CorruptVectorFileError           a vector cache file fails a check
    ├── ToolSearchTypeError (TypeError)          an object of the wrong kind
    ├── ToolSearchDependencyError (ImportError)  an optional extra is missing
    ├── ToolSearchTimeoutError (TimeoutError)    no answer in time
    ├── ToolSourceError (RuntimeError)           a tool source failed, on_error="raise"
    ├── ToolSearchUsageError (RuntimeError)      an object used where it cannot work
    ├── MCPPoolError (RuntimeError)              an ``MCPSessionPool`` misused
    │   └── MCPPoolClosedError                   ... after ``close()``
    └── UnboundToolCallError (AssertionError)    the offline test model called a tool
                                                 not bound for that model call

    DurationUnitWarning (UserWarning)            seconds that look like milliseconds
    └── TTLUnitWarning                           ... as ``ttl=``

    NotSimpleAnnotation, UnusableIdentifier      internal: caught where raised, never
                                                 seen by a caller
    _LoadsStoreError                             internal: the loaded-tool store failed,
                                                 answered to the model as an outage

The stored-configuration distribution (``langchain_toolsearch_editor.errors``) adds its own
classes to these families. ``__all__`` lists the :class:`ToolSearchError` tree; the
warnings are imported by name. Mistakes of the model never
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


class CorruptVectorFileError(ToolSearchDataError):
    """A vector cache file fails a check (it is ignored where read, then rewritten)."""


class MCPPoolError(ToolSearchError, RuntimeError):
    """An `MCPSessionPool` was used in a way it cannot serve."""


class MCPPoolClosedError(MCPPoolError):
    """A closed `MCPSessionPool` was asked for a session."""


class _LoadsStoreError(Exception):
    """The store that keeps a thread's loads failed (its cause is ``__cause__``).

    Not a ``ToolSearchError``: an outage, answered to the model as one (the
    tool index itself is fine). The message names the cause's type and its text, redacted.
    """


__all__ += ["CorruptVectorFileError", "MCPPoolClosedError", "MCPPoolError"]
