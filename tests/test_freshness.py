"""The cheap freshness check every query runs: the tree's stat signature, then file events.

Each case edits a real repository after indexing and compares the cheap answer (a
new index: a stat pass; an index kept open: inotify events since the last pass)
with the thorough one (`graph status`: every file re-hashed).
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest

from codeimpact.indexer import inotify, treesig
from codeimpact.query.freshness import freshness
from codeimpact.query.index import Index
from codeimpact.query.status import collect
from conftest import git

FILES = {
    ".gitignore": "build/\n*.log\n",
    "pkg/__init__.py": "",
    "pkg/a.py": "def f():\n    return 1\n",
    "pkg/sub/b.py": "from pkg.a import f\n\n\ndef g():\n    return f()\n",
    "docs/readme.txt": "not indexed\n",
    "main.py": "import pkg\n",
}

CHEAP = {"stat", "watch"}


def _has_inotify() -> bool:
    try:
        inotify.Inotify().close()
    except OSError:
        return False
    return True


def agree(index: Index) -> tuple[bool, str]:
    """The cheap answer, checked against the thorough one; (fresh, method)."""
    cheap = freshness(index)
    exact = collect(index, exact=True)
    assert cheap.fresh == exact.fresh, (cheap, exact.reasons)
    if cheap.method in CHEAP:
        assert not (exact.drift.changed or exact.drift.added or exact.drift.deleted)
        assert exact.commit.head == exact.commit.indexed
    return cheap.fresh, cheap.method


def swap_bytes(path: Path) -> None:
    """Change the content, not the size."""
    data = path.read_bytes()
    path.write_bytes(data.replace(b"1", b"2") if b"1" in data else data[::-1])


# Each edit changes what the index describes (stale afterwards).
def modify(repo: Path) -> None:
    swap_bytes(repo / "pkg/a.py")


def add_file(repo: Path) -> None:
    (repo / "pkg/c.py").write_text("def h():\n    return 3\n")


def add_in_new_folder(repo: Path) -> None:
    (repo / "docs/api").mkdir()
    (repo / "docs/api/gen.py").write_text("x = 1\n")


def add_in_folder_without_code(repo: Path) -> None:
    (repo / "docs/conf.py").write_text("project = 'x'\n")


def delete_file(repo: Path) -> None:
    (repo / "pkg/sub/b.py").unlink()


def rename_file(repo: Path) -> None:
    (repo / "pkg/a.py").rename(repo / "pkg/a2.py")


def replace_by_rename(repo: Path) -> None:
    """What editors with a "safe write" do: a new file renamed over the old one."""
    tmp = repo / "pkg/.a.py.tmp"
    tmp.write_text("def f():\n    return 2\n")
    tmp.replace(repo / "pkg/a.py")


def commit(repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")


def unignore(repo: Path) -> None:
    (repo / "build").mkdir(exist_ok=True)
    (repo / "build/gen.py").write_text("y = 2\n")
    time.sleep(0.01)  # a separate write of .gitignore
    (repo / ".gitignore").write_text("*.log\n")


def track_an_ignored_file(repo: Path) -> None:
    (repo / "build").mkdir(exist_ok=True)
    (repo / "build/gen.py").write_text("y = 2\n")
    git(repo, "add", "-f", "build/gen.py")


STALE_EDITS = [
    modify,
    add_file,
    add_in_new_folder,
    add_in_folder_without_code,
    delete_file,
    rename_file,
    replace_by_rename,
    commit,
    track_an_ignored_file,
]


# Each edit leaves what the index describes as it was (fresh, and still decided cheaply).
def ignored_folder_with_code(repo: Path) -> None:
    (repo / "build/lib").mkdir(parents=True)
    (repo / "build/lib/gen.py").write_text("z = 1\n")


def caches_and_editor_files(repo: Path) -> None:
    (repo / "pkg/__pycache__").mkdir()
    (repo / "pkg/__pycache__/a.cpython-311.pyc").write_bytes(b"\0")
    (repo / "pkg/.a.py.swp").write_bytes(b"swap")
    (repo / "pkg/a.py~").write_text("backup\n")
    (repo / "run.log").write_text("log\n")
    (repo / "docs/readme.txt").write_text("still not indexed\n")


def refresh_git_index(repo: Path) -> None:
    """`git status`, `git add` of an unchanged file: git's index is rewritten, the tracked
    set stays."""
    index = repo / ".git/index"
    index.write_bytes(index.read_bytes())


FRESH_EDITS = [ignored_folder_with_code, caches_and_editor_files, refresh_git_index]


@pytest.fixture
def repo(make_repo, index_repo) -> Path:
    root = make_repo(FILES)
    index_repo(root)
    return root


def test_an_untouched_tree_is_decided_by_stat_then_by_watch(repo):
    with Index.open(repo) as index:
        assert agree(index) == (True, "stat")
        assert agree(index) == (True, "stat")  # the second query starts watching...
        if _has_inotify():
            assert index.tree_watch.watching
            assert agree(index) == (True, "watch")  # ...so the third reads no event
        with Index.open(repo) as other:  # a new index: a stat pass of its own
            assert agree(other) == (True, "stat")


@pytest.mark.parametrize("edit", STALE_EDITS, ids=lambda f: f.__name__)
def test_an_edit_makes_it_stale_for_a_new_and_a_watching_index(repo, edit):
    with Index.open(repo) as watching:
        agree(watching)
        agree(watching)  # the watch starts here (where inotify exists)
        edit(repo)
        fresh, method = agree(watching)
        assert fresh is False and method not in CHEAP
        fresh, method = agree(watching)  # and stays stale
        assert fresh is False and method not in CHEAP
    with Index.open(repo) as new:
        fresh, method = agree(new)
        assert fresh is False and method not in CHEAP


@pytest.mark.parametrize("edit", FRESH_EDITS, ids=lambda f: f.__name__)
def test_what_is_not_indexed_keeps_it_fresh_and_cheap(repo, edit):
    with Index.open(repo) as watching:
        agree(watching)
        agree(watching)
        edit(repo)
        fresh, method = agree(watching)
        assert fresh is True and method in CHEAP
        assert agree(watching) == (True, "watch" if _has_inotify() else "stat")
    with Index.open(repo) as new:
        assert agree(new) == (True, "stat")


def test_outside_git_the_same_checks_hold(make_repo, index_repo):
    root = make_repo({k: v for k, v in FILES.items() if k != ".gitignore"}, git_init=False)
    index_repo(root)
    with Index.open(root) as index:
        assert agree(index) == (True, "stat")
        agree(index)
        (root / "pkg/new.py").write_text("n = 1\n")
        fresh, method = agree(index)
        assert fresh is False and method == "rehash"
        (root / "pkg/new.py").unlink()
        assert agree(index) == (True, "stat")  # the folder's listing is the index's again
    (root / "pkg/a.py").write_text("def f():\n    return 22\n")
    with Index.open(root) as index:
        assert agree(index) == (False, "rehash")
    git(root, "init", "-q")  # now inside git: not what was indexed
    with Index.open(root) as index:
        assert agree(index)[1] not in CHEAP


def test_a_folder_removed_and_made_again_is_still_watched(repo):
    if not _has_inotify():
        pytest.skip("no inotify here")
    with Index.open(repo) as index:
        agree(index)
        agree(index)
        saved = {p: (repo / "pkg/sub" / p).read_bytes() for p in os.listdir(repo / "pkg/sub")}
        shutil.rmtree(repo / "pkg/sub")
        (repo / "pkg/sub").mkdir()
        for name, data in saved.items():
            (repo / "pkg/sub" / name).write_bytes(data)
        assert agree(index)[0] is True  # same content again: fresh
        agree(index)
        swap_bytes(repo / "pkg/sub/b.py")  # in the new folder, which the old watch missed
        fresh, method = agree(index)
        assert fresh is False and method not in CHEAP


def test_settled_stamps_are_trusted_and_a_same_size_edit_is_still_seen(repo, monkeypatch):
    """With a short racy window (files older than it), the signature trusts stamps, not
    content; an edit that keeps the size and even restores the mtime changes ctime."""
    from codeimpact.indexer import build, scanning
    from codeimpact.indexer.config import IndexConfig, RunOptions

    monkeypatch.setattr(scanning, "RACY_NS", 50_000_000)
    monkeypatch.setattr(treesig, "RACY_NS", 50_000_000)
    time.sleep(0.2)
    build.analyze(repo, IndexConfig(), RunOptions(workers=1, force=True))
    with Index.open(repo) as index:
        assert agree(index) == (True, "stat")
        sig = index.tree_watch.signature
        assert "pkg/a.py" in sig.stamps and "pkg/a.py" not in sig.contents
        assert sig.dirs["pkg"][0] != treesig.NOT_TRUSTED
    a = repo / "pkg/a.py"
    before = a.stat()
    swap_bytes(a)
    os.utime(a, ns=(before.st_atime_ns, before.st_mtime_ns))
    with Index.open(repo) as index:
        fresh, method = agree(index)
        assert fresh is False and method not in CHEAP


def test_files_written_just_before_indexing_are_compared_by_content(repo):
    with Index.open(repo) as index:
        assert agree(index) == (True, "stat")
        sig = index.tree_watch.signature
        # written within the racy window of the analyze: not trusted by their stamps
        assert "pkg/a.py" in sig.contents and "pkg/a.py" not in sig.stamps
    swap_bytes(repo / "pkg/a.py")
    with Index.open(repo) as index:
        assert agree(index)[0] is False


def test_random_edits_agree_with_the_thorough_check(repo):
    rnd = random.Random(23)
    edits = [
        modify,
        add_file,
        delete_file,
        ignored_folder_with_code,
        caches_and_editor_files,
        refresh_git_index,
    ]
    with Index.open(repo) as watching:
        for _ in range(12):
            edit = rnd.choice(edits)
            try:
                edit(repo)
            except (FileNotFoundError, FileExistsError):
                continue
            agree(watching)
            with Index.open(repo) as new:
                agree(new)


def test_the_freshness_block_says_how_it_was_decided(repo):
    import json

    from click.testing import CliRunner

    from codeimpact.cli import main

    res = CliRunner().invoke(main, ["impact", "f", "--json", "--repo", str(repo)])
    block = json.loads(res.stdout)["freshness"]
    assert block == {"fresh": True, "reasons": [], "method": "stat"}
    res = CliRunner().invoke(main, ["status", "--json", str(repo)])
    assert json.loads(res.stdout)["drift"]["method"] == "rehash"


@pytest.fixture
def short_racy_window(monkeypatch):
    """Stamps older than 50 ms are trusted (the real window is 2 s): folders and files
    settle within a test, so the signature keeps mtimes rather than listings."""
    from codeimpact.indexer import scanning

    monkeypatch.setattr(scanning, "RACY_NS", 50_000_000)
    monkeypatch.setattr(treesig, "RACY_NS", 50_000_000)


def reanalyze(repo: Path, force: bool = False) -> None:
    from codeimpact.indexer import build
    from codeimpact.indexer.config import IndexConfig, RunOptions

    time.sleep(0.2)  # what was just written settles
    build.analyze(repo, IndexConfig(), RunOptions(workers=1, force=force))


def test_the_next_signature_lists_only_the_folders_that_changed(repo, short_racy_window):
    reanalyze(repo, force=True)
    with Index.open(repo) as index:
        first = treesig.TreeSignature.from_text(index.meta["tree_signature"])
    assert all(entry[0] != treesig.NOT_TRUSTED for entry in first.dirs.values())
    (repo / "pkg/sub/c.py").write_text("def c():\n    return 3\n")
    reanalyze(repo)
    with Index.open(repo) as index:
        second = treesig.TreeSignature.from_text(index.meta["tree_signature"])
        assert agree(index) == (True, "stat")
    assert second.dirs["pkg"] == first.dirs["pkg"]  # taken from the last signature
    assert not (repo / ".codeimpact/treesig-last.json").exists()  # read from the generation
    assert second.dirs["pkg/sub"] != first.dirs["pkg/sub"]  # listed again
    (repo / "pkg/d.py").write_text("d = 4\n")  # in a folder the new signature did not list
    with Index.open(repo) as index:
        fresh, method = agree(index)
        assert fresh is False and method not in CHEAP


def test_an_ignore_file_edited_between_analyzes_lists_every_folder_again(repo, short_racy_window):
    (repo / "build").mkdir()
    (repo / "build/gen.py").write_text("g = 1\n")
    reanalyze(repo, force=True)
    with Index.open(repo) as index:
        assert "build" not in treesig.TreeSignature.from_text(index.meta["tree_signature"]).dirs
    (repo / ".gitignore").write_text("*.log\n")  # build/ is no longer ignored
    reanalyze(repo)
    with Index.open(repo) as index:
        sig = treesig.TreeSignature.from_text(index.meta["tree_signature"])
        assert "build" in sig.dirs and agree(index) == (True, "stat")
    (repo / "build/more.py").write_text("m = 2\n")
    with Index.open(repo) as index:
        fresh, method = agree(index)
        assert fresh is False and method not in CHEAP


def test_untracking_an_indexed_ignored_file_is_seen(make_repo, index_repo, short_racy_window):
    """`git rm --cached` of a file .gitignore covers takes it out of what discover lists
    without touching the work tree: only git's index file says so, and the stat pass
    cannot decide then. (The signature read back used to drop git's index file, so
    this stayed "fresh" by stat. The git-status method still says fresh here:
    /work/notes/edits.md, for the freshness owner.)"""
    root = make_repo({**FILES, "build/keep.py": "k = 1\n"}, commit=False)
    git(root, "add", "-A")
    git(root, "add", "-f", "build/keep.py")
    git(root, "commit", "-q", "-m", "initial")
    reanalyze(root, force=True)
    with Index.open(root) as index:
        assert agree(index) == (True, "stat")
        sig = treesig.TreeSignature.from_text(index.meta["tree_signature"])
        assert sig.git_index is not None and sig.tracked is not None
    git(root, "rm", "-q", "--cached", "build/keep.py")
    with Index.open(root) as index:
        assert freshness(index).method not in CHEAP
        assert collect(index, exact=True).fresh is False


def test_the_tracked_digest_is_reused_only_for_the_same_git_index(repo, short_racy_window):
    """An edit's signature takes the tracked set's digest from the last one while git's
    index file is the same file (no `git ls-files`); once git wrote it anew, it is taken
    again, and either way it is the digest of what git tracks now."""
    from codeimpact.indexer.config import IndexConfig

    def last() -> treesig.TreeSignature:
        sig = treesig.load_last(repo / ".codeimpact")
        assert sig is not None and sig.tracked is not None
        return sig

    def tracked_now() -> str | None:
        return treesig.tracked_digest(repo, IndexConfig())

    reanalyze(repo, force=True)
    first = last()
    (repo / "pkg/a.py").write_text("def f():\n    return 3\n")
    reanalyze(repo)
    second = last()
    assert second.git_index_stamp == first.git_index_stamp  # the same index file
    assert second.tracked == first.tracked == tracked_now()
    (repo / "pkg/c.py").write_text("c = 1\n")
    git(repo, "add", "pkg/c.py")
    (repo / "pkg/a.py").write_text("def f():\n    return 4\n")
    reanalyze(repo)
    third = last()
    assert third.git_index_stamp != first.git_index_stamp
    assert third.tracked == tracked_now() != first.tracked
