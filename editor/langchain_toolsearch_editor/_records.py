"""`VersionedRecords`: versioned records of one kind in a LangGraph `BaseStore`.

Versions 1, 2, ... are immutable; ``"draft"`` is the latest, ``"published"`` the last published.
Items: ``(*namespace, "heads")`` record_id -> `RecordInfo`; ``(*namespace, "versions", record_id)``
``"%010d" % n`` -> `VersionInfo` with ``"data"``. Writes hold the record's lock (`config.store`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Generic, Literal, ParamSpec, Protocol, TypeVar

from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchOp

from langchain_toolsearch._effects import Effect, Flow, Logic, adrive, drive, flow_logic
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch_editor._models import (
    AgentToolConfig,
    RecordInfo,
    Versioned,
    VersionInfo,
    VersionSelector,
)
from langchain_toolsearch_editor._servers import MCPClientConfig
from langchain_toolsearch_editor.errors import RecordNotFoundError, VersionConflictError

RECORD_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}\Z")
"""What a record id may be: 1-128 characters from ``A-Z a-z 0-9 _ -``."""
_PAGE = 100
_MAX_VERSION = 2**63 - 1  # the largest version number (PostgreSQL's bigint)

ModelT = TypeVar("ModelT", AgentToolConfig, MCPClientConfig)
T = TypeVar("T")
P = ParamSpec("P")
SaveMode = Literal["create", "update", "save"]


class WriteGuard(Protocol):
    """Runs a store flow under a record's write lock (`langchain_toolsearch_editor._store`)."""

    def run(self, key: str, flow: Flow[T]) -> T: ...

    async def arun(self, key: str, flow: Flow[T]) -> T: ...


def expected(if_version: int | None) -> int | None:
    """An ``if_version``: ``None`` or an int in ``[0, 2**63 - 1]``; `ToolSearchConfigError`."""
    valid = isinstance(if_version, int) and not isinstance(if_version, bool)
    if if_version is not None and (not valid or not 0 <= if_version <= _MAX_VERSION):
        big = isinstance(if_version, int) and abs(if_version) > _MAX_VERSION
        shown = f"an int of {if_version.bit_length()} bits" if big else repr(if_version)[:40]
        msg = f"if_version must be a version number >= 1, 0 (no record yet) or None, got {shown}"
        raise ToolSearchConfigError(msg)
    return if_version


def shells(
    logic: Callable[P, Logic[T]],
) -> tuple[Callable[P, T], Callable[P, Coroutine[Any, Any, T]]]:
    """The sync and the async method of one operation written once as ``logic``."""

    @functools.wraps(logic)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return drive(logic(*args, **kwargs))

    @functools.wraps(logic)
    async def arun(*args: P.args, **kwargs: P.kwargs) -> T:
        return await adrive(logic(*args, **kwargs))

    return run, arun


def _version_info(item: Item) -> VersionInfo:
    return VersionInfo.model_validate({k: v for k, v in item.value.items() if k != "data"})


