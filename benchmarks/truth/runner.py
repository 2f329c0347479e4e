"""Run a project's own pytest suite under the trace hook and make its truth document.

The suite runs in a subprocess of a virtualenv made for it (its pinned test
requirements), on a fresh copy of the source tree whose source roots come first on
PYTHONPATH, so the copy's code is what runs. The project's own metadata is made
visible from the sdist's PKG-INFO (a ``NAME-VERSION.dist-info`` folder on the path):
Click's and Flask's suites ask ``importlib.metadata`` for their version, and
installing the copy would put a second import path in play.
"""

from __future__ import annotations

import json
import lzma
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from sources import fresh_copy

from truth.mapping import build_truth
from truth.projects import Project

HOOK_DIR = Path(__file__).parent
CACHE = HOOK_DIR.parent / ".cache"


@dataclass
class SuiteRun:
    exit_code: int
    cpu_seconds: float  # user + sys of the suite's process tree
    wall_seconds: float
    output_tail: str


def suite_python(project: Project, venv: Path | None = None) -> Path:
    """The interpreter of the suite's virtualenv, made (with pip) on first use."""
    venv = venv or CACHE / f"venv-{project.key}"
    python = venv / "bin" / "python"
    stamp = venv / "truth-requirements.txt"
    wanted = "\n".join(project.requirements)
    if python.is_file() and stamp.is_file() and stamp.read_text() == wanted:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", *project.requirements],
        check=True,
        capture_output=True,
    )
    stamp.write_text(wanted)
    return python


def _metadata_dir(project: Project, tree: Path, work: Path) -> Path:
    meta = work / "metadata"
    dist = meta / f"{project.distribution or project.name}-{project.version}.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    pkg_info = tree / "PKG-INFO"
    if pkg_info.is_file():
        shutil.copyfile(pkg_info, dist / "METADATA")
    else:
        (dist / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {project.name}\nVersion: {project.version}\n"
        )
    return meta


def run_suite(
    project: Project, tree: Path, python: Path, raw_out: Path, extra_args: tuple[str, ...] = ()
) -> SuiteRun:
    """Run the suite under the hook; the raw record is written to `raw_out`."""
    work = raw_out.parent
    path = [str(HOOK_DIR), *(str(tree / r) for r in project.source_roots)]
    path.append(str(_metadata_dir(project, tree, work)))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(path),
        "TRUTH_HOOK_ROOT": str(tree),
        "TRUTH_HOOK_OUT": str(raw_out),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",  # set iteration orders decide some paths: same run, same truth
    }
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [
        str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "truth_hook",
        f"--basetemp={work / 'basetemp'}", *project.pytest_args, *extra_args,
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-5:])
    if not raw_out.is_file():
        raise RuntimeError(f"the suite wrote no trace (exit {proc.returncode}):\n{tail}")
    return SuiteRun(proc.returncode, cpu, wall, tail)


def trace_project(
    project: Project, src: Path, python: Path, work: Path, extra_args: tuple[str, ...] = ()
) -> tuple[dict, SuiteRun]:
    """(truth document, suite run) of `project`'s suite run on a copy of `src`."""
    work.mkdir(parents=True, exist_ok=True)
    tree = fresh_copy(src, work / "tree")
    raw_out = work / "raw.json"
    run = run_suite(project, tree, python, raw_out, extra_args)
    raw = json.loads(raw_out.read_text())
    return build_truth(raw, tree, project.name, project.version), run


def write_truth(truth: dict, path: Path) -> None:
    data = json.dumps(truth, separators=(",", ":"), sort_keys=False).encode()
    if path.suffix == ".xz":
        data = lzma.compress(data, preset=9 | lzma.PRESET_EXTREME)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def read_truth(path: Path) -> dict:
    data = path.read_bytes()
    if path.suffix == ".xz":
        data = lzma.decompress(data)
    return json.loads(data)
