"""Integrity: damaged or foreign indexes, readers during writes, SIGKILL mid-write."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import kuzu
import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from codeimpact.graph import csr, layout
from codeimpact.query.index import Index
from codeimpact.query.status import collect
from conftest import write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def f():\n    return 1\n",
    "pkg/b.py": "from pkg.a import f\n\ndef g():\n    return f()\n",
}


def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def live(repo: Path) -> layout.Generation:
    return layout.read_current(layout.index_dir(repo))


def write_meta(repo: Path, key: str, raw_value: str) -> None:
    """Store a raw Meta value in the live database, as a foreign or buggy writer would."""
    gen = live(repo)
    db = kuzu.Database(str(gen.db_path))
    conn = kuzu.Connection(db)
    conn.execute("MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": raw_value})
    conn.execute("CHECKPOINT")
    conn.close()
    db.close()
    layout.publish(layout.index_dir(repo), gen)  # re-record the size: only the value is bad


def write_meta_file(repo: Path, name: str, raw_value: str) -> None:
    """Store a raw value in a Meta value's file of the live generation (graph/meta_files.py)."""
    gen = live(repo)
    (gen.path / name).write_text(raw_value)
    layout.publish(layout.index_dir(repo), gen)  # re-record the checksums: only the value is bad


def rewrite_current(repo: Path, data: bytes) -> None:
    (layout.index_dir(repo) / layout.CURRENT).write_bytes(data)


def current_without_size(repo: Path) -> None:
    gen = live(repo)
    rewrite_current(repo, json.dumps({"generation": gen.number, "dir": gen.path.name}).encode())


def truncate_db(repo: Path, keep: float, record_size: bool) -> None:
    gen = live(repo)
    size = gen.db_path.stat().st_size
    if not record_size:
        current_without_size(repo)
    os.truncate(gen.db_path, int(size * keep))


def garbage_db(repo: Path) -> None:
    gen = live(repo)
    size = gen.db_path.stat().st_size
    gen.db_path.write_bytes(os.urandom(size))  # same size: only Kùzu can tell


def foreign_db(repo: Path) -> None:
    gen = live(repo)
    current_without_size(repo)
    gen.db_path.unlink()
    db = kuzu.Database(str(gen.db_path))
    conn = kuzu.Connection(db)
    conn.execute("CREATE NODE TABLE Foo(id INT64, PRIMARY KEY(id))")
    conn.execute("CHECKPOINT")
    conn.close()
    db.close()


def index_is_a_file(repo: Path) -> None:
    idx = layout.index_dir(repo)
    layout.remove_index(repo)
    idx.write_text("not an index\n")


# Damage to the index's files: detected by the generation's manifest (or CURRENT), reported
# by status as "damaged: <file>" (exit 1), refused by queries in one line, and repaired by a
# plain `graph analyze`.
DAMAGE = {
    "truncated-db": lambda r: truncate_db(r, 0.5, record_size=True),
    "truncated-db-size-unrecorded": lambda r: truncate_db(r, 0.5, record_size=False),
    "empty-db-size-unrecorded": lambda r: truncate_db(r, 0.0, record_size=False),
    "garbage-db": garbage_db,
    "foreign-db": foreign_db,
    "garbage-current": lambda r: rewrite_current(r, b"\x00\x01 not json"),
    "current-not-an-object": lambda r: rewrite_current(r, b"[1, 2]"),
    "current-points-outside": lambda r: rewrite_current(
        r, json.dumps({"generation": 1, "dir": "../../outside"}).encode()
    ),
    "current-names-a-missing-generation": lambda r: rewrite_current(
        r, json.dumps({"generation": 9, "dir": "gen-000009"}).encode()
    ),
}
# A foreign or buggy writer's Meta values (the files are whole: the manifest was written
# again) and an index folder that is not one: these name `--force` or `graph clean`.
BAD_CONTENT = {
    "meta-identity-garbage": lambda r: write_meta(r, "identity", '"garbage"'),
    "meta-identity-not-json": lambda r: write_meta(r, "identity", "{not json"),
    "meta-incomplete-garbage": lambda r: write_meta_file(r, "incomplete.json", '{"code": 1}'),
    "meta-commit-garbage": lambda r: write_meta(r, "indexed_commit", "[1]"),
    "meta-identity-missing": lambda r: write_meta(r, "identity_digest", "12"),
    "index-is-a-file": index_is_a_file,
}


