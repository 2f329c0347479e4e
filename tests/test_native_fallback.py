"""The pure Python path, for real: CODEIMPACT_NATIVE=0 switches the native extraction off.

The switch is read once per process (the chain readers are chosen at import), so these tests
run the CLI and a fixture indexer in child processes with it set, and compare with what the
native path (this process, and the recorded graph specification) gives: the same facts and
the same graph either way. The runner identity records which path built an index, so
switching paths rebuilds it, and `status --json` / `analyze --json` say which path runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.python import extract as py
from codeimpact.native.runner import NATIVE_ENV, native_status
from conftest import write_files
from python_edge_cases import EDGE_CASES

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

native = pytest.mark.skipif(not native_status().used, reason=native_status().reason)


def _env(native_path: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != NATIVE_ENV}
    if not native_path:
        env[NATIVE_ENV] = "0"
    return env


def graph(*args: str, native_path: bool) -> dict:
    res = subprocess.run(
        [sys.executable, "-m", "codeimpact", *args, "--json"],
        capture_output=True,
        text=True,
        env=_env(native_path),
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "from pkg.b import helper\n\n\ndef run(x):\n    return helper(x)\n",
    "pkg/b.py": "def helper(x):\n    return x\n",
    "web/app.ts": "import { f } from './lib';\nexport function main() { return f(); }\n",
    "web/lib.ts": "export function f() { return 1; }\n",
}


@native
def test_switching_paths_rebuilds_and_both_say_which_ran(tmp_path):
    repo = tmp_path / "repo"
    write_files(repo, FILES)
    built = graph("analyze", str(repo), "--index-only", native_path=True)
    assert built["extraction"]["native"] is True and built["extraction"]["reason"] == ""

    st = graph("status", str(repo), native_path=False)
    assert st["fresh"] is False
    assert st["extraction"] == {
        "native": False,
        "reason": f"disabled by {NATIVE_ENV}=0",
        "indexed": True,
    }
    changed = {c["component"]: c for c in st["identity"]["changed"]}
    assert changed["native_extraction"]["indexed"] is True
    assert changed["native_extraction"]["current"] is False

    rebuilt = graph("analyze", str(repo), "--index-only", native_path=False)
    assert rebuilt["mode"] == "full"
    assert rebuilt["extraction"]["native"] is False
    assert (rebuilt["symbols"], rebuilt["edges"]) == (built["symbols"], built["edges"])
    st = graph("status", str(repo), native_path=False)
    assert st["fresh"] is True and st["extraction"]["indexed"] is False


# A child under the switch: its path, the facts of the Python edge cases, and the graph of
# fixture projects of every language against the recorded specification.
CHILD = """
import json, sys
sys.path[:0] = [{benchmarks!r}, {tests!r}]
import graph_dump
from python_edge_cases import EDGE_CASES
from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.python import extract as py
from codeimpact.native.runner import native_status
import textwrap
names = json.loads(sys.argv[1])
fixtures = graph_dump.load_fixtures()
out = {{"status": native_status().as_json(), "facts": {{}}, "graphs": {{}}}}
for name, source in EDGE_CASES.items():
    out["facts"][name] = py.extract(textwrap.dedent(source).encode()).to_bytes().hex()
for name in names:
    fx = fixtures[name]
    out["graphs"][name] = graph_dump.compare(fx["dump"], graph_dump.fixture_dump(fx["files"])).identical
print(json.dumps(out))
"""


def _fixtures_of_every_language(per_language: int = 2) -> list[str]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import graph_dump
    finally:
        sys.path.remove(str(BENCHMARKS))
    if not graph_dump.FIXTURES.is_file():
        return []
    picked: dict[str, list[str]] = {}
    for name, fx in sorted(graph_dump.load_fixtures().items()):
        languages = {ln.split("\t")[2] for ln in fx["dump"] if ln.startswith("F\t")}
        for language in sorted(languages):
            if len(picked.setdefault(language, [])) < per_language:
                picked[language].append(name)
                break
    return sorted({n for names in picked.values() for n in names})


@native
def test_the_python_path_makes_the_same_facts_and_graphs():
    names = _fixtures_of_every_language()
    assert len(names) >= 10, "the recorded fixtures (benchmarks/spec) are missing"
    code = CHILD.format(benchmarks=str(BENCHMARKS), tests=str(Path(__file__).parent))
    res = subprocess.run(
        [sys.executable, "-c", code, json.dumps(names)],
        capture_output=True,
        text=True,
        env=_env(False),
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["status"]["native"] is False
    assert out["status"]["reason"] == f"disabled by {NATIVE_ENV}=0"
    for name, source in EDGE_CASES.items():
        here = py.extract(textwrap.dedent(source).encode()).to_bytes()
        # the same facts; the bytes may differ where marshal shares a string the chain caches
        # of one process hold and the other's do not
        there = FileFacts.from_bytes(bytes.fromhex(out["facts"][name]))
        assert there == FileFacts.from_bytes(here), name
    differ = [name for name, identical in out["graphs"].items() if not identical]
    assert not differ, f"the Python path indexes these fixtures differently: {differ}"
