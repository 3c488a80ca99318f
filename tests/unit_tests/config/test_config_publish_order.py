"""Two editors who save then publish never move the live version back; a rollback is explicit.

`check_two_editors` runs on `InMemoryStore` here and on PostgreSQL in
``tests/integration_tests/config/test_config_publish_order_postgres.py``.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.config import ToolConfigStore
from langchain_toolsearch.config.models import VersionConflictError
from tests.support.config_cli import Cli
from tests.unit_tests.config.test_config_writes import agent


def check_two_editors(configs: ToolConfigStore, record_id: str, *, rounds: int) -> None:
    """Two threads each save a version and publish it, ``rounds`` times, interleaved.

    Ordered by the head's ``revision`` (one per write, under the record's
    lock), the published version of every acknowledged publish never goes
    down; every refused publish asked for a version older than the live one.
    The first round is forced: the editor whose save is newer publishes first.
    """
    agents = configs.agents
    agents.save(record_id, agent("seed"), publish=True)
    lock = threading.Lock()
    published: list[tuple[int, int]] = []  # (revision, published_version)
    refused: list[VersionConflictError] = []
    saved = threading.Barrier(2)
    newer_published = threading.Event()
    errors: list[BaseException] = []

    def editor(n: int) -> None:
        try:
            for step in range(rounds):
                mine = agents.save(record_id, agent(f"e{n}_{step}")).version
                if step == 0:  # both saved: the newer one publishes first, then the older
                    saved.wait(timeout=30)
                    latest = agents.info(record_id).latest_version
                    if mine != latest:
                        assert newer_published.wait(timeout=30)
                try:
                    head = agents.publish(record_id, mine)
                except VersionConflictError as exc:
                    with lock:
                        refused.append(exc)
                else:
                    assert head.published_version == mine
                    with lock:
                        published.append((head.revision, mine))
                finally:
                    if step == 0:
                        newer_published.set()
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=editor, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert refused, "the forced first round publishes a stale version: it must be refused"
    live = [version for _, version in sorted(published)]
    assert live == sorted(live), f"the live version moved back: {live}"
    for exc in refused:
        assert exc.expected < exc.current
    head = agents.info(record_id)
    assert head.published_version == max(live)


def test_two_editors_on_an_in_memory_store_never_move_the_live_version_back() -> None:
    for attempt in range(3):
        check_two_editors(ToolConfigStore(InMemoryStore()), f"two_{attempt}", rounds=30)


def test_publishing_an_older_version_needs_rollback() -> None:
    agents = ToolConfigStore(InMemoryStore()).agents
    for tag in ("t1", "t2", "t3"):
        agents.save("a", agent(tag))
    agents.publish("a", 3)
    with pytest.raises(VersionConflictError, match="rollback") as stale:
        agents.publish("a", 2)
    assert (stale.value.expected, stale.value.current) == (2, 3)
    assert agents.info("a").published_version == 3  # nothing written
    assert agents.publish("a", 3).published_version == 3  # the live one again: fine
    assert agents.publish("a", 2, rollback=True).published_version == 2
    assert agents.publish("a").published_version == 3  # forward again: no flag needed


async def test_apublish_refuses_a_stale_version_too() -> None:
    agents = ToolConfigStore(InMemoryStore()).agents
    await agents.asave("a", agent("t1"))
    await agents.asave("a", agent("t2"), publish=True)
    with pytest.raises(VersionConflictError):
        await agents.apublish("a", 1)
    assert (await agents.apublish("a", 1, rollback=True)).published_version == 1


def test_cli_publish_refuses_an_older_version_and_rollback_takes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(str(tmp_path / "configs.sqlite"), capsys, tmp_path)
    for tag in ("t1", "t2"):
        file = cli.file({"agents": {"support": {"tools": {tag: {}}}}}, f"{tag}.json")
        assert cli("import", file, "--publish")[0] == 0
    code, _, err = cli("publish", "support", "--version", "1")
    assert code == 1 and "conflict:" in err and "rollback" in err and "Traceback" not in err
    assert cli.json("show", "support")["published_version"] == 2
    code, out, _ = cli("rollback", "support", "--version", "1")
    assert code == 0 and out == "rolled back agent support version 1\n"
    assert cli.json("show", "support")["published_version"] == 1
    with pytest.raises(SystemExit) as usage:  # a rollback names its version
        cli("rollback", "support")
    assert usage.value.code == 2
