"""The store logic of versioned records: flows over a `BaseStore`, and the record types.

Each method of `RecordFlows` is a store flow (`langchain_toolsearch._internal.store_flow`)
that `VersionedRecords` runs: reads directly, writes inside the record's
write guard. The layout and the versioning rules are described in
`langchain_toolsearch.config.records`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchOp
from pydantic import BaseModel, ConfigDict

from langchain_toolsearch._internal.store_flow import Flow, arun_flow, run_flow
from langchain_toolsearch.config.models import AgentToolConfig, VersionSelector
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError

__all__ = ['RECORD_ID', 'RecordFlows', 'RecordInfo', 'RecordNotFoundError', 'SaveMode', 'VersionConflictError', 'VersionInfo', 'Versioned', 'VersionedRecords', 'expected']


RECORD_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}\Z")
"""What a record id may be: 1-128 characters from ``A-Z a-z 0-9 _ -``."""
_PAGE = 100

ModelT = TypeVar("ModelT", AgentToolConfig, MCPClientConfig)


class RecordNotFoundError(ToolSearchError, LookupError):
    """A record, or the requested version of it, does not exist."""


class VersionConflictError(ToolSearchError):
    """A compare-and-set write found the record at another version than expected.

    Reload, redo the change, retry with ``if_version=current``. Also raised by
    ``publish`` of a version older than the published one without ``rollback``.

    Attributes:
        record_id: The record's id.
        expected: The ``if_version`` given (``0``: no record), or the version
            a stale ``publish`` asked for.
        current: The record's latest version now (``0``: no record), or the
            published version a stale ``publish`` would have moved back.
    """

    def __init__(
        self, label: str, record_id: str, expected: int, current: int, *, state: str = ""
    ) -> None:
        self.record_id = record_id
        self.expected = expected
        self.current = current
        if state:
            super().__init__(f"{label} {record_id!r} {state}")
            return
        if not expected:
            state = f"already exists at version {current} (if_version=0 expects no record)"
        elif not current:
            state = f"does not exist (if_version={expected} expects version {expected})"
        else:
            state = f"is at version {current}, not version {expected} (if_version={expected})"
        super().__init__(
            f"{label} {record_id!r} {state}: it changed since it was read; read it again "
            f"and retry with if_version={current}"
        )


class RecordInfo(BaseModel):
    """What is known about one stored record.

    Attributes:
        record_id: The record's id.
        latest_version: Number of the latest (draft) version, >= 1.
        published_version: Number of the published version, or ``None``.
        created_at: Epoch seconds of the first version.
        updated_at: Epoch seconds of the latest change (save or publish).
        revision: Saves and publishes since creation; ``(created_at, revision)``
            names one state of the record (``0`` on older heads).
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    latest_version: int
    published_version: int | None = None
    created_at: float
    updated_at: float
    revision: int = 0


