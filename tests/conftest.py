"""Shared fixtures: real repositories in temp dirs, real indexes on disk."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

import pytest

# The annotated fixtures under tests/lang/<language>/ are projects to index, not test modules:
# a fixture named like one (test_x.py) must not be collected.
collect_ignore_glob = ["lang/*/*.py"]

# a test that hangs ends the run with its traceback (tests/watchdog.py)
pytest_plugins = ["watchdog"]

# `graph analyze` (without --index-only) records repositories in the user's registry:
# tests and the processes they start use a registry of their own, never the real home's.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="codeimpact-test-xdg-")
atexit.register(shutil.rmtree, os.environ["XDG_DATA_HOME"], ignore_errors=True)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": os.environ.get("HOME", "/tmp"),
}


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=True,
    )
    return out.stdout


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(textwrap.dedent(content).lstrip("\n"))


def committed_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    """A new git repository at `root` holding `files` in one commit on `main`."""
    root.mkdir(parents=True)
    write_files(root, files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture
def make_repo(tmp_path):
    """make_repo({"pkg/a.py": "..."}, git=True) -> Path of a fresh repository."""
    counter = iter(range(1000))

    def make(files: dict[str, str | bytes], git_init: bool = True, commit: bool = True) -> Path:
        root = tmp_path / f"repo{next(counter)}"
        root.mkdir()
        write_files(root, files)
        if git_init:
            git(root, "init", "-q", "-b", "main")
            if commit:
                git(root, "add", "-A")
                git(root, "commit", "-q", "-m", "initial")
        return root

    return make


def build_indexed_repo(root: Path, files: dict[str, str | bytes], git_init: bool = True) -> Path:
    """A new repository at `root` holding `files` (committed if `git_init`), indexed."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    root.mkdir(parents=True)
    write_files(root, files)
    if git_init:
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
    analyze(root, IndexConfig(), RunOptions(workers=1))
    return root


@pytest.fixture
def index_repo():
    """index_repo(path) -> the AnalyzeReport of a real full analyze."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    def run(path: Path, **config):
        return analyze(path, IndexConfig(**config), RunOptions(workers=1))

    return run


def edited_and_fresh(make_repo, index_repo, files: dict, edit: dict) -> tuple:
    """(repo, report, fresh, full): `files` indexed, `edit` written and re-indexed
    incrementally (asserted), and a fresh repository of the edited files indexed in full:
    what an incremental == full test compares."""
    repo = make_repo(files)
    index_repo(repo)
    write_files(repo, edit)
    report = index_repo(repo)
    assert report.mode == "incremental"
    fresh = make_repo({**files, **edit})
    return repo, report, fresh, index_repo(fresh)


def edges(repo: Path, rel: str) -> set[tuple]:
    """{(src uid, dst uid, confidence, reason)} of one relation (confidence/reason None if absent)."""
    from codeimpact.graph.schema import REL_TABLES
    from codeimpact.query.index import Index

    props = [p for p, _ in REL_TABLES[rel][2]]
    key_a = "a.uid" if REL_TABLES[rel][0] == "Symbol" else "a.path"
    extra = ", r.confidence, r.reason" if "confidence" in props else ""
    with Index.open(repo) as index:
        res = index.cypher(f"MATCH (a)-[r:{rel}]->(b) RETURN {key_a}, b.uid{extra}", limit=0)
    if extra:
        return {(r[0], r[1], round(r[2], 3), r[3]) for r in res.rows}
    return {(r[0], r[1]) for r in res.rows}


def symbols(repo: Path) -> dict[str, tuple]:
    """uid -> (kind, qualified_name, start_line, end_line)."""
    from codeimpact.query.index import Index

    with Index.open(repo) as index:
        res = index.cypher(
            "MATCH (s:Symbol) RETURN s.uid, s.kind, s.qualified_name, s.start_line, s.end_line",
            limit=0,
        )
    return {r[0]: tuple(r[1:]) for r in res.rows}


def fetch_sdist(cache: Path, name: str, version: str) -> Path | None:
    """The unpacked PyPI sdist of name==version, downloaded once into `cache`; None offline."""
    target = cache / f"{name}-{version}"
    if (target / "PKG-INFO").is_file():
        return target
    dl = cache / "download"
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             f"{name}=={version}", "-d", str(dl), "-q"],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    tarball = dl / f"{name}-{version}.tar.gz"
    if not tarball.is_file():
        return None
    with tarfile.open(tarball) as tf:
        for member in tf.getmembers():  # an sdist holds plain files and folders only
            if not (member.isfile() or member.isdir()) or member.name.startswith(("/", "..")):
                raise AssertionError(f"unexpected member in {tarball}: {member.name}")
        if sys.version_info >= (3, 12):
            tf.extractall(cache, filter="data")
        else:
            tf.extractall(cache)  # noqa: S202 - members checked above
    return target if (target / "PKG-INFO").is_file() else None


def sdist_copy(request, tmp_path_factory, name: str, version: str) -> Path:
    """A fresh copy of the PyPI sdist of name==version (downloads kept in .pytest_cache,
    which is gitignored); skips the test when it cannot be downloaded."""
    if getattr(request.config, "cache", None) is not None:
        cache = Path(request.config.cache.mkdir("codeimpact-sdists"))
    else:
        cache = tmp_path_factory.mktemp("sdists")
    src = fetch_sdist(cache, name, version)
    if src is None:
        pytest.skip(f"{name} {version} sdist not downloadable (offline?)")
    repo = tmp_path_factory.mktemp(name) / f"{name}-{version}"
    shutil.copytree(src, repo, ignore=shutil.ignore_patterns(".codeimpact"))
    return repo


@pytest.fixture(scope="session")
def coverage_measured(tmp_path_factory) -> Path:
    """The repository of coverage_repo.py, its suite run under pytest-cov with per-test
    contexts, then indexed (once a session: tests copy it before they change it)."""
    from coverage_repo import make_measured

    return make_measured(tmp_path_factory.mktemp("cov") / "repo")


def pytest_configure(config: pytest.Config) -> None:
    # xdist's loadfile scheduler sorts the files by their number of tests unless told not
    # to, which put the one-test Django sweep last, alone; keep the order made below.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first (a stable sort: the rest keep their order): with one worker per core
    (`pytest -n auto --dist loadfile`), a minutes-long file started last would run alone at
    the end while the other cores idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
