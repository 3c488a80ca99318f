"""Search determinism across processes: the same catalog and query give the same bytes
in every process, whatever its hash seed (SPEC section 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.support.paths import REPO_ROOT as ROOT

_PROBE = """
import json
from langchain_core.tools import StructuredTool
from langchain_toolsearch import ToolSearchMiddleware
from tests.support.library_fixtures import library
extra = [StructuredTool(name=n, description=d, args_schema={"type": "object", "properties": {}},
                        func=lambda **kw: "") for n, d in [
    ("weather.get", "Get weather"), ("天気", "天気予報"), ("fax b", "Send a fax"),
    ("fax a", "Send a fax"), ("z/y", "weather alerts")]]
mw = ToolSearchMiddleware(tools=[*library(), *extra], top_k=8)
out = {q: [[r.name, r.description, r.score, r.raw_score] for r in mw.search(q)]
       for q in ["weather", "github", "send a fax", "天気", "get me", "delete user", "z/y"]}
print(json.dumps(out, ensure_ascii=False, sort_keys=True))
"""


def test_same_bytes_in_every_process() -> None:
    env_base = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _PROBE],
            env={**env_base, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for seed in ("1", "4242")
    ]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]
    here: dict[str, Any] = {}
    exec(_PROBE.replace("print(", "here['out'] = ("), {"here": here})  # this process too
    assert here["out"].strip() == outputs[0].strip()
    assert json.loads(outputs[0])["weather"]  # non-trivial output
