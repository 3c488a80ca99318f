"""`VersionedRecords`: versioned records of one kind in a LangGraph `BaseStore`.

Records live in any ``BaseStore`` (``InMemoryStore``, ``PostgresStore``, ...)
under one versioning scheme:

* every save appends an immutable version numbered 1, 2, 3, ...;
* ``"draft"`` is the latest version, ``"published"`` the one last passed
  to ``publish``, and an ``int`` selects that version;
* data is validated before it is written (`ToolConfigError` names the bad
  field), so what is stored always resolves.

Layout under the kind's namespace (`ToolConfigStore` uses
``(*prefix, kind)``)::

    (*namespace, "heads")              key record_id -> RecordInfo JSON
    (*namespace, "versions", record_id) key "%010d" % n -> {"record_id", "version",
                                          "created_at", "message", "data": <record JSON>}

Writes are not transactional: two concurrent saves of the same record can
both claim the same version number, so serialise writers per record (one
editor at a time).

Each operation exists in a sync form (``save``) and an async form
(``asave``); both run the same logic through ``BaseStore.batch`` /
``BaseStore.abatch``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchOp
from pydantic import BaseModel, ConfigDict

from langchain_toolsearch.config.models import AgentToolConfig, VersionSelector
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch.store_flow import Flow, arun_flow, run_flow

__all__ = [
    "RECORD_ID",
    "RecordInfo",
    "RecordNotFoundError",
    "VersionInfo",
    "Versioned",
    "VersionedRecords",
]

RECORD_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
"""What a record id may be: 1-128 characters from ``A-Z a-z 0-9 _ -``."""
_PAGE = 100

ModelT = TypeVar("ModelT", AgentToolConfig, MCPClientConfig)
T = TypeVar("T")


class RecordNotFoundError(ToolSearchError, LookupError):
    """A record, or the requested version of it, does not exist."""


class RecordInfo(BaseModel):
    """What is known about one stored record.

    Attributes:
        record_id: The record's id.
        latest_version: Number of the latest (draft) version, >= 1.
        published_version: Number of the published version, or ``None``.
        created_at: Epoch seconds of the first version.
        updated_at: Epoch seconds of the latest change (save or publish).
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    latest_version: int
    published_version: int | None = None
    created_at: float
    updated_at: float


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


