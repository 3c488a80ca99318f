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


_SPELLING_PROBE = """
import random
from langchain_toolsearch.search._stages import SpellingFallback
def bigrams(w):
    return {f"^{w}$"[i : i + 2] for i in range(len(w) + 1)}
rnd = random.Random(3)
word, found = "missing", {}
while len(found) < 150:  # two-edit neighbours sharing 4 bigrams: more ties than are compared
    w = list(word)
    for _ in range(2):
        w[rnd.randrange(len(w))] = rnd.choice("abcdefghijklmnopqrstuvwxyz")
    if len(bigrams(word) & bigrams("".join(w))) == 4:
        found["".join(w)] = None
vocab = {t: i for i, t in enumerate(found)}
print(SpellingFallback(vocab, [1] * len(vocab), str).correct(word))
"""


def test_spelling_corrections_are_the_same_in_every_process() -> None:
    """More candidates tie on shared bigrams than are compared: which are is not set order."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    answers = {
        subprocess.run(
            [sys.executable, "-c", _SPELLING_PROBE],
            env={**env, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
            timeout=120,
        ).stdout.strip()
        for seed in ("0", "1", "2", "3", "5", "7")
    }
    assert len(answers) == 1 and answers != {"None"}, answers
