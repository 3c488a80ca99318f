"""The package's one bridge from synchronous code to awaitables: a daemon event loop.

Sync paths hand awaitables to one loop in a daemon thread (safe under a running loop,
where ``asyncio.run`` raises). Timers carry no request context
(:func:`detached_timeout`); users' sync hooks run in the package's own threads
(:func:`in_hook_thread`), never the default executor.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from langchain_toolsearch.errors import ToolSearchTimeoutError

__all__ = [
    "HOOK_THREADS",
    "detached_timeout",
    "in_hook_thread",
    "on_bridge",
    "on_bridge_loop",
    "run_sync",
]

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_hooks: concurrent.futures.ThreadPoolExecutor | None = None

HOOK_THREADS = 64
"""Most threads running users' sync hooks at once (started on demand)."""


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            # its own handles (the self-pipe reader) would keep the first caller's context
            loop = contextvars.Context().run(asyncio.new_event_loop)
            threading.Thread(
                target=loop.run_forever, name="toolsearch-sync-bridge", daemon=True
            ).start()
            _loop = loop
        return _loop


async def _as_coro(value: Awaitable[T]) -> T:
    return await value


def run_sync(value: Awaitable[T], *, timeout: float | None = None) -> T:
    """Wait for an awaitable from synchronous code.

    Args:
        value: A coroutine or other awaitable, not yet awaited.
        timeout: Seconds to wait (then it is cancelled), or ``None``.

    Returns:
        The awaitable's result.

    Raises:
        TimeoutError: ``timeout`` seconds passed first.
        Exception: Whatever the awaitable raised.
    """
    coro: Coroutine[Any, Any, T] = value if asyncio.iscoroutine(value) else _as_coro(value)
    future = asyncio.run_coroutine_threadsafe(coro, _background_loop())
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise ToolSearchTimeoutError(f"gave up after {timeout} s") from None


def on_bridge() -> bool:
    """Whether the caller runs on the bridge's event loop."""
    try:
        return asyncio.get_running_loop() is _background_loop()
    except RuntimeError:
        return False


async def on_bridge_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the bridge's event loop from any loop (cancelling the caller cancels it).

    Returns:
        ``coro``'s result.

    Raises:
        Exception: Whatever ``coro`` raised.
    """
    loop = _background_loop()
    if asyncio.get_running_loop() is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


def _hook_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _hooks
    with _lock:
        if _hooks is None:
            _hooks = concurrent.futures.ThreadPoolExecutor(
                max_workers=HOOK_THREADS, thread_name_prefix="toolsearch-hook"
            )
        return _hooks


async def in_hook_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the package's hook threads, awaited (to copy a context: ``ctx.run``)."""
    return await asyncio.get_running_loop().run_in_executor(_hook_pool(), fn, *args)


class Deadline:
    """``asyncio.Timeout`` whose timer runs in an empty context (see `detached_timeout`)."""

    def __init__(self, when: float | None) -> None:
        self._when = when
        self._inner = asyncio.Timeout(None)

    async def __aenter__(self) -> Deadline:
        await self._inner.__aenter__()
        if self._when is not None:
            contextvars.Context().run(self._inner.reschedule, self._when)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self._inner.__aexit__(*exc_info)

    def expired(self) -> bool:
        return self._inner.expired()


def detached_timeout(delay: float | None) -> Deadline:
    """``asyncio.timeout(delay)`` whose queued timer keeps an empty context, not the caller's.

    Args:
        delay: Seconds from now, or ``None`` for no limit.
    """
    loop = asyncio.get_running_loop()
    return Deadline(loop.time() + delay if delay is not None else None)