class VersionInfo(BaseModel):
    """One saved version of a record.

    Attributes:
        record_id: The record's id.
        version: Version number, from 1.
        created_at: Epoch seconds when it was saved.
        message: Optional note given when saving.
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    version: int
    created_at: float
    message: str | None = None


@dataclass(frozen=True)
class Versioned(Generic[ModelT]):
    """A stored value with the version it came from.

    Attributes:
        value: The validated record.
        info: Which version it is.
    """

    value: ModelT
    info: VersionInfo


SaveMode = Literal["create", "update", "save"]


class RecordFlows(Generic[ModelT]):
    """The flows of one kind of record under ``namespace`` (see the module docstring).

    Args:
        namespace: The kind's namespace.
        parse: Validates a record's JSON into its model.
        label: What a record is called in messages (``"agent tool config"``).
        clock: Epoch-seconds clock for timestamps.
    """

    def __init__(
        self,
        namespace: tuple[str, ...],
        parse: Callable[[Any], ModelT],
        label: str,
        clock: Callable[[], float],
    ) -> None:
        self.namespace = namespace
        self.parse: Callable[[Any], ModelT] = parse
        self.label = label
        self.clock = clock

    @property
    def heads(self) -> tuple[str, ...]:
        """Namespace of the heads (one `RecordInfo` per record)."""
        return (*self.namespace, "heads")

    def versions(self, record_id: str) -> tuple[str, ...]:
        """Namespace of one record's versions."""
        return (*self.namespace, "versions", record_id)

    def check_id(self, record_id: str) -> None:
        """Raise `ToolSearchConfigError` (a ValueError) for a malformed id."""
        if not isinstance(record_id, str) or not RECORD_ID.match(record_id):
            msg = (
                f"{self.label} id must be 1-128 characters from A-Z, a-z, 0-9, '_' and '-', "
                f"got {record_id!r:.80}"
            )
            raise ToolSearchConfigError(msg)

    def head(self, record_id: str) -> Flow[RecordInfo | None]:
        """The record's head, or ``None``."""
        self.check_id(record_id)
        (item,) = yield [GetOp(self.heads, record_id)]
        return RecordInfo.model_validate(item.value) if isinstance(item, Item) else None

    def info(self, record_id: str) -> Flow[RecordInfo]:
        """The record's head; `RecordNotFoundError` if none."""
        head = yield from self.head(record_id)
        if head is None:
            raise RecordNotFoundError(f"no {self.label} with id {record_id!r}")
        return head

    def compare(self, record_id: str, head: RecordInfo | None, expected: int | None) -> None:
        """Raise `VersionConflictError` if ``expected`` is not the latest version (0: none)."""
        current = 0 if head is None else head.latest_version
        if expected is not None and expected != current:
            raise VersionConflictError(self.label, record_id, expected, current)

    def save(
        self,
        record_id: str,
        parsed: ModelT,
        message: str | None,
        mode: SaveMode,
        expected: int | None,
        publish: bool,
    ) -> Flow[VersionInfo]:
        """Write the next version (and the head) (write lock held; see the module docstring)."""
        head = yield from self.head(record_id)
        self.compare(record_id, head, expected)
        if head is not None and mode == "create":
            msg = f"{self.label} {record_id!r} already exists; use update() or save()"
            raise ToolSearchConfigError(msg)
        if head is None and mode == "update":
            raise RecordNotFoundError(f"no {self.label} with id {record_id!r}; use create()")
        number = 1 if head is None else head.latest_version + 1
        while True:  # a version is written only where none is (one left by a failed write)
            (found,) = yield [GetOp(self.versions(record_id), f"{number:010d}")]
            if found is None:
                break
            number += 1
        now = self.clock()
        info = VersionInfo(record_id=record_id, version=number, created_at=now, message=message)
        published = head.published_version if head is not None else None
        new_head = RecordInfo(
            record_id=record_id,
            latest_version=number,
            published_version=number if publish else published,
            created_at=now if head is None else head.created_at,
            updated_at=now,
            revision=1 if head is None else head.revision + 1,
        )
        stored = {**info.model_dump(mode="json"), "data": parsed.to_json()}
        yield [  # one batch: one transaction on the SQL stores; version row first
            PutOp(self.versions(record_id), f"{number:010d}", stored, index=False),
            PutOp(self.heads, record_id, new_head.model_dump(mode="json"), index=False),
        ]
        return info

    def number(self, head: RecordInfo, version: VersionSelector) -> int:
        """The version number ``version`` selects on ``head``."""
        if version == "draft":
            return head.latest_version
        if version == "published":
            if head.published_version is None:
                msg = f"{self.label} {head.record_id!r} has no published version"
                raise RecordNotFoundError(msg)
            return head.published_version
        if isinstance(version, int) and not isinstance(version, bool) and version >= 1:
            return version
        msg = f"version must be 'draft', 'published' or a version number >= 1, got {version!r}"
        raise ToolSearchConfigError(msg)

    def get(self, record_id: str, version: VersionSelector) -> Flow[Versioned[ModelT]]:
        """One version with its info."""
        head = yield from self.info(record_id)
        number = self.number(head, version)
        (item,) = yield [GetOp(self.versions(record_id), f"{number:010d}")]
        if not isinstance(item, Item):
            raise RecordNotFoundError(f"{self.label} {record_id!r} has no version {number}")
        stored = dict(item.value)
        info = VersionInfo.model_validate({k: v for k, v in stored.items() if k != "data"})
        return Versioned(value=self.parse(stored["data"]), info=info)

    def all_versions(self, record_id: str) -> Flow[list[Item]]:
        """Every stored version item of the record, page by page."""
        found: list[Item] = []
        offset = 0
        while True:
            (page,) = yield [SearchOp(self.versions(record_id), limit=_PAGE, offset=offset)]
            items = list(page) if isinstance(page, Sequence) else []
            found.extend(item for item in items if isinstance(item, Item))
            if len(items) < _PAGE:
                return found
            offset += _PAGE

    def history(self, record_id: str) -> Flow[list[VersionInfo]]:
        """Every version's info, oldest first."""
        yield from self.info(record_id)
        items = yield from self.all_versions(record_id)
        infos = [
            VersionInfo.model_validate({k: v for k, v in item.value.items() if k != "data"})
            for item in items
            if item.namespace == self.versions(record_id)
        ]
        return sorted(infos, key=lambda info: info.version)

    def list(self) -> Flow[list[RecordInfo]]:
        """Every head, sorted by id."""
        heads: list[RecordInfo] = []
        offset = 0
        while True:
            (page,) = yield [SearchOp(self.heads, limit=_PAGE, offset=offset)]
            items = list(page) if isinstance(page, Sequence) else []
            heads.extend(
                RecordInfo.model_validate(item.value)
                for item in items
                if isinstance(item, Item) and item.namespace == self.heads
            )
            if len(items) < _PAGE:
                return sorted(heads, key=lambda head: head.record_id)
            offset += _PAGE

    def publish(
        self,
        record_id: str,
        version: VersionSelector,
        expected: int | None,
        rollback: bool = False,
    ) -> Flow[RecordInfo]:
        """Publish ``version`` (lock held); an older one only with ``rollback``."""
        head = yield from self.head(record_id)
        if head is None:
            if expected:
                raise VersionConflictError(self.label, record_id, expected, 0)
            raise RecordNotFoundError(f"no {self.label} with id {record_id!r}")
        self.compare(record_id, head, expected)
        number = self.number(head, version)
        live = head.published_version
        if live is not None and number < live and not rollback:
            state = (
                f"is published at version {live}, newer than version {number}: publishing "
                f"{number} would move the live version back (a newer version was published "
                "since yours was saved); to go back on purpose, roll back "
                "(publish(..., rollback=True), `toolsearch config rollback`)"
            )
            raise VersionConflictError(self.label, record_id, number, live, state=state)
        (item,) = yield [GetOp(self.versions(record_id), f"{number:010d}")]
        if not isinstance(item, Item):
            raise RecordNotFoundError(f"{self.label} {record_id!r} has no version {number}")
        new_head = head.model_copy(
            update={
                "published_version": number,
                "updated_at": self.clock(),
                "revision": head.revision + 1,
            }
        )
        yield [PutOp(self.heads, record_id, new_head.model_dump(mode="json"), index=False)]
        return new_head

    def delete(self, record_id: str, expected: int | None) -> Flow[bool]:
        """Delete the record's versions and head in one batch (write lock held)."""
        head = yield from self.head(record_id)
        self.compare(record_id, head, expected)
        if head is None:
            return False
        items: list[Item] = yield from self.all_versions(record_id)
        yield [
            *(
                PutOp(item.namespace, item.key, None)
                for item in items
                if item.namespace == self.versions(record_id)
            ),
            PutOp(self.heads, record_id, None),
        ]
        return True


def expected(if_version: int | None) -> int | None:
    """An ``if_version``: ``None`` or an int in ``[0, 2**63 - 1]``; `ToolSearchConfigError`."""
    if if_version is None:
        return None
    if (
        isinstance(if_version, bool)
        or not isinstance(if_version, int)
        or not 0 <= if_version <= _MAX_VERSION
    ):
        if isinstance(if_version, int) and abs(if_version) > _MAX_VERSION:
            shown = f"an int of {if_version.bit_length()} bits"
        else:
            shown = repr(if_version)[:40]
        msg = f"if_version must be a version number >= 1, 0 (no record yet) or None, got {shown}"
        raise ToolSearchConfigError(msg)
    return if_version


_MAX_VERSION = 2**63 - 1
"""Largest version number (PostgreSQL's bigint); no store holds more versions."""


T = TypeVar("T")


class WriteGuard(Protocol):
    """Runs a store flow under a record's write lock (`langchain_toolsearch.config.store`)."""

    def run(self, key: str, flow: Flow[T]) -> T: ...

    async def arun(self, key: str, flow: Flow[T]) -> T: ...


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