class VersionedRecords(Generic[ModelT]):
    """Versioned CRUD for one kind of record (see the module docstring).

    Not built directly: use ``ToolConfigStore.agents`` or
    ``ToolConfigStore.mcp_clients``.

    Record ids are 1-128 characters from ``A-Z a-z 0-9 _ -``.
    """

    def __init__(
        self,
        store: BaseStore,
        namespace: tuple[str, ...],
        parse: Callable[[Any], ModelT],
        label: str,
        clock: Callable[[], float],
    ) -> None:
        self._store = store
        self._namespace = namespace
        self._parse: Callable[[Any], ModelT] = parse
        self._label = label
        self._clock = clock

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
        return self._run(self._save(record_id, value, message, "create"))

    def update(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> VersionInfo:
        """Save a new version of an existing record (it becomes the draft).

        Raises:
            ToolConfigError: If ``value`` is invalid.
            RecordNotFoundError: If the record does not exist.
            ValueError: If the id is malformed.
        """
        return self._run(self._save(record_id, value, message, "update"))

    def save(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> VersionInfo:
        """Create the record or add a version to it (it becomes the draft).

        Raises:
            ToolConfigError: If ``value`` is invalid.
            ValueError: If the id is malformed.
        """
        return self._run(self._save(record_id, value, message, "save"))

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
        return self._run(self._get(record_id, version)).value

    def get_version(self, record_id: str, version: VersionSelector = "draft") -> Versioned[ModelT]:
        """Like `get`, with the `VersionInfo` of the version returned."""
        return self._run(self._get(record_id, version))

    def info(self, record_id: str) -> RecordInfo:
        """Latest and published version numbers and timestamps of a record.

        Raises:
            RecordNotFoundError: If the record does not exist.
        """
        return self._run(self._info(record_id))

    def history(self, record_id: str) -> list[VersionInfo]:
        """Every version of a record, oldest first.

        Raises:
            RecordNotFoundError: If the record does not exist.
        """
        return self._run(self._history(record_id))

    def list_records(self) -> list[RecordInfo]:
        """Every record of this kind, sorted by id."""
        return self._run(self._list())

    def publish(self, record_id: str, version: VersionSelector = "draft") -> RecordInfo:
        """Mark a version as the published one.

        Args:
            record_id: The record's id.
            version: Which version to publish; default the draft (latest).

        Returns:
            The record's updated info.

        Raises:
            RecordNotFoundError: If the record or the version does not exist.
        """
        return self._run(self._publish(record_id, version))

    def delete(self, record_id: str) -> bool:
        """Delete a record and its whole history.

        Returns:
            ``True`` if it existed.
        """
        return self._run(self._delete(record_id))

    # -- async API --------------------------------------------------------------------

    async def acreate(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> VersionInfo:
        """Async `create`."""
        return await self._arun(self._save(record_id, value, message, "create"))

    async def aupdate(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> VersionInfo:
        """Async `update`."""
        return await self._arun(self._save(record_id, value, message, "update"))

    async def asave(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> VersionInfo:
        """Async `save`."""
        return await self._arun(self._save(record_id, value, message, "save"))

    async def aget(self, record_id: str, version: VersionSelector = "draft") -> ModelT:
        """Async `get`."""
        return (await self._arun(self._get(record_id, version))).value

    async def aget_version(
        self, record_id: str, version: VersionSelector = "draft"
    ) -> Versioned[ModelT]:
        """Async `get_version`."""
        return await self._arun(self._get(record_id, version))

    async def ainfo(self, record_id: str) -> RecordInfo:
        """Async `info`."""
        return await self._arun(self._info(record_id))

    async def ahistory(self, record_id: str) -> list[VersionInfo]:
        """Async `history`."""
        return await self._arun(self._history(record_id))

    async def alist_records(self) -> list[RecordInfo]:
        """Async `list_records`."""
        return await self._arun(self._list())

    async def apublish(self, record_id: str, version: VersionSelector = "draft") -> RecordInfo:
        """Async `publish`."""
        return await self._arun(self._publish(record_id, version))

    async def adelete(self, record_id: str) -> bool:
        """Async `delete`."""
        return await self._arun(self._delete(record_id))

    # -- drivers ----------------------------------------------------------------------

    def _run(self, flow: Flow[T]) -> T:
        return run_flow(self._store, flow)

    async def _arun(self, flow: Flow[T]) -> T:
        return await arun_flow(self._store, flow)

    # -- flows ------------------------------------------------------------------------

    @property
    def _heads(self) -> tuple[str, ...]:
        return (*self._namespace, "heads")

    def _versions(self, record_id: str) -> tuple[str, ...]:
        return (*self._namespace, "versions", record_id)

    def _check_id(self, record_id: str) -> None:
        if not isinstance(record_id, str) or not RECORD_ID.match(record_id):
            msg = (
                f"{self._label} id must be 1-128 characters from A-Z, a-z, 0-9, '_' and '-', "
                f"got {record_id!r}"
            )
            raise ValueError(msg)

    def _head(self, record_id: str) -> Flow[RecordInfo | None]:
        self._check_id(record_id)
        (item,) = yield [GetOp(self._heads, record_id)]
        return RecordInfo.model_validate(item.value) if isinstance(item, Item) else None

    def _info(self, record_id: str) -> Flow[RecordInfo]:
        head = yield from self._head(record_id)
        if head is None:
            raise RecordNotFoundError(f"no {self._label} with id {record_id!r}")
        return head

    def _save(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        message: str | None,
        mode: SaveMode,
    ) -> Flow[VersionInfo]:
        parsed = self._parse(value)
        head = yield from self._head(record_id)
        if head is not None and mode == "create":
            msg = f"{self._label} {record_id!r} already exists; use update() or save()"
            raise ValueError(msg)
        if head is None and mode == "update":
            raise RecordNotFoundError(f"no {self._label} with id {record_id!r}; use create()")
        now = self._clock()
        number = 1 if head is None else head.latest_version + 1
        info = VersionInfo(record_id=record_id, version=number, created_at=now, message=message)
        new_head = RecordInfo(
            record_id=record_id,
            latest_version=number,
            published_version=None if head is None else head.published_version,
            created_at=now if head is None else head.created_at,
            updated_at=now,
        )
        stored = {**info.model_dump(mode="json"), "data": parsed.to_json()}
        yield [
            PutOp(self._versions(record_id), f"{number:010d}", stored, index=False),
            PutOp(self._heads, record_id, new_head.model_dump(mode="json"), index=False),
        ]
        return info

    def _number(self, head: RecordInfo, version: VersionSelector) -> int:
        if version == "draft":
            return head.latest_version
        if version == "published":
            if head.published_version is None:
                msg = f"{self._label} {head.record_id!r} has no published version"
                raise RecordNotFoundError(msg)
            return head.published_version
        if isinstance(version, int) and not isinstance(version, bool) and version >= 1:
            return version
        msg = f"version must be 'draft', 'published' or a version number >= 1, got {version!r}"
        raise ValueError(msg)

    def _get(self, record_id: str, version: VersionSelector) -> Flow[Versioned[ModelT]]:
        head = yield from self._info(record_id)
        number = self._number(head, version)
        (item,) = yield [GetOp(self._versions(record_id), f"{number:010d}")]
        if not isinstance(item, Item):
            raise RecordNotFoundError(f"{self._label} {record_id!r} has no version {number}")
        stored = dict(item.value)
        info = VersionInfo.model_validate({k: v for k, v in stored.items() if k != "data"})
        return Versioned(value=self._parse(stored["data"]), info=info)

    def _all_versions(self, record_id: str) -> Flow[list[Item]]:
        found: list[Item] = []
        offset = 0
        while True:
            (page,) = yield [SearchOp(self._versions(record_id), limit=_PAGE, offset=offset)]
            items = list(page) if isinstance(page, Sequence) else []
            found.extend(item for item in items if isinstance(item, Item))
            if len(items) < _PAGE:
                return found
            offset += _PAGE

    def _history(self, record_id: str) -> Flow[list[VersionInfo]]:
        yield from self._info(record_id)
        items = yield from self._all_versions(record_id)
        infos = [
            VersionInfo.model_validate({k: v for k, v in item.value.items() if k != "data"})
            for item in items
        ]
        return sorted(infos, key=lambda info: info.version)

    def _list(self) -> Flow[list[RecordInfo]]:
        heads: list[RecordInfo] = []
        offset = 0
        while True:
            (page,) = yield [SearchOp(self._heads, limit=_PAGE, offset=offset)]
            items = list(page) if isinstance(page, Sequence) else []
            heads.extend(
                RecordInfo.model_validate(item.value)
                for item in items
                if isinstance(item, Item) and item.namespace == self._heads
            )
            if len(items) < _PAGE:
                return sorted(heads, key=lambda head: head.record_id)
            offset += _PAGE

    def _publish(self, record_id: str, version: VersionSelector) -> Flow[RecordInfo]:
        head = yield from self._info(record_id)
        number = self._number(head, version)
        (item,) = yield [GetOp(self._versions(record_id), f"{number:010d}")]
        if not isinstance(item, Item):
            raise RecordNotFoundError(f"{self._label} {record_id!r} has no version {number}")
        new_head = head.model_copy(
            update={"published_version": number, "updated_at": self._clock()}
        )
        yield [PutOp(self._heads, record_id, new_head.model_dump(mode="json"), index=False)]
        return new_head

    def _delete(self, record_id: str) -> Flow[bool]:
        head = yield from self._head(record_id)
        if head is None:
            return False
        items: list[Item] = yield from self._all_versions(record_id)
        yield [
            *(PutOp(item.namespace, item.key, None) for item in items),
            PutOp(self._heads, record_id, None),
        ]
        return True
