"""Check the corpus against the language: run every case under the recorder and compare
the calls it executed with the calls its assertions state.

A case's run is the import of its ``run`` module, or its pytest suite (``run:
pytest``), all in one interpreter (`truth_run.py`, with the `truth_hook` plugin). The executed edges (direct or through external code,
named as annotations name them, with the line of the call) must equal the asserted
ones whose callee is project code, line by line, except:

- an asserted call of a class need not be seen (a class without a Python
  ``__init__``/``__new__``/``__post_init__`` runs no frame when called);
- ``[static]`` assertions need not be seen;
- pytest fixtures are called by pytest, not by the test: for each test item, the
  fixtures that ran in it must equal the fixtures the test reaches through asserted
  fixture requests (a test's parameter, a fixture's parameter, ``usefixtures``,
  ``autouse``; a fixture with a ``scope=`` runs for the first of its tests only).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from truth.breaks import NodeIds
from truth.corpus import Callers, Case, expected_edges
from truth.mapping import build_truth
from truth.symtab import file_table

HOOK_DIR = Path(__file__).parent
FIXTURE = re.compile(r"(^|\.)fixture$")  # @pytest.fixture, @fixture (not usefixtures)


def _env(extra_path: list[str]) -> dict:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HOOK_DIR), *extra_path]),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("PYTEST_ADDOPTS", None)
    return env


def run_cases(cases: list[Case], work: Path, python: Path | None = None) -> dict[str, dict]:
    """case name -> truth document (with "error" when the run failed)."""
    python = python or Path(sys.executable)
    roots = {c.name: work / f"case{i:03d}" for i, c in enumerate(cases)}
    for c in cases:
        c.write(roots[c.name] / "tree")
    jobs = [
        {
            "root": str(roots[c.name] / "tree"),
            "module": c.run,
            "out": str(roots[c.name] / "raw.json"),
        }
        for c in cases
    ]
    (work / "jobs.json").write_text(json.dumps(jobs))
    proc = subprocess.run(
        [str(python), str(HOOK_DIR / "truth_run.py"), str(work / "jobs.json")],
        env=_env([]),
        cwd=work,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the corpus driver failed: {proc.stderr[-2000:]}")
    out = {}
    for c in cases:
        root = roots[c.name]
        raw_path = root / "raw.json"
        if not raw_path.is_file():
            out[c.name] = {"error": "no trace written"}
            continue
        raw = json.loads(raw_path.read_text())
        truth = build_truth(raw, root / "tree", c.name, "corpus")
        if raw.get("error"):
            truth["error"] = raw["error"].strip().splitlines()[-1]
        elif raw["exit"] != 0:
            truth["error"] = f"pytest exit {raw['exit']}"
        truth["root"] = str(root / "tree")
        out[c.name] = truth
    return out


class CaseNames:
    """The project definitions of a written case, by annotation name."""

    def __init__(self, case: Case, root: Path) -> None:
        self.callers = Callers(root)
        self.defined: set[str] = set()
        self.classes: set[str] = set()
        self.fixtures: set[str] = set()
        self.scoped_fixtures: set[str] = set()  # scope= other than the default
        self.modules: set[str] = set()
        for path in case.files:
            table = file_table(root, path)
            self.modules.add(self.callers.module(path))
            self.defined.add(self.callers.module(path))
            for d in table.defs if table else ():
                name = self.callers.uid_name(d.uid)
                self.defined.add(name)
                if d.kind == "class":
                    self.classes.add(name)
                if any(FIXTURE.search(dec.split("(")[0].strip()) for dec in d.decorators):
                    self.fixtures.add(name)
                    if any("scope=" in dec for dec in d.decorators):
                        self.scoped_fixtures.add(name)

    def is_project(self, name: str) -> bool:
        return name in self.defined or any(name.startswith(m + ".") for m in self.modules)


def check_case(case: Case, truth: dict) -> list[str]:
    """What differs between the case's run and its assertions (empty: the case holds)."""
    if "error" in truth:
        return [f"the run failed: {truth['error']}"]
    root = Path(truth["root"])
    names = CaseNames(case, root)
    callers = names.callers
    expected = expected_edges(case, callers)
    problems = [
        f"{a.path}:{a.line}: {callee!r} is not defined in the case"
        for (_caller, callee), sites in expected.items()
        for a in sites[:1]
        if names.is_project(callee) and callee not in names.defined
    ]
    # compared per line: (caller, callee, line of the call); calls of fixtures apart
    defs = truth["definitions"]
    executed = {
        (callers.uid_name(defs[a][0]), callers.uid_name(defs[b][0]), line)
        for a, b, _kind, _via, lines in truth["edges"]
        for line in lines
    }
    executed = {e for e in executed if e[1] not in names.fixtures}
    asserted = {
        (caller, callee, a.line): a
        for (caller, callee), sites in expected.items()
        for a in sites
        if callee not in names.fixtures
    }
    for caller, callee, line in sorted(set(asserted) - executed):
        a = asserted[(caller, callee, line)]
        if not a.static and callee in names.defined and callee not in names.classes:
            problems.append(f"{a.path}:{line}: asserted {caller} -> {callee} did not run")
    for caller, callee, line in sorted(executed - set(asserted)):
        problems.append(f"line {line}: executed {caller} -> {callee} is not asserted there")
    problems += _check_fixtures(truth, names, expected)
    for nodeid, t in truth["tests"].items():
        if t["outcome"] not in ("passed",):
            problems.append(f"{nodeid}: {t['outcome']}")
    return problems


def _check_fixtures(truth: dict, names: CaseNames, expected) -> list[str]:
    requests: dict[str, set[str]] = {}
    for caller, callee in expected:
        if callee in names.fixtures:
            requests.setdefault(caller, set()).add(callee)
    defs = truth["definitions"]
    ids = NodeIds(truth["tests"])
    problems = []
    for nodeid, t in truth["tests"].items():
        own = names.callers.uid_name(ids.own_function(nodeid))
        ran = {names.callers.uid_name(defs[e][0]) for e in t["executed"]} & names.fixtures
        reached: set[str] = set()
        todo = [own]
        while todo:
            for f in requests.get(todo.pop(), ()):
                if f not in reached:
                    reached.add(f)
                    todo.append(f)
        # a fixture of a wider scope runs for the first test that needs it only
        if ran - reached or reached - ran - names.scoped_fixtures:
            problems.append(
                f"{nodeid}: fixtures run {sorted(ran)}, asserted requests reach {sorted(reached)}"
            )
    return problems
