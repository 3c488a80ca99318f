"""Shared helpers and fixtures for tests that talk to real MCP servers over stdio.

Use from a test module with ``from tests.support.mcp_fixtures import ...`` (helpers)
or ``pytest_plugins = ["tests.support.mcp_fixtures"]`` (fixtures).

Two kinds of servers are used:

* the reference servers from PyPI (``mcp-server-time``, ``mcp-server-git``,
  ``mcp-server-fetch``). They need ``mcp>=2.3`` while langchain-mcp-adapters
  needs ``mcp<2``, so they live in their own environment whose ``bin`` dir is
  ``$TOOLSEARCH_MCP_SERVERS_BIN`` (set by the Makefile; default
  ``<repo>/.venv-mcp-servers/bin``);
* the small test servers in ``tests/mcp_servers/``, run with the test
  interpreter (``sys.executable``) and the ``mcp`` 1.x package installed there.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
TEST_SERVERS_DIR = Path(__file__).resolve().parent / "mcp_servers"
REAL_SERVER_SCRIPTS = ("mcp-server-time", "mcp-server-git", "mcp-server-fetch")

GIT_COMMIT_MESSAGES = ("Add the first file", "Fix the greeting in hello.txt")


def servers_bin() -> Path:
    """Directory holding the reference MCP server executables.

    Fails the test (never skips) when the executables are missing.
    """
    configured = os.environ.get("TOOLSEARCH_MCP_SERVERS_BIN")
    path = Path(configured) if configured else REPO_ROOT / ".venv-mcp-servers" / "bin"
    missing = [name for name in REAL_SERVER_SCRIPTS if not (path / name).exists()]
    if missing:
        pytest.fail(
            f"MCP server executables {missing} not found in {path} "
            "(TOOLSEARCH_MCP_SERVERS_BIN). Run `make setup` to create the "
            "server environment, or point TOOLSEARCH_MCP_SERVERS_BIN at a bin "
            "dir that has mcp-server-time, mcp-server-git and mcp-server-fetch.",
            pytrace=False,
        )
    return path


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Toolsearch Tests", "-c", "user.email=tests@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    )


def make_git_repo(path: Path) -> Path:
    """Create a git repository at ``path`` with two commits and return it.

    The commit messages are `GIT_COMMIT_MESSAGES`, oldest first.
    """
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "-c", "init.defaultBranch=main", "init", "-q")
    (path / "hello.txt").write_text("helo\n")
    _git(path, "add", "hello.txt")
    _git(path, "commit", "-q", "-m", GIT_COMMIT_MESSAGES[0])
    (path / "hello.txt").write_text("hello\n")
    _git(path, "commit", "-q", "-a", "-m", GIT_COMMIT_MESSAGES[1])
    return path


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A temporary git repository with two commits (see `GIT_COMMIT_MESSAGES`)."""
    return make_git_repo(tmp_path / "repo")


def real_connections(repo_path: Path) -> dict[str, Any]:
    """Stdio connections for the reference ``time``, ``git`` and ``fetch`` servers.

    Args:
        repo_path: Repository served by ``mcp-server-git``.
    """
    bin_dir = servers_bin()
    return {
        "time": {
            "transport": "stdio",
            "command": str(bin_dir / "mcp-server-time"),
            "args": ["--local-timezone", "UTC"],
        },
        "git": {
            "transport": "stdio",
            "command": str(bin_dir / "mcp-server-git"),
            "args": ["--repository", str(repo_path)],
        },
        "fetch": {
            "transport": "stdio",
            "command": str(bin_dir / "mcp-server-fetch"),
            "args": [],
        },
    }


def schema_server_connection() -> dict[str, Any]:
    """Stdio connection for ``tests/mcp_servers/schema_server.py``."""
    return {
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(TEST_SERVERS_DIR / "schema_server.py")],
    }


def faulty_server_connection(name: str, tools: list[str] | None = None) -> dict[str, Any]:
    """Stdio connection for ``tests/support/mcp_servers/faulty_server.py``.

    Args:
        name: Name the server reports in its answers (use the connection's key).
        tools: Tool names to expose; default: ``fail_silently``, ``slow``,
            ``send_email``, ``execute_sql``. Unknown names become generic tools.
    """
    args = [str(TEST_SERVERS_DIR / "faulty_server.py"), "--name", name]
    if tools is not None:
        args += ["--tools", ",".join(tools)]
    return {"transport": "stdio", "command": sys.executable, "args": args}


def counted_server(name: str, starts: Path) -> dict[str, Any]:
    """A stdio server ``name`` (tool ``send_email``) that logs ``<name> <pid>`` to ``starts``."""
    script = TEST_SERVERS_DIR / "faulty_server.py"
    command = " ".join(
        shlex.quote(p)
        for p in (sys.executable, str(script), "--name", name, "--tools", "send_email")
    )
    line = f"echo {name} $$ >> {shlex.quote(str(starts))}; exec {command}"
    return {"command": "/bin/sh", "args": ["-c", line], "timeout": 30}


def always_load_server_connection() -> dict[str, Any]:
    """Stdio connection for ``tests/support/mcp_servers/always_load_server.py``."""
    return {
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(TEST_SERVERS_DIR / "always_load_server.py")],
    }
