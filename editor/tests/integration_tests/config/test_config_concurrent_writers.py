"""Concurrent writers of one stored record lose nothing, on SQLite and on PostgreSQL.

4 processes x 15 changes (``editor/tests/support/config_writer.py``: compare-and-set saves
and publishes, and plain saves that publish) on one record, then: every
acknowledged version holds its writer's data, numbers are unique and gapless, the
head equals the highest version, a compare-and-set save got exactly ``base + 1``,
and every refusal was a `VersionConflictError` naming a newer version. The same
through parallel ``toolsearch config import --publish`` processes (with ``--if-version``:
exactly one publishes); and a writer killed mid-write leaves a readable record and no
stale lock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langchain_toolsearch_editor._store import ToolConfigStore, open_store
from langchain_toolsearch_editor.errors import WriteLockError
from tests.support.paths import REPO_ROOT

WRITERS = 4
STEPS = 15
RECORD = "shared"


def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


@pytest.fixture(params=["sqlite", "postgres"])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "configs.sqlite")
        return
    pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")
    from tests.support.postgres import fresh_database

    with fresh_database("cfgwrite", "concurrent config writers") as url:
        yield url


def _start_together(commands: list[list[str]], go: Path) -> list[subprocess.Popen[str]]:
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
        for cmd in commands
    ]
    deadline = time.monotonic() + 120
    while not all(Path(f"{go}.ready.{i}").exists() for i in range(len(commands))):
        failed = [p for p in procs if p.poll() not in (None, 0)]
        assert not failed, failed[0].communicate()[1]
        assert time.monotonic() < deadline, "writers did not start"
        time.sleep(0.02)
    go.touch()
    return procs


def _finish(procs: list[subprocess.Popen[str]]) -> list[str]:
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        assert "Traceback" not in err, err
        outs.append(out)
    return outs


def _tag(value: Any) -> str:
    (tag,) = value.to_json()["tools"]
    return str(tag)


def test_four_processes_of_saves_and_publishes_lose_nothing(
    store_spec: str, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    # A first version, so the SQLite file exists and every writer finds a record.
    with open_store(store_spec, create=True) as store:
        ToolConfigStore(store).agents.save(RECORD, {"tools": {"seed": {}}})
    commands = [
        [
            sys.executable,
            "-m",
            "editor.tests.support.config_writer",
            store_spec,
            RECORD,
            str(i),
            str(STEPS),
            str(go),
        ]
        for i in range(WRITERS)
    ]
    outs = _finish(_start_together(commands, go))
    events = [json.loads(line) for out in outs for line in out.splitlines()]
    saved = [e for e in events if e["op"] == "saved"]
    conflicts = [e for e in events if e["op"] == "conflict"]
    published = {e["version"] for e in events if e["op"] == "published"}
    published |= {e["version"] for e in saved if e["published"]}

    attempts = WRITERS * STEPS
    assert len(saved) + sum(c["step"].startswith("save") for c in conflicts) == attempts
    numbers = [e["version"] for e in saved]
    assert len(set(numbers)) == len(numbers), "two saves got the same version number"
    for conflict in conflicts:  # a refusal names the newer version it found
        assert conflict["current"] > conflict["expected"], conflict
    for event in saved:  # compare-and-set saves got exactly the next number
        if event["base"] is not None:
            assert event["version"] == event["base"] + 1, event

    with open_store(store_spec) as store:
        agents = ToolConfigStore(store).agents
        head = agents.info(RECORD)
        history = [v.version for v in agents.history(RECORD)]
        for event in saved:  # every acknowledged version holds its writer's data
            found = agents.get_version(RECORD, event["version"])
            assert _tag(found.value) == event["tag"], event
            assert found.info.message == event["tag"]
    assert history == list(range(1, len(saved) + 2))  # the seed, then one per save, no gap
    assert head.latest_version == max(numbers) == history[-1]
    assert head.published_version in published
    assert head.revision >= len(saved) + 1


def _cli_import(store: str, file: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys, pathlib; from langchain_toolsearch_editor._commands import main; "
        "pathlib.Path(sys.argv[2] + '.ready.' + sys.argv[3]).touch(); "
        "import time\n"
        "while not pathlib.Path(sys.argv[2]).exists(): time.sleep(0.005)\n"
        "codes = [main(['config', 'import', f, '--store', sys.argv[1], '--publish']) "
        "for f in sys.argv[4:]]\n"
        "sys.exit(max(codes))",
        store,
    ]


def test_parallel_cli_imports_with_publish_lose_nothing(store_spec: str, tmp_path: Path) -> None:
    go = tmp_path / "go"
    rounds = 3
    files: dict[str, Path] = {}
    commands = []
    for writer in range(WRITERS):
        mine = []
        for step in range(rounds):
            tag = f"cli{writer}_{step}"
            path = tmp_path / f"{tag}.json"
            path.write_text(json.dumps({"agents": {RECORD: {"tools": {tag: {}}}}}))
            files[tag] = path
            mine.append(str(path))
        commands.append([*_cli_import(store_spec, tmp_path), str(go), str(writer), *mine])
    outs = _finish(_start_together(commands, go))
    lines = [line for out in outs for line in out.splitlines()]
    assert len(lines) == WRITERS * rounds
    versions = []
    for line in lines:
        words = line.split()  # saved agent shared version N (published)
        assert words[:3] == ["saved", "agent", RECORD] and line.endswith("(published)"), line
        versions.append(int(words[4]))
    assert sorted(versions) == list(range(1, WRITERS * rounds + 1))
    with open_store(store_spec) as store:
        agents = ToolConfigStore(store).agents
        head = agents.info(RECORD)
        tags = {_tag(agents.get(RECORD, v)) for v in versions}
    assert tags == set(files)  # every file's content is one acknowledged version
    # each save published itself in the same write: the last one is the highest
    assert head.latest_version == head.published_version == max(versions)


def test_a_writer_killed_mid_write_leaves_a_readable_record_and_no_stale_lock(
    store_spec: str, tmp_path: Path
) -> None:
    with open_store(store_spec, create=True) as store:
        ToolConfigStore(store).agents.save("crash", {"tools": {"v1": {}}}, publish=True)
    ready = tmp_path / "ready"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "editor.tests.support.config_writer",
            "hold",
            store_spec,
            "crash",
            str(ready),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the writer did not start"
            time.sleep(0.02)
        with open_store(store_spec) as store:  # the lock is held: writers wait, readers read
            busy = ToolConfigStore(store, lock_timeout=0.5).agents
            with pytest.raises(WriteLockError):
                busy.save("crash", {"tools": {"blocked": {}}})
            assert _tag(busy.get("crash", "published")) == "v1"
    finally:
        proc.kill()  # SIGKILL between the version row and the head
        proc.communicate(timeout=60)
    with open_store(store_spec) as store:
        agents = ToolConfigStore(store, lock_timeout=10).agents
        head = agents.info("crash")
        assert (head.latest_version, head.published_version) == (1, 1)
        assert _tag(agents.get("crash")) == "v1"  # draft and published still readable
        info = agents.save("crash", {"tools": {"after": {}}})  # the lock died with its holder
        history = {v.version: v.message for v in agents.history("crash")}
    if store_spec.startswith("postgresql"):
        assert info.version == 2 and set(history) == {1, 2}  # the transaction rolled back
    else:
        # SQLite committed the version row's batch: it is skipped, never overwritten
        assert info.version == 3 and history[2] == "half"
    assert agents_tag(store_spec, info.version) == "after"


def agents_tag(store_spec: str, version: int) -> str:
    with open_store(store_spec) as store:
        return _tag(ToolConfigStore(store).agents.get("crash", version))


# -- if_version publishes through parallel CLI imports -------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def config_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "configs.sqlite")
        return
    from tests.support.postgres import fresh_database

    with fresh_database("opcfg", "parallel config imports") as url:
        yield url


@pytest.mark.timeout(120)
def test_parallel_cli_imports_with_if_version_publish_exactly_one(
    config_store: str, tmp_path: Path
) -> None:
    """Four shells run ``toolsearch config import --publish --if-version 1`` at once."""
    cli = [sys.executable, "-m", "langchain_toolsearch_editor._commands", "config", "import"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    first = tmp_path / "first.json"
    first.write_text(json.dumps({"agents": {"support": {"tools": {"v1": {}}}}}))
    done = subprocess.run(
        [*cli, str(first), "--store", config_store, "--publish"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    procs = []
    for shell in range(4):
        path = tmp_path / f"shell{shell}.json"
        path.write_text(json.dumps({"agents": {"support": {"tools": {f"s{shell}": {}}}}}))
        args = [*cli, str(path), "--store", config_store, "--publish", "--if-version", "1"]
        procs.append(
            subprocess.Popen(
                args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
    results = [(p.wait(timeout=90), *p.communicate()) for p in procs]
    won = [out for code, out, _ in results if code == 0]
    lost = [err for code, _, err in results if code != 0]
    assert len(won) == 1 and won[0].strip() == "saved agent support version 2 (published)"
    assert len(lost) == 3
    for err in lost:  # one readable line each, no traceback
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("toolsearch config: error: conflict: ")
        assert "is at version 2, not version 1" in err
    show = subprocess.run(
        [
            sys.executable,
            "-m",
            "langchain_toolsearch_editor._commands",
            "config",
            "show",
            "support",
            "--store",
            config_store,
            "--version",
            "published",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    shown = json.loads(show.stdout)
    assert shown["version"] == 2 and shown["latest_version"] == 2
    winner = next(i for i, (code, _, _) in enumerate(results) if code == 0)
    assert shown["data"] == {"tools": {f"s{winner}": {}}}
