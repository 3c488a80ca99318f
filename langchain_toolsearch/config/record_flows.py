"""The store logic of versioned records: flows over a `BaseStore`, and the record types.

Each method of `RecordFlows` is a store flow (`langchain_toolsearch._internal.store_flow`)
that `VersionedRecords` runs: reads directly, writes inside the record's
write guard. The layout and the versioning rules are described in
`langchain_toolsearch.config.records`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from langgraph.store.base import GetOp, Item, PutOp, SearchOp
from pydantic import BaseModel, ConfigDict

from langchain_toolsearch._internal.store_flow import Flow
from langchain_toolsearch.config.models import AgentToolConfig, VersionSelector
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError

__all__ = [
    "RECORD_ID",
    "RecordFlows",
    "RecordInfo",
    "RecordNotFoundError",
    "SaveMode",
    "VersionConflictError",
    "VersionInfo",
    "Versioned",
    "expected",
]

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
