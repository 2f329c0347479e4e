"""What a run does while git lists the files (pipeline._WhileListing).

`git ls-files` runs on another core while the run would wait for it (Django: ~40 ms quiet,
80-140 ms at load); the run checks the live generation there, and when a file's stat moved
since it, imports the incremental run's modules, which an edit needs
next. A no-op imports none of them, there or after.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codeimpact.graph import layout
from codeimpact.indexer import gitinfo

# what `SEEN` says when the run reads git's listing (the modules loaded), then the report
PROBE = """
import json, os, subprocess, sys
{define}
seen = []
communicate = subprocess.Popen.communicate
def probe(self, *a, **k):
    if "ls-files" in self.args:
        seen.append({seen})
    return communicate(self, *a, **k)
subprocess.Popen.communicate = probe
from codeimpact.cli import main
try:
    main(["analyze", "--index-only", "--json", sys.argv[1]])
except SystemExit as e:
    assert not e.code, e.code
print(json.dumps(seen))
"""
WATCH = {"codeimpact.indexer.incremental_run"}
# enough files that one edited is an edit (a third of them changed is a full build)
FILLER = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}


def _analyze(repo, define: str = "", seen: str = "") -> tuple[dict, list]:
    seen = seen or f"sorted(m for m in sys.modules if m in {WATCH!r})"
    probe = PROBE.format(define=define, seen=seen)
    out = subprocess.check_output([sys.executable, "-c", probe, str(repo)], text=True)
    report, _, seen = out.rstrip("\n").rpartition("\n")
    return json.loads(report), json.loads(seen)


def test_an_edit_imports_its_run_while_git_lists_the_files(make_repo, index_repo):
    repo = make_repo({**FILLER, "pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "f = 1\n"})
    index_repo(repo)
    report, seen = _analyze(repo)
    assert report["mode"] == "unchanged" and seen == [[]]
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return f()\n")
    report, seen = _analyze(repo)
    assert report["mode"] == "incremental" and report["delta"]["symbols_inserted"] == 1
    assert seen == [sorted(WATCH)]


# the names of this process's children (a fork of it: "(this)"), for `_analyze`'s `seen`
CHILDREN = """
def children():
    with open(f"/proc/self/task/{os.getpid()}/children") as fh:
        pids = fh.read().split()
    names = []
    for pid in pids:
        with open(f"/proc/{pid}/comm") as fh:
            names.append(fh.read().strip())
    with open("/proc/self/comm") as fh:
        me = fh.read().strip()
    return sorted("(this)" if n == me else n for n in names)
"""


def test_an_edit_starts_its_database_writer_while_git_lists_the_files(make_repo, index_repo):
    # the writer's start (Kùzu imported, the spare taken and checked, opened) runs on the
    # other core while git lists the files, not beside the tree fields' child later
    repo = make_repo({**FILLER, "pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "f = 1\n"})
    index_repo(repo)
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return f()\n")
    report, seen = _analyze(repo, CHILDREN, "children()")
    assert report["mode"] == "incremental" and report["forks"]["delta writer"] == "forked"
    assert seen == [["(this)", "git"]]  # git, and a fork of this process: the writer


def test_a_writer_started_for_no_delta_is_stopped_and_its_folder_removed(make_repo, index_repo):
    # a file touched (its stat moved, not its content) starts the writer; the run is a no-op:
    # no child is left (running or a zombie), nor the writer's generation folder
    import os

    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    repo = make_repo({**FILLER, "pkg/a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    idx = layout.index_dir(repo)
    before = sorted(p.name for p in idx.iterdir() if p.name.startswith("gen-"))
    os.utime(repo / "pkg/a.py", ns=(1, 1))
    report = analyze(repo, IndexConfig(), RunOptions(workers=1))
    assert report.mode == "unchanged"
    with open(f"/proc/self/task/{os.getpid()}/children") as fh:
        assert fh.read().split() == []
    assert sorted(p.name for p in idx.iterdir() if p.name.startswith("gen-")) == before
    assert layout.read_marker(idx) is None


def test_a_file_added_is_indexed_though_no_stat_moved(make_repo, index_repo):
    repo = make_repo({**FILLER, "pkg/a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    (repo / "pkg/b.py").write_text("from pkg.a import f\n\n\ndef g():\n    return f()\n")
    report, seen = _analyze(repo)
    assert report["mode"] == "incremental" and report["delta"]["files_written"] == 1
    assert seen == [[]]  # imported after the scan, as before


def test_a_config_change_found_while_listing_still_rebuilds(make_repo, index_repo):
    repo = make_repo({"pkg/a.py": "def f():\n    return 1\n", "go.mod": "module x\n",
                      "m/m.go": "package m\n"})  # fmt: skip
    index_repo(repo)
    (repo / "go.mod").write_text("module y\n")
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n")
    report, _ = _analyze(repo)
    assert report["mode"] == "full" and report["reason"] == "project config files changed"


def test_git_is_reaped_when_the_work_meanwhile_raises(make_repo, monkeypatch):
    repo = make_repo({"pkg/a.py": "x = 1\n"})
    started, popen = [], gitinfo.subprocess.Popen

    def start(*a, **k):
        started.append(popen(*a, **k))
        return started[-1]

    monkeypatch.setattr(gitinfo.subprocess, "Popen", start)

    def fail():
        raise KeyError("meanwhile")

    with pytest.raises(KeyError):
        gitinfo.run_git_meanwhile(repo, ("ls-files", "-z"), fail)
    assert len(started) == 1 and started[0].returncode is not None  # waited for: no zombie
    out = gitinfo.run_git_meanwhile(repo, ("ls-files", "-z"), lambda: None)
    assert out.returncode == 0 and out.stdout.split(b"\0")[0] == b"pkg/a.py"