def _one_line(res) -> str:
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("graph: "), res.stderr
    return res.stderr


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_files_are_stale_refused_and_repaired_by_analyze(make_repo, index_repo, damage):
    repo = make_repo(FILES)
    index_repo(repo)
    DAMAGE[damage](repo)

    res = run_cli("status", "--check", str(repo))
    assert res.exit_code == 1 and res.stdout == ""
    assert _one_line(res).startswith("graph: stale: damaged: "), res.stderr
    res = run_cli("status", str(repo))
    assert res.exit_code == 1 and "damaged: " in res.stdout
    res = run_cli("status", "--json", str(repo))
    assert res.exit_code == 1
    st = json.loads(res.stdout)
    assert st["fresh"] is False and st["damaged"] and st["reasons"][0].startswith("damaged: ")
    for args in (["search", "f", "--repo", str(repo)], ["impact", "f", "--repo", str(repo)]):
        res = run_cli(*args)
        assert res.exit_code == 2 and res.stdout == ""
        assert "is damaged" in _one_line(res) and f"run `graph analyze {repo}`" in res.stderr

    # the real command line: one line, no traceback, no crash
    proc = subprocess.run(["graph", "status", "--check", str(repo)], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr

    # a plain analyze repairs it
    res = run_cli("analyze", str(repo))
    assert res.exit_code == 0, res.stderr
    assert run_cli("status", "--check", str(repo)).exit_code == 0
    assert run_cli("search", "f", "--repo", str(repo)).exit_code == 0


@pytest.mark.parametrize("damage", sorted(BAD_CONTENT))
def test_a_foreign_index_gives_one_line_and_the_fix(make_repo, index_repo, damage):
    repo = make_repo(FILES)
    index_repo(repo)
    BAD_CONTENT[damage](repo)

    messages = []
    for args in (
        ["status", str(repo)],
        ["status", "--check", str(repo)],
        ["status", "--json", str(repo)],
        ["search", "f", "--repo", str(repo), "--require-fresh"],
    ):
        res = run_cli(*args)
        assert res.exit_code == 2, (args, res.output)
        assert res.stdout == ""
        messages.append(_one_line(res))
    # plain queries either answer or refuse the same way; they never crash
    assert run_cli("search", "f", "--repo", str(repo)).exit_code in (0, 2)

    proc = subprocess.run(["graph", "status", "--check", str(repo)], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1

    # the message names the command that fixes it, and that command works
    msg = messages[0]
    fixes = [f"graph clean {repo}", f"graph analyze --force {repo}"]
    assert any(f in msg for f in fixes), msg
    if f"graph clean {repo}" in msg:
        assert run_cli("clean", str(repo)).exit_code == 0
        assert run_cli("analyze", str(repo)).exit_code == 0
    else:
        assert run_cli("analyze", "--force", str(repo)).exit_code == 0
    res = run_cli("status", "--check", str(repo))
    assert res.exit_code == 0, res.stderr


def test_size_recorded_in_current_catches_truncation(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    data = json.loads((layout.index_dir(repo) / layout.CURRENT).read_text())
    assert data["db_size"] == live(repo).db_path.stat().st_size
    os.truncate(live(repo).db_path, data["db_size"] - 4096)
    res = run_cli("status", "--check", str(repo))
    assert res.exit_code == 1 and "bytes" in res.stderr and "were written" in res.stderr


# ------------------------------------------------------------------ readers
def test_a_reader_keeps_its_generation_across_a_publish(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    with Index.open(repo) as old:
        old_dir = old.reader.gen.path
        (repo / "pkg/a.py").write_text("def f():\n    return 2\n\ndef h():\n    return 3\n")
        index_repo(repo)  # publishes a new generation while `old` is open
        assert live(repo).path != old_dir
        assert old_dir.is_dir()  # pinned: not deleted under the reader
        assert old.search("f")
        snap = csr.load_snapshot(old_dir, old.generation)
        assert snap.n_nodes > 0
        assert not old.search("h")  # it still reads its own generation
    with Index.open(repo) as new:
        assert new.search("h")
    (repo / "pkg/a.py").write_text("def f():\n    return 4\n")
    index_repo(repo)  # nobody pins the old one now
    assert not old_dir.exists()
    gens = [p.name for p in layout.index_dir(repo).iterdir() if p.name.startswith("gen-")]
    assert gens == [live(repo).path.name]


# ------------------------------------------------------------ a big real tree
N_FILES = 400
N_PACKAGES = len({i // 100 for i in range(N_FILES)})


def _generate(root: Path) -> None:
    files = {"pkg/__init__.py": ""}
    for i in range(N_FILES):
        d = f"pkg/m{i // 100:02d}"
        files[f"{d}/__init__.py"] = ""
        j = (i * 7919) % N_FILES
        body = [f"from pkg.m{j // 100:02d}.mod{j} import f0 as g\n\n"]
        for k in range(6):
            body.append(f"def f{k}(x):\n    return g(x) + f{(k + 1) % 6}(x)\n\n")
        body.append(f"class C{i}:\n    def run(self):\n        return f0(1)\n")
        files[f"{d}/mod{i}.py"] = "".join(body)
    write_files(root, files)


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("big") / "repo"
    root.mkdir()
    _generate(root)
    proc = subprocess.run(["graph", "analyze", str(root)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return root


def _start_analyze(repo: Path, *flags: str) -> subprocess.Popen:
    return subprocess.Popen(
        ["graph", "analyze", *flags, str(repo)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # so the kill takes its worker processes too
    )


def _usable(repo: Path) -> layout.Generation:
    """The live generation opens, answers and has a loadable snapshot."""
    gen = live(repo)
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (f:File) RETURN count(*)").rows
        assert rows[0][0] == N_FILES + N_PACKAGES + 1  # modules and every __init__.py
        assert index.search("C7", kind="class")
        snap = csr.load_snapshot(gen.path, gen.number)
        assert snap.n_nodes > 0 and snap.n_edges > 0
    return gen


def test_queries_keep_working_while_analyze_writes(big_repo):
    idx = layout.index_dir(big_repo)
    before = live(big_repo).number
    proc = _start_analyze(big_repo, "--force")
    answered = during_write = 0
    try:
        while proc.poll() is None:
            with Index.open(big_repo) as index:
                assert index.search("C1", kind="class")
                writing = layout.read_marker(idx) is not None
            answered += 1
            during_write += writing
    finally:
        proc.wait(timeout=120)
    assert proc.returncode == 0, proc.stderr.read()
    assert answered > 0 and during_write > 0
    assert live(big_repo).number > before
    _usable(big_repo)


def _wait_for(proc: subprocess.Popen, condition, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.001)
    return False


def _new_gen(idx: Path, after: int) -> Path | None:
    for p in idx.iterdir():
        if p.name.startswith("gen-") and int(p.name[4:]) > after:
            return p
    return None


def _kill_points(idx: Path, before: int):
    try:
        half = live(idx.parent).db_path.stat().st_size // 2
    except Exception:
        half = 1

    def gen_folder():
        return _new_gen(idx, before) is not None

    def db_written():
        g = _new_gen(idx, before)
        return g is not None and (g / layout.DB_FILENAME).exists()

    def db_grown():
        g = _new_gen(idx, before)
        try:
            return g is not None and (g / layout.DB_FILENAME).stat().st_size > half
        except OSError:
            return False

    def snapshot_started():
        g = _new_gen(idx, before)
        return g is not None and (g / "csr").exists()

    def published():
        return live(idx.parent).number > before

    return {
        "full: generation folder created": (("--force",), gen_folder),
        "full: database half written": (("--force",), db_grown),
        "full: snapshot being written": (("--force",), snapshot_started),
        "full: just published": (("--force",), published),
        "incremental: database cloned": ((), db_written),
    }


def test_sigkill_mid_write_leaves_a_usable_or_flagged_index(big_repo):
    idx = layout.index_dir(big_repo)
    flagged = 0
    for n, point in enumerate(_kill_points(idx, 0)):
        before = _usable(big_repo).number
        # an edit, so even an incremental run has something to write
        target = big_repo / "pkg/m00/mod1.py"
        target.write_text(target.read_text() + f"\nEDIT_{n} = {n}\n")
        flags, condition = _kill_points(idx, before)[point]
        proc = _start_analyze(big_repo, *flags)
        hit = _wait_for(proc, condition)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        assert hit or proc.returncode == 0, (point, proc.stderr.read())

        # whatever the moment, the live generation is whole and answers
        gen = _usable(big_repo)
        with Index.open(big_repo) as index:
            st = collect(index)
        codes = [r["code"] for r in st.incomplete]
        assert st.analyzing is None  # the killed writer's lock died with it
        if gen.number == before and layout.read_marker(idx) is not None:
            assert "interrupted" in codes and not st.fresh, point
            assert any(r.startswith("interrupted:") for r in st.reasons)
            flagged += 1
        else:
            assert "interrupted" not in codes, point

        # the next analyze repairs it: no marker, no leftovers, fresh
        proc = _start_analyze(big_repo)
        proc.wait(timeout=120)
        assert proc.returncode == 0, proc.stderr.read()
        assert layout.read_marker(idx) is None
        gens = [p.name for p in idx.iterdir() if p.name.startswith("gen-")]
        assert gens == [live(big_repo).path.name], (point, gens)
        with Index.open(big_repo) as index:
            st = collect(index)
            assert st.fresh, (point, st.reasons)
            assert index.search(f"EDIT_{n}")
    assert flagged >= 3  # most kill points landed mid-write


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from codeimpact.graph import layout
idx = layout.ensure_index_dir(Path(sys.argv[1]))
with layout.writer_lock(idx):
    gen = layout.next_generation(idx)
    (gen.path / layout.DB_FILENAME).write_bytes(b"half a database")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _killed_writer(repo: Path) -> None:
    proc = subprocess.run(["python", "-c", KILLED_WRITER, str(repo)], capture_output=True)
    assert proc.returncode == -signal.SIGKILL


def test_a_writer_killed_before_the_first_publish(make_repo):
    repo = make_repo(FILES)
    _killed_writer(repo)
    res = run_cli("status", "--check", str(repo))
    assert res.exit_code == 2
    assert "interrupted" in res.stderr and f"graph analyze {repo}" in res.stderr
    assert run_cli("analyze", str(repo)).exit_code == 0
    assert run_cli("status", "--check", str(repo)).exit_code == 0
    idx = layout.index_dir(repo)
    assert layout.read_marker(idx) is None
    assert [p.name for p in idx.iterdir() if p.name.startswith("gen-")] == [live(repo).path.name]


def test_a_writer_killed_mid_write_is_flagged_then_repaired(make_repo, index_repo):
    repo = make_repo(FILES)
    index_repo(repo)
    before = live(repo)
    _killed_writer(repo)
    assert live(repo) == before  # the previous generation is still the live one
    with Index.open(repo) as index:
        assert index.search("f")
        st = collect(index)
    assert not st.fresh
    (record,) = [r for r in st.incomplete if r["code"] == "interrupted"]
    assert f"generation {before.number + 1}" in record["detail"]
    assert f"generation {before.number} is still live" in record["detail"]
    res = run_cli("status", "--check", str(repo))
    assert res.exit_code == 1 and "interrupted" in res.stderr

    assert run_cli("analyze", str(repo)).exit_code == 0
    with Index.open(repo) as index:
        st = collect(index)
    assert st.fresh, st.reasons
