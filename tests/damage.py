"""Byte damage to the files of an index, and what the command line answers from it.

Shared by tests/test_damage.py (a bounded random sample) and benchmarks/damage_sweep.py
(every file, every kind). The questions run in a child process, so a crash (Kùzu reading a
garbled database can take the process down with a segmentation fault) is an outcome to
report, never the end of the test run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

KINDS = ("flip", "truncate", "zero", "delete")

# Questions asked of the index: (name, CLI arguments before --repo).
QUESTIONS = (
    ("impact", ["impact", "b", "--json"]),
    ("impact-down", ["impact", "m.py::a", "--direction", "downstream", "--json"]),
    ("context", ["context", "Shape", "--json"]),
    ("search", ["search", "main", "--json"]),
    ("cypher", ["cypher", "MATCH (a:Symbol)-[c:CALLS]->(b:Symbol) RETURN a.uid, b.uid, "
                "c.confidence ORDER BY a.uid, b.uid", "--json"]),
)  # fmt: skip

PROBE = r"""
import json, sys
from click.testing import CliRunner
from codeimpact.cli import main
repo, questions = sys.argv[1], json.loads(sys.argv[2])
out = {}
for name, args in questions:
    res = CliRunner().invoke(main, args + ["--repo", repo])
    out[name] = [res.exit_code, res.stdout, res.stderr]
res = CliRunner().invoke(main, ["status", "--check", repo])
out["status"] = [res.exit_code, res.stdout, res.stderr]
print(json.dumps(out))
"""

FILES = {
    "m.py": "def a():\n    return b()\n\n\ndef b():\n    return missing()\n\n\n"
    "def c():\n    return a()\n",
    "shapes.py": "from m import a\n\n\nclass Shape:\n    def area(self):\n        return a()\n\n\n"
    "class Square(Shape):\n    def area(self):\n        return super().area()\n",
    **{f"n{i}.py": "from m import a\n\n\ndef main():\n    a()\n" for i in range(1, 5)},
    "tests/test_shapes.py": "from shapes import Square\n\n\ndef test_area():\n"
    "    assert Square().area()\n",
}


@dataclass
class Answers:
    """Per question: (exit code, stdout, stderr); "status": `status --check`; "crash": how
    the probe process itself ended when it did not end normally."""

    by_question: dict[str, list]
    crash: str | None = None


def graph(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeimpact", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "CODEIMPACT_DEBUG": ""},
        timeout=300,
    )


def ask(repo: Path) -> Answers:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(repo), json.dumps(QUESTIONS)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        return Answers({}, f"probe exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return Answers(json.loads(proc.stdout))


def comparable(stdout: str):
    """A JSON answer without its freshness block (damage elsewhere may make it stale)."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return stdout
    if isinstance(data, dict):
        data.pop("freshness", None)
    return data


def covered(name: str) -> bool:
    """Whether the index's checks cover a file (its generation's manifest, or CURRENT):
    then damage to it must make `status` say so."""
    return (
        name == "CURRENT"
        or name.startswith("facts/")
        or (name.startswith("gen-") and not name.endswith("/verified.json"))
    )


def index_files(repo: Path) -> list[str]:
    idx = repo / ".codeimpact"
    return sorted(p.relative_to(idx).as_posix() for p in idx.rglob("*") if p.is_file())


def damage(path: Path, kind: str, where: float, length: int) -> bool:
    """Damage one file in place; returns whether its bytes changed."""
    if kind == "delete":
        path.unlink()
        return True
    data = path.read_bytes()
    at = min(int(where * len(data)), max(len(data) - 1, 0))
    if kind == "truncate":
        path.write_bytes(data[:at])
        return at < len(data)
    if not data:
        return False
    new = bytearray(data)
    if kind == "flip":
        new[at] ^= 1 << (length % 8)
    else:  # zero
        new[at : at + max(length, 1)] = bytes(len(new[at : at + max(length, 1)]))
    with open(path, "r+b") as fh:  # in place, as a disk or a stray write would
        fh.write(new)
    return bytes(new) != data


def build(root: Path) -> Path:
    """The small repository every damage case starts from, indexed."""
    repo = root / "repo"
    for rel, text in FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    proc = graph("analyze", "--index-only", str(repo))
    assert proc.returncode == 0, proc.stderr
    return repo


def copy_index(template: Path, dest: Path) -> Path:
    """A copy of the indexed repository whose writer's stamps are current again (a plain
    analyze of an unchanged tree refreshes them), so queries trust what is unchanged."""
    shutil.copytree(template, dest, symlinks=True)
    proc = graph("analyze", "--index-only", str(dest))
    assert proc.returncode == 0 and "up to date" in proc.stdout, proc.stdout + proc.stderr
    return dest


def problems(good: Answers, got: Answers, changed: bool, in_manifest: bool) -> list[str]:
    """Why answers from a damaged index are not acceptable: a crash, an internal error, a
    refusal that is not one line, an answer that differs from the undamaged index's, or a
    status that calls a damaged generation fresh."""
    out = []
    if got.crash:
        return [got.crash]
    for name, (code, stdout, stderr) in got.by_question.items():
        want_code, want_out, _ = good.by_question[name]
        if name == "status":
            if changed and in_manifest and code != 1:
                out.append(f"status --check exited {code} on a damaged file: {stderr.strip()}")
            elif code not in (0, 1):
                out.append(f"status --check exited {code}: {stderr.strip()}")
            continue
        if code == 0:
            if comparable(stdout) != comparable(want_out):
                out.append(f"{name}: a different answer")
        elif code != 2 or stdout or stderr.count("\n") != 1 or "internal error" in stderr:
            out.append(f"{name}: exit {code}, stderr {stderr.strip()[:200]!r}")
    return out
