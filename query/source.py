"""Reading repository files for the questions, and never anything outside the repository.

A path that resolves elsewhere (an absolute path, `..`, or a symlink pointing out)
is refused, whatever the index says.
"""

from __future__ import annotations

from pathlib import Path


class OutsideRepo(Exception):
    """The path resolves outside the repository."""


def read_repo_file(repo: Path, rel: str) -> bytes:
    """The bytes of `rel` inside `repo`; OutsideRepo, FileNotFoundError or OSError otherwise."""
    root = repo.resolve()
    path = (root / rel).resolve()
    if not path.is_relative_to(root):
        raise OutsideRepo(rel)
    return path.read_bytes()


def repo_lines(repo: Path, rel: str) -> list[str] | None:
    """The text lines of a repository file (undecodable bytes replaced), None if unreadable."""
    try:
        data = read_repo_file(repo, rel)
    except (OutsideRepo, OSError):
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def guarded_import_lines(repo: Path, rel: str) -> set[int]:
    """Lines of the file's imports that do not run when it is imported (`if TYPE_CHECKING:`,
    `if __name__ == "__main__":`), as its language's extractor tells; none when unreadable."""
    from codeimpact.indexer.lang import language_for

    spec = language_for(rel)
    if spec is None:
        return set()
    try:
        data = read_repo_file(repo, rel)
    except (OutsideRepo, OSError):
        return set()
    facts = spec.extract(data)
    return {int(line) for line, _kind in facts.extra.get("guarded_imports", ())}
