"""The `examples/deployment` agent served by LangGraph's API server (`langgraph dev`).

Driven through `langgraph-sdk` as a client would: two threads, two assistants,
``storage="store"`` on the server's own store. Pins what docs/deploying.md says:
loads are kept per thread (across runs, and across a server restart), a thread
copy starts with no loads, a rollback does not unload, and an assistant's
``configurable`` is fixed into a thread by its first run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.support.paths import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "deployment"
WEATHER = "What is the weather in Paris?"
DIRECT = "Weather in Oslo, please."  # calls get_weather without loading it
DELETE = "Delete user 42."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``langgraph dev`` on a copy of the example folder (it keeps its data there)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = folder / "server.log"

    def start(self) -> None:
        cli = Path(sys.executable).parent / "langgraph"
        cmd = [str(cli), "dev", "--port", str(self.port), "--no-browser", "--no-reload"]
        env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"}
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                cmd,
                cwd=self.folder,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"langgraph dev exited:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as reply:
                    if json.loads(reply.read()).get("ok"):
                        return
            except OSError:
                time.sleep(0.5)
        pytest.fail(f"langgraph dev did not answer:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # a clean stop flushes its data
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("deployment") / "app"
    shutil.copytree(EXAMPLE, folder)
    srv = Server(folder)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
async def client(server: Server) -> AsyncIterator[LangGraphClient]:
    yield get_client(url=server.url)


async def _assistants(client: LangGraphClient) -> tuple[str, str]:
    free = await client.assistants.create("agent", config={"configurable": {"plan": "free"}})
    pro = await client.assistants.create("agent", config={"configurable": {"plan": "pro"}})
    return free["assistant_id"], pro["assistant_id"]


async def _ask(client: LangGraphClient, thread: str, assistant: str, text: str) -> list[Any]:
    out = await client.runs.wait(
        thread, assistant, input={"messages": [{"role": "user", "content": text}]}
    )
    assert isinstance(out, dict), out
    messages: list[Any] = out["messages"]
    last_human = max(i for i, m in enumerate(messages) if m["type"] == "human")
    return messages[last_human:]


def _tool_results(turn: list[Any]) -> list[tuple[str, str, str]]:
    return [(m["name"], m["status"], str(m["content"])) for m in turn if m["type"] == "tool"]


async def _loaded(client: LangGraphClient, thread: str) -> list[str]:
    found = await client.store.search_items(("toolsearch", "loaded", thread), limit=100)
    return sorted(item["key"] for item in found["items"])


async def _thread(client: LangGraphClient) -> str:
    thread_id: str = (await client.threads.create())["thread_id"]
    return thread_id


async def test_two_threads_two_assistants_loads_kept_per_thread(client: LangGraphClient) -> None:
    free, pro = await _assistants(client)
    t1, t2 = await _thread(client), await _thread(client)

    turn = await _ask(client, t1, free, WEATHER)
    assert _tool_results(turn)[-1] == ("get_weather", "success", "sunny in Paris")
    assert await _loaded(client, t1) == ["get_weather"]  # in the server's own store
    assert await _loaded(client, t2) == []

    # the load is kept for t1's later runs, and only for t1
    assert _tool_results(await _ask(client, t1, free, DIRECT))[-1][1:] == (
        "success",
        "sunny in Oslo",
    )
    refused = _tool_results(await _ask(client, t2, free, DIRECT))[-1]
    assert refused[:2] == ("get_weather", "error") and "not available" in refused[2]

    # the pro assistant may load the admin tool on its own thread; the free one may not
    t3, t4 = await _thread(client), await _thread(client)
    assert _tool_results(await _ask(client, t3, pro, DELETE))[-1][1:] == (
        "success",
        "user 42 deleted",
    )
    denied = _tool_results(await _ask(client, t4, free, DELETE))
    assert denied[0][:2] == ("load_tool", "error") and denied[-1][1] == "error"
    assert await _loaded(client, t3) == ["admin_delete_user"]
    assert await _loaded(client, t4) == []


async def test_a_thread_keeps_the_configurable_of_its_first_run(client: LangGraphClient) -> None:
    """Server behaviour docs/deploying.md warns about: authorize on the caller, not the assistant."""
    free, pro = await _assistants(client)
    thread = await _thread(client)
    await _ask(client, thread, pro, WEATHER)
    # a later run with the free assistant still sees plan=pro on this thread
    assert _tool_results(await _ask(client, thread, free, DELETE))[-1][1:] == (
        "success",
        "user 42 deleted",
    )


async def test_thread_copy_starts_without_loads_and_rollback_keeps_them(
    client: LangGraphClient,
) -> None:
    free, _ = await _assistants(client)
    thread = await _thread(client)
    await _ask(client, thread, free, WEATHER)

    copy = (await client.threads.copy(thread))["thread_id"]
    assert await _loaded(client, copy) == []  # store items are keyed by thread id
    assert _tool_results(await _ask(client, copy, free, DIRECT))[-1][1] == "error"

    # run again from the first checkpoint (before the load): the store is not rolled back
    history = await client.threads.get_history(thread, limit=100)
    first = history[-1]["checkpoint"]["checkpoint_id"]
    out = await client.runs.wait(
        thread,
        free,
        input={"messages": [{"role": "user", "content": DIRECT}]},
        checkpoint_id=first,
    )
    assert isinstance(out, dict)
    assert out["messages"][0]["type"] == "human"
    assert not any(m.get("name") == "load_tool" for m in out["messages"])  # forked history
    assert _tool_results(out["messages"])[-1][1:] == ("success", "sunny in Oslo")


async def test_loads_survive_a_server_restart(server: Server) -> None:
    client = get_client(url=server.url)
    free, _ = await _assistants(client)
    thread = await _thread(client)
    await _ask(client, thread, free, WEATHER)
    server.stop()
    server.start()
    client = get_client(url=server.url)
    assert await _loaded(client, thread) == ["get_weather"]
    assert _tool_results(await _ask(client, thread, free, DIRECT))[-1][1] == "success"


def test_the_example_is_a_deployable_graph() -> None:
    config = json.loads((EXAMPLE / "langgraph.json").read_text())
    assert config["graphs"] == {"agent": "./agent.py:agent"}
    assert config["store"]["ttl"]["default_ttl"] > 0  # loaded-tool items expire
    import importlib.util

    spec = importlib.util.spec_from_file_location("deployment_agent", EXAMPLE / "agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # the server refuses a graph compiled with its own checkpointer or store
    assert module.agent.checkpointer is None and module.agent.store is None
