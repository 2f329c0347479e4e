"""discover's walk outside git (a scandir walk) lists what an os.walk over the same rules
lists: .gitignore files at several depths (negation, folder-only, anchored), links to
folders (never followed nor listed) and to files, a broken link, a `.gitignore` that is a
folder, the always-skipped folders, a file named like one of them. A full build's tree
signature takes the folders as that walk listed them: the same signature a second walk
takes, and a file added after the walk is seen by the cheap freshness check."""

from __future__ import annotations

import os
import time
from pathlib import Path

from codeimpact.indexer import pipeline, treesig
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.discover import ALWAYS_SKIPPED, IgnoreRules, _walk_files, discover
from codeimpact.query.freshness import freshness
from codeimpact.query.index import Index
from codeimpact.query.status import collect


def _os_walk_files(repo: Path, extra: tuple[str, ...]) -> list[str]:
    """The walk as it was written before (os.walk, relpath, isfile): the reference."""
    rules = IgnoreRules()
    rules.add("", list(extra))
    out: list[str] = []
    root = str(repo)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        gi = os.path.join(dirpath, ".gitignore")
        if os.path.isfile(gi):
            with open(gi, encoding="utf-8", errors="replace") as fh:
                rules.add(rel_dir, fh.readlines())
        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d in ALWAYS_SKIPPED or rules.ignored(rel, True):
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in filenames:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not rules.ignored(rel, False):
                out.append(rel)
    return sorted(out)


def _tree(root: Path, outside: Path) -> None:
    files = [
        "a.py", "b.log", "keep.log", "build/x.py", "src/m.py", "src/gen/g.py",
        "src/gen/keep.py", "src/deep/er/d.py", "src/deep/er/skip.tmp", "docs/only/readme.md",
        "node_modules/n.js", "pkg/__pycache__/c.py", "pkg/.git", "pkg/p.py", "dironly/f.py",
        "nest/dironly", "nest/sub/dironly/z.py", "anchored/top.py", "x/anchored/top.py",
        "weird/.gitignore/inner.py", "weird/w.py",
    ]  # fmt: skip
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x = 1\n")
    (root / ".gitignore").write_text("*.log\n!keep.log\n/build\ndironly/\n/anchored\n")
    (root / "src" / ".gitignore").write_text("gen/*\n!gen/keep.py\n*.tmp\n")
    (root / "src" / "deep" / ".gitignore").write_text("# a comment\n\n!skip.tmp\n")
    (outside / "o.py").parent.mkdir(parents=True, exist_ok=True)
    (outside / "o.py").write_text("y = 2\n")
    (root / "link_in").symlink_to(root / "src")  # a folder inside: not followed
    (root / "link_out").symlink_to(outside)  # a folder outside: not followed
    (root / "flink.py").symlink_to(root / "a.py")  # a file: listed
    (root / "broken.py").symlink_to(root / "nowhere.py")  # broken: listed, as os.walk does
    (root / "src" / "gi_link").mkdir()
    (root / "src" / "gi_link" / ".gitignore").symlink_to(root / "src" / ".gitignore")
    (root / "src" / "gi_link" / "l.tmp").write_text("")
    (root / "src" / "gi_link" / "l.py").write_text("")


def test_the_scandir_walk_lists_what_os_walk_lists(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    _tree(root, outside)
    for extra in ((), ("*.md", "!docs/only/readme.md"), ("weird", "x/")):
        got = _walk_files(root, extra)
        assert got == _os_walk_files(root, extra)
    got = _walk_files(root, ())
    assert "keep.log" in got and "b.log" not in got
    assert "src/gen/keep.py" in got and "src/gen/g.py" not in got
    assert "src/deep/er/skip.tmp" in got and "src/gi_link/l.tmp" not in got
    assert "flink.py" in got and "broken.py" in got and "pkg/.git" in got
    assert not any(p.startswith(("link_in/", "link_out/", "node_modules/", "build/")) for p in got)
    assert "weird/w.py" in got and "weird/.gitignore/inner.py" in got


def _aged(root: Path) -> None:
    """Every file and folder's times two minutes back: settled, as a tree at rest is."""
    old = time.time() - 120
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames + dirnames:
            os.utime(os.path.join(dirpath, name), (old, old), follow_symlinks=False)
    os.utime(root, (old, old))


def _sig_fields(sig) -> dict:
    return {k: getattr(sig, k) for k in sig.__slots__ if k != "taken_at_ns"}


def test_the_signature_from_the_walks_listing_is_the_one_a_second_walk_takes(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    _tree(root, outside)
    _aged(root)
    config = IndexConfig()
    listed: dict = {}
    scanned_at = time.time_ns()
    files = discover(root, config, {}, None, listed)
    assert "" in listed and "src/deep/er" in listed and "build" not in listed
    indexed = {f.path: f"h{len(f.path)}" for f in files}
    settled = {f.path: (f.size, f.mtime_ns) for f in files}
    args = (root, config, indexed, settled, scanned_at, False)
    walked = treesig.take(*args)
    taken = treesig.take(*args, listed=listed)
    assert walked is not None and len(walked.dirs) == len(listed)
    assert _sig_fields(taken) == _sig_fields(walked)


def test_a_file_added_after_the_walk_listed_its_folder_is_not_fresh(tmp_path, monkeypatch):
    """The run's signature holds the folder as discover listed it (the index's files): a
    file written after that, before the signature is taken, moved the folder's mtime, and
    the cheap check lists the folder again and sees the file the index lacks."""
    root = tmp_path / "repo"
    for rel in ("pkg/__init__.py", "pkg/a.py", "main.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    _aged(root)

    def then_add(real):
        def step(*args, **kwargs):
            out = real(*args, **kwargs)  # discover listed the folders before this
            (root / "pkg" / "late.py").write_text("y = 2\n")
            return out

        return step

    # a new index takes discover's records for its workers to read (no scan): either way
    # the file comes after the listing
    monkeypatch.setattr(pipeline, "scan", then_add(pipeline.scan))
    monkeypatch.setattr(pipeline, "unread_records", then_add(pipeline.unread_records))
    report = analyze(root, IndexConfig(), RunOptions(workers=1))
    assert report.files == 3
    monkeypatch.undo()
    with Index.open(root) as index:
        cheap = freshness(index)
        assert cheap.fresh is False and cheap.fresh == collect(index, exact=True).fresh
