"""Bulk builds: pausing the cyclic garbage collector while a library or index is built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["BULK_OBJECTS", "collector_paused"]

BULK_OBJECTS = 20_000
"""New container objects (generation-0 count) from which a build collects once at its end."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a build that makes no reference cycles.

    A bulk build (at least `BULK_OBJECTS` new objects) collects the young generations
    once at the end; a small one forces no collection. Only the outermost use that found
    the collector on turns it back on.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        if gc.get_count()[0] >= BULK_OBJECTS:
            gc.collect(1)
