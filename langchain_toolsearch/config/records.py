"""`VersionedRecords`: versioned records of one kind in a LangGraph `BaseStore`.

Every save appends an immutable version 1, 2, 3, ...; ``"draft"`` is the
latest, ``"published"`` the one last passed to ``publish``, an ``int`` that
version. Data is validated before it is written (`ToolConfigError`). Layout
under the kind's namespace (``(*prefix, kind)``)::

    (*namespace, "heads")              key record_id -> RecordInfo JSON
    (*namespace, "versions", record_id) key "%010d" % n -> {"record_id", "version",
                                          "created_at", "message", "data": <record JSON>}

Every write reads the head and writes under the record's write lock
(`write_guard`), so two saves never get the same number and the head never
goes back. ``save`` and ``publish`` take ``if_version`` (``0``: no record yet)
and raise `VersionConflictError` when it moved. Each operation has a sync and
an async (``a``-prefixed) form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from langgraph.store.base import BaseStore

from langchain_toolsearch._internal.store_flow import Flow, arun_flow, run_flow
from langchain_toolsearch.config.models import VersionSelector
from langchain_toolsearch.config.record_flows import (
    RECORD_ID,
    ModelT,
    RecordFlows,
    RecordInfo,
    RecordNotFoundError,
    SaveMode,
    VersionConflictError,
    Versioned,
    VersionInfo,
    expected,
)
from langchain_toolsearch.config.write_guard import WriteGuard

__all__ = [
    "RECORD_ID",
    "RecordInfo",
    "RecordNotFoundError",
    "VersionConflictError",
    "VersionInfo",
    "Versioned",
    "VersionedRecords",
]

T = TypeVar("T")


class VersionedRecords(Generic[ModelT]):
    """Versioned CRUD for one kind of record (``ToolConfigStore.agents``, ``.mcp_clients``).

    Record ids are 1-128 characters from ``A-Z a-z 0-9 _ -``. Every write
    raises `WriteLockError` when the lock is not granted in ``lock_timeout``.

    Attributes:
        label: What a record is called in messages (``"agent tool config"``).
    """

    def __init__(
        self,
        store: BaseStore,
        namespace: tuple[str, ...],
        parse: Callable[[Any], ModelT],
        label: str,
        clock: Callable[[], float],
        guard: WriteGuard,
    ) -> None:
        self._store = store
        self.label = label
        self._flows: RecordFlows[ModelT] = RecordFlows(namespace, parse, label, clock)
        self._namespace = namespace
        self._guard = guard
        self.writes = 0
        """Writes (save, publish, delete) made through this object, in this process: a
        cache of what it read re-reads once this moves (another process's writes are
        seen through the cache's own refresh interval)."""

    # -- sync API ---------------------------------------------------------------------

    def create(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> VersionInfo:
        """Create a record with its version 1.

        Args:
            record_id: New record's id.
            value: The record (model or JSON mapping); validated first.
            message: Optional note stored with the version.

        Returns:
            The new version.

        Raises:
            ToolConfigError: If ``value`` is invalid (names the field).
            ValueError: If the id is malformed or the record already exists.
        """
        return self._write(*self._save(record_id, value, message, "create", None, False))

    def update(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        *,
        message: str | None = None,
        if_version: int | None = None,
        publish: bool = False,
    ) -> VersionInfo:
        """Save a new version of an existing record (it becomes the draft).

        Takes ``if_version`` and ``publish`` as `save` does.

        Raises:
            ToolConfigError: If ``value`` is invalid.
            RecordNotFoundError: If the record does not exist.
            VersionConflictError: If ``if_version`` is not the latest version.
            ValueError: If the id is malformed.
        """
        save = self._save(record_id, value, message, "update", if_version, publish)
        return self._write(*save)

    def save(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        *,
        message: str | None = None,
        if_version: int | None = None,
        publish: bool = False,
    ) -> VersionInfo:
        """Create the record or add a version to it (it becomes the draft).

        Args:
            record_id: The record's id.
            value: The record (model or JSON mapping); validated first.
            message: Optional note stored with the version.
            if_version: Compare-and-set: save only if the record's latest
                version is still this one (``0``: only if there is no
                record); ``None`` saves whatever the record holds.
            publish: Publish the new version in the same write.

        Returns:
            The new version.

        Raises:
            ToolConfigError: If ``value`` is invalid.
            VersionConflictError: If ``if_version`` is not the latest version.
            ValueError: If the id or ``if_version`` is malformed.
        """
        return self._write(*self._save(record_id, value, message, "save", if_version, publish))

    def get(self, record_id: str, version: VersionSelector = "draft") -> ModelT:
        """One version of a record.

        Args:
            record_id: The record's id.
            version: ``"draft"`` (latest), ``"published"`` or a version number.

        Returns:
            The validated record.

        Raises:
            RecordNotFoundError: If the record or that version does not exist
                (including ``"published"`` when nothing was published).
        """
        return self._run(self._flows.get(record_id, version)).value

    def get_version(self, record_id: str, version: VersionSelector = "draft") -> Versioned[ModelT]:
        """Like `get`, with the `VersionInfo` of the version returned."""
        return self._run(self._flows.get(record_id, version))

    def info(self, record_id: str) -> RecordInfo:
        """Latest and published version numbers, timestamps and revision of a record.

        One store read: cheap enough to check before using a cached value
        (``(created_at, revision)`` changes at every write).

        Raises:
            RecordNotFoundError: If the record does not exist.
        """
        return self._run(self._flows.info(record_id))

    def history(self, record_id: str) -> list[VersionInfo]:
        """Every version of a record, oldest first.

        Raises:
            RecordNotFoundError: If the record does not exist.
        """
        return self._run(self._flows.history(record_id))

    def list_records(self) -> list[RecordInfo]:
        """Every record of this kind, sorted by id."""
        return self._run(self._flows.list())

    def publish(
        self,
        record_id: str,
        version: VersionSelector = "draft",
        *,
        if_version: int | None = None,
        rollback: bool = False,
    ) -> RecordInfo:
        """Mark a version as the published one.

        Args:
            record_id: The record's id.
            version: Which version to publish; default the draft (latest).
            if_version: Compare-and-set: publish only if the record's latest
                version is still this one (so ``"draft"`` is the draft you
                reviewed); ``None``: whatever it is.
            rollback: Allow a version older than the published one (an
                explicit rollback); without it such a publish raises.

        Returns:
            The record's updated info.

        Raises:
            RecordNotFoundError: If the record or the version does not exist.
            VersionConflictError: If ``if_version`` is not the latest version,
                or ``version`` is older than the published one and
                ``rollback`` is false.
        """
        flow = self._flows.publish(record_id, version, expected(if_version), bool(rollback))
        return self._write(record_id, flow)

    def delete(self, record_id: str, *, if_version: int | None = None) -> bool:
        """Delete a record and its whole history.

        Args:
            record_id: The record's id.
            if_version: Compare-and-set as in `save`.

        Returns:
            ``True`` if it existed.

        Raises:
            VersionConflictError: If ``if_version`` is not the latest version.
        """
        return self._write(record_id, self._flows.delete(record_id, expected(if_version)))

    # -- async API --------------------------------------------------------------------

    async def acreate(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> VersionInfo:
        """Async `create`."""
        return await self._awrite(*self._save(record_id, value, message, "create", None, False))

    async def aupdate(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        *,
        message: str | None = None,
        if_version: int | None = None,
        publish: bool = False,
    ) -> VersionInfo:
        """Async `update`."""
        save = self._save(record_id, value, message, "update", if_version, publish)
        return await self._awrite(*save)

    async def asave(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        *,
        message: str | None = None,
        if_version: int | None = None,
        publish: bool = False,
    ) -> VersionInfo:
        """Async `save`."""
        save = self._save(record_id, value, message, "save", if_version, publish)
        return await self._awrite(*save)

    async def aget(self, record_id: str, version: VersionSelector = "draft") -> ModelT:
        """Async `get`."""
        return (await self._arun(self._flows.get(record_id, version))).value

    async def aget_version(
        self, record_id: str, version: VersionSelector = "draft"
    ) -> Versioned[ModelT]:
        """Async `get_version`."""
        return await self._arun(self._flows.get(record_id, version))

    async def ainfo(self, record_id: str) -> RecordInfo:
        """Async `info`."""
        return await self._arun(self._flows.info(record_id))

    async def ahistory(self, record_id: str) -> list[VersionInfo]:
        """Async `history`."""
        return await self._arun(self._flows.history(record_id))

    async def alist_records(self) -> list[RecordInfo]:
        """Async `list_records`."""
        return await self._arun(self._flows.list())

    async def apublish(
        self,
        record_id: str,
        version: VersionSelector = "draft",
        *,
        if_version: int | None = None,
        rollback: bool = False,
    ) -> RecordInfo:
        """Async `publish`."""
        flow = self._flows.publish(record_id, version, expected(if_version), bool(rollback))
        return await self._awrite(record_id, flow)

    async def adelete(self, record_id: str, *, if_version: int | None = None) -> bool:
        """Async `delete`."""
        return await self._awrite(record_id, self._flows.delete(record_id, expected(if_version)))

    # -- flows that other store flows compose (ToolResolver reads through these) ------

    def _info(self, record_id: str) -> Flow[RecordInfo]:
        return self._flows.info(record_id)

    def _number(self, head: RecordInfo, version: VersionSelector) -> int:
        return self._flows.number(head, version)

    def _get(self, record_id: str, version: VersionSelector) -> Flow[Versioned[ModelT]]:
        return self._flows.get(record_id, version)

    # -- drivers ----------------------------------------------------------------------

    def _run(self, flow: Flow[T]) -> T:
        return run_flow(self._store, flow)

    async def _arun(self, flow: Flow[T]) -> T:
        return await arun_flow(self._store, flow)

    def _lock_key(self, record_id: str) -> str:
        self._flows.check_id(record_id)
        return "\x1f".join((*self._namespace, record_id))

    def _write(self, record_id: str, flow: Flow[T]) -> T:
        try:
            return self._guard.run(self._lock_key(record_id), flow)
        finally:
            self.writes += 1

    async def _awrite(self, record_id: str, flow: Flow[T]) -> T:
        try:
            return await self._guard.arun(self._lock_key(record_id), flow)
        finally:
            self.writes += 1

    def _save(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        message: str | None,
        mode: SaveMode,
        if_version: int | None,
        publish: bool,
    ) -> tuple[str, Flow[VersionInfo]]:
        """Validate now (before any lock), return ``(record_id, flow)`` for `_write`."""
        self._flows.check_id(record_id)
        parsed = self._flows.parse(value)
        base = expected(if_version)
        return record_id, self._flows.save(record_id, parsed, message, mode, base, publish)