class VersionedRecords(Generic[ModelT]):
    """Versioned CRUD for one kind of record (``ToolConfigStore.agents``, ``.mcp_clients``).

    Sync and ``a``-prefixed async forms. Values are validated before any write (`ToolConfigError`),
    ids are `RECORD_ID` (``ValueError``); `WriteLockError` past the store's ``lock_timeout``.
    ``if_version``: write only if the latest version is still this one (``0``: no record), else
    `VersionConflictError`. ``label`` names a record in messages; ``writes`` counts writes.
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
        self._namespace = namespace
        self._heads = (*namespace, "heads")
        self._parse: Callable[[Any], ModelT] = parse
        self.label = label
        self._clock = clock
        self._guard = guard
        self.writes = 0

    def _create(
        self, record_id: str, value: ModelT | Mapping[str, Any], *, message: str | None = None
    ) -> Logic[VersionInfo]:
        """Create a record with its version 1 (``ValueError`` if it exists); the new version."""
        return self._save(record_id, value, message, "create", None, False)

    def _update(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        *,
        message: str | None = None,
        if_version: int | None = None,
        publish: bool = False,
    ) -> Logic[VersionInfo]:
        """`save` to an existing record (`RecordNotFoundError` if none)."""
        return self._save(record_id, value, message, "update", if_version, publish)

    def _save_version(
        self,
        record_id: str,
        value: ModelT | Mapping[str, Any],
        *,
        message: str | None = None,
        if_version: int | None = None,
        publish: bool = False,
    ) -> Logic[VersionInfo]:
        """Add a version (the new draft; ``message`` kept with it, ``publish`` it too)."""
        return self._save(record_id, value, message, "save", if_version, publish)

    def _get_value(self, record_id: str, version: VersionSelector = "draft") -> Logic[ModelT]:
        """One version (``"draft"``, ``"published"``, a number); `RecordNotFoundError`."""
        found = yield from self._read(self._get(record_id, version))
        return found.value

    def _get_version(
        self, record_id: str, version: VersionSelector = "draft"
    ) -> Logic[Versioned[ModelT]]:
        """`get`, with the version's `VersionInfo`."""
        return self._read(self._get(record_id, version))

    def _read_info(self, record_id: str) -> Logic[RecordInfo]:
        """The record's head (one read; ``(created_at, revision)`` moves at every write)."""
        return self._read(self._info(record_id))

    def _read_history(self, record_id: str) -> Logic[list[VersionInfo]]:
        """Every version, oldest first; `RecordNotFoundError`."""
        return self._read(self._history(record_id))

    def _list_records(self) -> Logic[list[RecordInfo]]:
        """Every record of this kind, sorted by id."""
        return self._read(self._list())

    def _publish_version(
        self,
        record_id: str,
        version: VersionSelector = "draft",
        *,
        if_version: int | None = None,
        rollback: bool = False,
    ) -> Logic[RecordInfo]:
        """Publish ``version``; the new head. One older than the published needs ``rollback``."""
        base = expected(if_version)

        def flow() -> Flow[RecordInfo]:
            head = yield from self._head(record_id)
            self._compare(record_id, head, base)  # no record: a conflict unless base is 0
            if head is None:
                raise self._missing(record_id)
            number = self._number(head, version)
            live = head.published_version
            if live is not None and number < live and not rollback:
                state = (
                    f"is published at version {live}, newer than version {number}: publishing "
                    f"{number} would move the live version back (a newer version was published "
                    "since yours was saved); to go back on purpose, roll back "
                    "(publish(..., rollback=True), `toolsearch config rollback`)"
                )
                raise VersionConflictError(self.label, record_id, number, live, state=state)
            yield from self._version_item(record_id, number)
            new = {"published_version": number, "updated_at": self._clock()}
            new_head = head.model_copy(update={**new, "revision": head.revision + 1})
            yield [PutOp(self._heads, record_id, new_head.model_dump(mode="json"), index=False)]
            return new_head

        return self._write(record_id, flow())

    def _delete_record(self, record_id: str, *, if_version: int | None = None) -> Logic[bool]:
        """Delete a record and its history; whether it existed."""
        return self._write(record_id, self._delete(record_id, expected(if_version)))

    create, acreate = shells(_create)
    update, aupdate = shells(_update)
    save, asave = shells(_save_version)
    get, aget = shells(_get_value)
    get_version, aget_version = shells(_get_version)
    info, ainfo = shells(_read_info)
    history, ahistory = shells(_read_history)
    list_records, alist_records = shells(_list_records)
    publish, apublish = shells(_publish_version)
    delete, adelete = shells(_delete_record)

    def _read(self, flow: Flow[T]) -> Logic[T]:
        return flow_logic(self._store, flow)

    def _write(self, record_id: str, flow: Flow[T]) -> Logic[T]:
        try:
            self._check_id(record_id)
            key = "\x1f".join((*self._namespace, record_id))  # the record's write lock
            done: T = yield Effect.method(self._guard, "run", key, flow)
            return done
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
    ) -> Logic[VersionInfo]:
        """Validate before any lock, then write the new version under the record's lock."""
        self._check_id(record_id)
        parsed, base = self._parse(value), expected(if_version)

        def flow() -> Flow[VersionInfo]:
            head = yield from self._head(record_id)
            self._compare(record_id, head, base)
            if head is not None and mode == "create":
                msg = f"{self.label} {record_id!r} already exists; use update() or save()"
                raise ToolSearchConfigError(msg)
            if head is None and mode == "update":
                raise self._missing(record_id, "; use create()")
            number = 1 if head is None else head.latest_version + 1
            # a version is written only where none is (one left by a failed write)
            while (yield [GetOp(self._versions(record_id), f"{number:010d}")])[0] is not None:
                number += 1
            now = self._clock()
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
                PutOp(self._versions(record_id), f"{number:010d}", stored, index=False),
                PutOp(self._heads, record_id, new_head.model_dump(mode="json"), index=False),
            ]
            return info

        return self._write(record_id, flow())

    def _versions(self, record_id: str) -> tuple[str, ...]:
        return (*self._namespace, "versions", record_id)

    def _check_id(self, record_id: str) -> None:
        if not isinstance(record_id, str) or not RECORD_ID.match(record_id):
            msg = f"{self.label} id must be 1-128 characters from A-Z, a-z, 0-9, '_' and '-', got "
            raise ToolSearchConfigError(msg + f"{record_id!r:.80}")

    def _missing(self, record_id: str, hint: str = "") -> RecordNotFoundError:
        return RecordNotFoundError(f"no {self.label} with id {record_id!r}{hint}")

    def _head(self, record_id: str) -> Flow[RecordInfo | None]:
        self._check_id(record_id)
        (item,) = yield [GetOp(self._heads, record_id)]
        return RecordInfo.model_validate(item.value) if isinstance(item, Item) else None

    def _info(self, record_id: str) -> Flow[RecordInfo]:
        head = yield from self._head(record_id)
        if head is None:
            raise self._missing(record_id)
        return head

    def _compare(self, record_id: str, head: RecordInfo | None, expected: int | None) -> None:
        current = 0 if head is None else head.latest_version
        if expected is not None and expected != current:
            raise VersionConflictError(self.label, record_id, expected, current)

    def _number(self, head: RecordInfo, version: VersionSelector) -> int:
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

    def _version_item(self, record_id: str, number: int) -> Flow[Item]:
        (item,) = yield [GetOp(self._versions(record_id), f"{number:010d}")]
        if not isinstance(item, Item):
            raise RecordNotFoundError(f"{self.label} {record_id!r} has no version {number}")
        return item

    def _get(self, record_id: str, version: VersionSelector) -> Flow[Versioned[ModelT]]:
        head = yield from self._info(record_id)
        item = yield from self._version_item(record_id, self._number(head, version))
        return Versioned(value=self._parse(item.value["data"]), info=_version_info(item))

    def _search(self, namespace: tuple[str, ...]) -> Flow[list[Item]]:
        found: list[Item] = []
        offset = 0
        while True:
            (page,) = yield [SearchOp(namespace, limit=_PAGE, offset=offset)]
            items = list(page) if isinstance(page, Sequence) else []
            found.extend(i for i in items if isinstance(i, Item) and i.namespace == namespace)
            if len(items) < _PAGE:
                return found
            offset += _PAGE

    def _history(self, record_id: str) -> Flow[list[VersionInfo]]:
        yield from self._info(record_id)
        items = yield from self._search(self._versions(record_id))
        return sorted(map(_version_info, items), key=lambda info: info.version)

    def _list(self) -> Flow[list[RecordInfo]]:
        items = yield from self._search(self._heads)
        heads = [RecordInfo.model_validate(item.value) for item in items]
        return sorted(heads, key=lambda head: head.record_id)

    def _delete(self, record_id: str, expected: int | None) -> Flow[bool]:
        head = yield from self._head(record_id)
        self._compare(record_id, head, expected)
        if head is None:
            return False
        items: list[Item] = yield from self._search(self._versions(record_id))
        yield [
            *(PutOp(i.namespace, i.key, None) for i in items),
            PutOp(self._heads, record_id, None),
        ]
        return True
