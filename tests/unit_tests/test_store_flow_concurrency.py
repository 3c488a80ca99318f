"""One LangGraph ``InMemoryStore`` shared by threads and asyncio tasks at once.

Unguarded, a search iterating the store's dicts while another thread puts raised
``RuntimeError: dictionary changed size during iteration`` inside LangGraph (2 of 5 runs).
The package's store flows run an ``InMemoryStore``'s batches one at a time: threads doing
sync flows and asyncio tasks (on another thread's event loop) doing async flows on one
store all finish, and every put is there.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from langgraph.store.base import PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch._effects import Flow, arun_flow, run_flow

NS = ("toolsearch", "race")
ROUNDS = 120


def _flow(worker: str, i: int) -> Flow[int]:
    found = yield [SearchOp(namespace_prefix=NS, limit=10_000)]
    yield [PutOp(namespace=(*NS, worker), key=f"k{i}", value={"i": i})]
    return len(found[0])


def test_threads_and_tasks_share_one_in_memory_store() -> None:
    store = InMemoryStore()
    for i in range(300):  # a search iterates a while
        store.put((*NS, "seed"), f"s{i}", {"i": i})
    errors: list[BaseException] = []

    def sync_worker(name: str) -> None:
        try:
            for i in range(ROUNDS):
                run_flow(store, _flow(name, i))
        except BaseException as exc:  # any crash fails the test below
            errors.append(exc)

    async def task(name: str) -> None:
        for i in range(ROUNDS):
            await arun_flow(store, _flow(name, i))

    def loop_worker() -> None:
        async def main() -> Any:
            return await asyncio.gather(
                *(task(f"task{n}") for n in range(3)), return_exceptions=True
            )

        errors.extend(r for r in asyncio.run(main()) if isinstance(r, BaseException))

    workers = [threading.Thread(target=sync_worker, args=(f"thread{n}",)) for n in range(3)]
    workers.append(threading.Thread(target=loop_worker))
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    names = [f"thread{n}" for n in range(3)] + [f"task{n}" for n in range(3)]
    for name in names:
        assert len(store.search((*NS, name), limit=10_000)) == ROUNDS
