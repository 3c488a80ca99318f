"""Issue 18 point 2 across processes: a publish made by another process reaches a
resolver's cache within ``refresh_interval`` seconds (real PostgreSQL store).

The test process resolves (and caches) version 1; a second Python process
publishes version 2 into the same database; the first process's resolver
serves its cached set until the bound and the new set right after it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from typing import Any

import pytest
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch.config import ToolConfigStore, ToolResolver
from tests.support.paths import REPO_ROOT
from tests.support.postgres import fresh_database

REFRESH = 1.0

PUBLISHER = textwrap.dedent(
    """
    import sys
    from langgraph.store.postgres import PostgresStore
    from langchain_toolsearch import ToolConfigStore

    with PostgresStore.from_conn_string(sys.argv[1]) as store:
        configs = ToolConfigStore(store)
        configs.agents.save("support", {"tools": {"get_weather": {}, "send_email": {}}})
        print(configs.agents.publish("support").published_version)
    """
)


def tool(name: str) -> BaseTool:
    def run(text: str) -> str:
        return f"{name}: {text}"

    return StructuredTool.from_function(run, name=name, description=f"{name} tool")


REGISTRY = {"get_weather": tool("get_weather"), "send_email": tool("send_email")}


def publish_in_another_process(url: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PUBLISHER, url],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_publish_in_another_process_is_seen_within_the_refresh_interval(
    mode: str,
) -> None:
    pg = pytest.importorskip(
        "langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres"
    )
    with (
        fresh_database("rescache", "the resolution cache test") as url,
        pg.PostgresStore.from_conn_string(url) as store,
    ):
        store.setup()
        configs = ToolConfigStore(store)
        configs.agents.save("support", {"tools": {"get_weather": {}}})
        configs.agents.publish("support")
        resolver = ToolResolver(
            store=configs,
            agent_id="support",
            version="published",
            registry=REGISTRY,
            refresh_interval=REFRESH,
        )

        async def names() -> list[str]:
            config: dict[str, Any] = {"configurable": {"plan": "pro"}}
            if mode == "sync":
                return resolver.resolve(config).names  # type: ignore[arg-type]
            return (await resolver.aresolve(config)).names  # type: ignore[arg-type]

        assert await names() == ["get_weather"]
        hits = resolver.cache_hits
        assert await names() == ["get_weather"]
        assert resolver.cache_hits == hits + 1  # served from the cache

        assert publish_in_another_process(url) == "2"
        published = time.monotonic()
        seen = await names()
        while seen == ["get_weather"] and time.monotonic() - published < 10 * REFRESH:
            time.sleep(0.05)
            seen = await names()
        waited = time.monotonic() - published
        assert sorted(seen) == ["get_weather", "send_email"]  # jsonb keeps no key order
        # the documented bound: heads are re-read at most every refresh_interval seconds
        assert waited <= REFRESH + 0.5, waited
