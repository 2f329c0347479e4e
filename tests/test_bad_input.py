"""Bad input: files that cannot be indexed are recorded, the rest is indexed; bad paths fail cleanly.

The command-line cases run `graph` in a subprocess: one line on stderr, a
documented exit code (2: bad input), never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from codeimpact.query.index import Index
from conftest import symbols

GOOD = "def ok():\n    return helper()\n\ndef helper():\n    return 1\n"


def graph(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codeimpact", *args], capture_output=True, text=True, timeout=300
    )


def file_status(repo) -> dict[str, str]:
    with Index.open(repo) as index:
        rows = index.cypher("MATCH (f:File) RETURN f.path, f.status").rows
    return dict(rows)


def test_bad_files_are_recorded_and_the_rest_indexed(make_repo, index_repo):
    repo = make_repo(
        {
            "good.py": GOOD,
            "binary.py": b"\x00\x01\x02 compiled junk\x00",
            "latin1.py": "name = 'caf\u00e9'\n".encode("latin-1"),
            "big.py": "X = 1\n" * 400,  # 2400 bytes, over the limit below
            "broken.py": "def fine():\n    pass\n\ndef broken(:\n    pass\n",
            "empty.py": "",
        }
    )
    report = index_repo(repo, max_file_size=2000)
    assert file_status(repo) == {
        "good.py": "ok",
        "binary.py": "skipped:binary",
        "latin1.py": "skipped:decode_error",
        "big.py": "skipped:file_too_large",
        "broken.py": "partial",
        "empty.py": "ok",
    }
    assert report.files_by_status == {
        "ok": 2,
        "partial": 1,
        "skipped:binary": 1,
        "skipped:decode_error": 1,
        "skipped:file_too_large": 1,
    }
    assert sorted((r["code"], r["path"]) for r in report.incomplete) == [
        ("binary", "binary.py"),
        ("decode_error", "latin1.py"),
        ("file_too_large", "big.py"),
        ("parse_error", "broken.py"),
    ]
    syms = symbols(repo)
    # the partial file keeps what parsed; skipped files contribute no symbols
    assert {u for u in syms if u.startswith("broken.py")} >= {"broken.py::", "broken.py::fine"}
    assert not any(u.startswith(("binary.py", "latin1.py", "big.py")) for u in syms)
    assert "good.py::helper" in syms and report.edges["CALLS"] == 1


def test_default_size_limit_is_sixteen_mebibytes(make_repo, index_repo):
    """Real C projects vendor amalgamations (sqlite3.c: 9.5 MB): they are indexed."""
    limit = 16 * 1024 * 1024
    comment = "# " + "x" * 97 + "\n"  # 100 bytes a line
    at_limit = comment * (limit // 100) + "#" * (limit % 100 - 1) + "\n"
    assert len(at_limit) == limit
    repo = make_repo({"at_limit.py": at_limit, "over.py": at_limit + "\n"})
    index_repo(repo)
    assert file_status(repo) == {"at_limit.py": "ok", "over.py": "skipped:file_too_large"}


def test_max_file_size_on_the_command_line(make_repo):
    repo = make_repo({"small.py": GOOD, "large.py": "Y = 2\n" * 100})
    out = graph("analyze", "--index-only", "--json", "--max-file-size", "300", str(repo))
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["files_by_status"] == {"ok": 1, "skipped:file_too_large": 1}
    assert report["incomplete"] == [
        {"code": "file_too_large", "path": "large.py", "detail": "600 bytes > 300"}
    ]


def _assert_one_line_error(out: subprocess.CompletedProcess, code: int, text: str) -> None:
    assert out.returncode == code, (out.returncode, out.stderr)
    assert out.stderr.count("\n") == 1 and text in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_path_that_is_not_a_directory(make_repo):
    repo = make_repo({"a.py": GOOD})
    _assert_one_line_error(graph("analyze", str(repo / "a.py")), 2, "not a directory")
    _assert_one_line_error(graph("analyze", str(repo / "missing")), 2, "no such directory")


def test_index_folder_that_cannot_be_written(make_repo):
    # root writes through permission bits, so the failure is made with a link the index
    # folder's .gitignore cannot be written through
    repo = make_repo({"a.py": GOOD}, git_init=False)
    (repo / ".codeimpact").mkdir()
    (repo / ".codeimpact" / ".gitignore").symlink_to("/nonexistent-codeimpact-test/x")
    _assert_one_line_error(graph("analyze", str(repo)), 2, "cannot write the index folder")


def test_index_path_taken_by_a_file(make_repo):
    repo = make_repo({"a.py": GOOD}, git_init=False)
    (repo / ".codeimpact").write_text("a file where the index folder should be\n")
    _assert_one_line_error(graph("analyze", str(repo)), 2, "is not an index folder")
    assert (repo / ".codeimpact").is_file()  # never removed behind the user's back


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_read_only_repository(make_repo):
    repo = make_repo({"a.py": GOOD}, git_init=False)
    repo.chmod(0o555)
    try:
        _assert_one_line_error(graph("analyze", str(repo)), 2, "cannot write the index folder")
    finally:
        repo.chmod(0o755)


DEEP = 20_000  # nesting that overflowed the C stack of the item facts (MAX_DEPTH cuts it)
DEEP_SOURCES = {
    "lists.py": "x = " + "[" * DEEP + "g(1)" + "]" * DEEP + "\n",
    "dicts.py": "x = " + '{"k": ' * DEEP + "g" + "}" * DEEP + "\n",
    "tuples.py": "x = " + "(1, " * DEEP + "1" + ")" * DEEP + "\n",
    "patterns.py": "(" * DEEP + "a" + ",)" * DEEP + " = " + "(" * DEEP + "g" + ",)" * DEEP + "\n",
}  # fmt: skip


def test_deeply_nested_literals_are_indexed_not_a_crash(make_repo):
    """20,000 nested brackets: the full build and an edit (extracted in the analyzing
    process itself) both index the files; the process does not die."""
    repo = make_repo({"good.py": GOOD, **DEEP_SOURCES})
    for step in ("full", "edit"):
        if step == "edit":
            (repo / "lists.py").write_text(DEEP_SOURCES["lists.py"] + "y = [[1]]\n")
        res = graph("analyze", "--index-only", "--json", str(repo))
        assert res.returncode == 0, (step, res.returncode, res.stderr[-2000:])
        report = json.loads(res.stdout)
        assert report["mode"] == ("full" if step == "full" else "incremental")
        assert report["files"] == 5
    status = file_status(repo)
    assert set(status) == {"good.py", *DEEP_SOURCES}
    assert all(s in ("ok", "partial") for s in status.values()), status
