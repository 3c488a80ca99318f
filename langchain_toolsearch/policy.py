"""The filter hook: request-aware allow/deny decisions in three phases, failing closed.

``filter(ToolSearchFilterArgs) -> bool | Awaitable[bool]`` runs in phases ``search``,
``load`` and ``active``; an exception, a non-``True`` answer or no answer within
``filter_timeout`` seconds denies. Sync hooks never run on an event loop; a batch is
decided concurrently, with the caller's context variables.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from collections.abc import Awaitable, Sequence
from typing import Any

from langchain_toolsearch._effects import (
    detached_timeout,
    in_hook_thread,
    on_bridge_loop,
    run_sync,
)
from langchain_toolsearch._internal.durations import as_seconds
from langchain_toolsearch._internal.failures import FailureLog, request_secrets, source_name
from langchain_toolsearch.errors import (
    ToolSearchConfigError,
    ToolSearchTimeoutError,
    ToolSearchTypeError,
)
from langchain_toolsearch.types import FilterFn, ToolSearchFilterArgs

__all__ = ["ToolPolicy", "is_async_callable", "positive_seconds"]

logger = logging.getLogger(__name__)


def is_async_callable(fn: object) -> bool:
    """Whether calling ``fn`` returns a coroutine (``async def`` function or ``__call__``)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004
    )


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


_GRACE = 0.5
"""Seconds a sync caller waits past ``filter_timeout`` for a batch before denying it all."""


async def _answer(hook: FilterFn, args: ToolSearchFilterArgs) -> object:
    value: Any = hook(args)
    return await value if inspect.isawaitable(value) else value


async def _awaited(value: Awaitable[object]) -> object:
    return await value


class ToolPolicy:
    """Wraps the user's filter hook with fail-closed semantics and a timeout.

    Args:
        filter: The hook, or ``None`` to allow everything.
        timeout: Seconds one decision may take (then denied). Timeouts and raising
            hooks are logged at WARNING once per cause (redacted), then at DEBUG.

    Raises:
        ToolSearchTypeError: ``filter`` is not callable.
        ToolSearchConfigError: ``timeout`` is not seconds > 0.
    """

    def __init__(self, filter: FilterFn | None = None, *, timeout: float = 10.0) -> None:
        if filter is not None and not callable(filter):
            raise ToolSearchTypeError(
                f"filter must be a callable (ToolSearchFilterArgs) -> bool, got {type(filter)!r}"
            )
        self._filter = filter
        self._async = is_async_callable(filter)
        self.timeout = positive_seconds("filter_timeout", timeout)
        self._timed_out = False
        self.failures = FailureLog(logger)
        """Distinct causes of filter exceptions (for ``get_state_stats``)."""
        self._name = source_name(filter) if filter is not None else "filter"

    @property
    def enabled(self) -> bool:
        """Whether a hook is set."""
        return self._filter is not None

    @staticmethod
    def _verdict(args: ToolSearchFilterArgs, value: object) -> bool:
        if value is True:
            return True
        if value is not False:
            logger.warning(
                "tool search filter returned a %s for %s (phase %s); only True allows, denying",
                type(value).__name__,
                args.tool_name,
                args.phase,
            )
        return False

    def _deny(self, args: ToolSearchFilterArgs, exc: BaseException) -> bool:
        if isinstance(exc, TimeoutError):
            level = logging.DEBUG if self._timed_out else logging.WARNING
            self._timed_out = True
            logger.log(
                level,
                "tool search filter gave no answer within %s s for %s (phase %s); denying",
                self.timeout,
                args.tool_name,
                args.phase,
            )
            return False
        # once per distinct cause (filter, type, message without secrets), then at DEBUG
        secrets = request_secrets(args.config, args.context)
        self.failures.failed(self._name, exc, "filter", secrets)
        logger.debug("the filter failed for %s (phase %s)", args.tool_name, args.phase)
        return False

    async def _one(self, args: ToolSearchFilterArgs, ctx: contextvars.Context) -> bool:
        assert self._filter is not None
        hook = self._filter
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with detached_timeout(self.timeout):
                if self._async:  # on the package's loop: a blocking one never stalls the caller's
                    value: Any = await on_bridge_loop(ctx.copy().run(_answer, hook, args))
                else:  # never on the event loop
                    value = await in_hook_thread(ctx.copy().run, hook, args)
                    if inspect.isawaitable(value):
                        value = await on_bridge_loop(_awaited(value))
            if loop.time() - started > self.timeout:  # answered, but too late: still no
                raise ToolSearchTimeoutError
        except Exception as exc:  # fail closed on anything the hook raises, timeouts included
            return self._deny(args, exc)
        return self._verdict(args, value)

    async def acheck_many(
        self, batch: Sequence[ToolSearchFilterArgs], ctx: contextvars.Context | None = None
    ) -> list[bool]:
        """Decide a batch concurrently; answers in order."""
        if self._filter is None or not batch:
            return [True] * len(batch)
        context = ctx if ctx is not None else contextvars.copy_context()
        return list(await asyncio.gather(*(self._one(a, context) for a in batch)))

    def check_many(self, batch: Sequence[ToolSearchFilterArgs]) -> list[bool]:
        """Decide a batch from sync code, concurrently on the package's helper loop."""
        if self._filter is None or not batch:
            return [True] * len(batch)
        try:  # the cases run concurrently: the batch takes about one timeout at most
            return run_sync(
                self.acheck_many(batch, contextvars.copy_context()), timeout=self.timeout + _GRACE
            )
        except TimeoutError as exc:  # the package's loop is held by a blocking async hook
            return [self._deny(args, exc) for args in batch]

    def check(self, args: ToolSearchFilterArgs) -> bool:
        """Decide one case synchronously."""
        return self.check_many([args])[0]

    async def acheck(self, args: ToolSearchFilterArgs) -> bool:
        """Decide one case asynchronously."""
        return (await self.acheck_many([args]))[0]
