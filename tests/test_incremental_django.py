"""incremental == full on real code: edits of kinds the change plan treats differently, applied
one after another to Django 5.2.8, each followed by a comparison of what users query from the
maintained index (every table through Cypher, the CSR by uid, the unresolved sites, and the
impact and context answers of the edited symbols, or a deleted module's users, and their
neighbours) with a fresh full build of the same tree (one build per distinct tree: the revert
is compared with the build of the tree it returns to).

The sdist is fetched the way CI can (`pip download`); the test skips when PyPI is
unreachable. Five full builds of Django: a few minutes.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from test_incremental import run

from codeimpact.query.index import Index
from conftest import sdist_copy
from index_dump import dump, first_difference

pytestmark = pytest.mark.slow  # Django / every fixture project: minutes of CPU


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path} no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1))


# (kind, edit, uid prefixes whose impact/context answers are compared after it: the symbols
# the edit touches or, for a delete, the module's former users)
EDITS = [
    # a method body: its users and the functions returning its value are re-resolved
    ("body", lambda r: _edit(r / "django/db/models/base.py", "        return collector.delete()",
                             "        return collector.delete() or None"),
     ("django/db/models/base.py::Model.delete",)),
    # a new subclass of Model with an override: dispatch on Model receivers changes
    ("subclass", lambda r: (r / "django/db/models/base.py").write_text(
        (r / "django/db/models/base.py").read_text()
        + "\n\nclass Extra(Model):\n    def save(self, *args):\n        return super().save(*args)\n"),
     ("django/db/models/base.py::Extra", "django/db/models/base.py::Model.save")),
    ("rename", lambda r: (r / "django/utils/termcolors.py").rename(
        r / "django/utils/termcolors2.py"), ("django/utils/termcolors",)),
    ("delete", lambda r: (r / "django/utils/termcolors2.py").unlink(),
     ("django/core/management/color.py",)),
    # append a function, then put the file back as it was: its facts come from the cache,
    # and the database must keep all its rows (the issue: CALLS was left with 0)
    ("append", lambda r: _append(r / "django/utils/crypto.py",
                                 "\n\ndef appended():\n    return constant_time_compare('a', 'b')\n"),
     ("django/utils/crypto.py",)),
    ("revert", lambda r: (r / "django/utils/crypto.py").write_text(_ORIGINAL.pop("crypto")),
     ("django/utils/crypto.py",)),
]  # fmt: skip
_ORIGINAL: dict[str, str] = {}


def _append(path: Path, text: str) -> None:
    _ORIGINAL["crypto"] = path.read_text()
    path.write_text(_ORIGINAL["crypto"] + text)


SAMPLE = 30  # symbols whose answers are compared after each edit


def sample_uids(index: Index, look: tuple[str, ...], edges: dict) -> list[str]:
    """Symbols under `look` and their neighbours (the repository's before external ones),
    the first SAMPLE // 2 of each by uid."""
    mine = {u for u in index.graph.symbols.uid if u.startswith(look)}
    near = {b for a, b in edges if a in mine} | {a for a, b in edges if b in mine}
    near = sorted(near - mine, key=lambda u: (u.startswith("<external>"), u))
    assert mine or near, f"nothing to compare under {look}"
    return sorted(mine)[: SAMPLE // 2] + near[: SAMPLE // 2]


def tree_digest(root: Path) -> str:
    """The digest of every file's path and bytes (the index folder left out)."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and rel.parts[0] != ".codeimpact":
            h.update(f"{rel}\0{p.stat().st_size}\0".encode() + p.read_bytes())
    return h.hexdigest()


def present(index: Index, uids: list[str]) -> list[str]:
    have = set(index.graph.symbols.uid)
    return [u for u in uids if u in have]


@pytest.fixture(scope="module")
def django_repo(request, tmp_path_factory) -> Path:
    return sdist_copy(request, tmp_path_factory, "django", "5.2.8")


def test_edits_of_django_keep_incremental_equal_to_full(django_repo, tmp_path):
    run(django_repo)
    fulls: dict[str, Path] = {}  # tree digest -> a fresh full build of that tree
    for kind, edit, look in EDITS:
        edit(django_repo)
        report = run(django_repo)
        assert report.mode == "incremental", (kind, report.reason)
        maintained = dump(django_repo, False, pick=lambda i, g, look=look: sample_uids(i, look, g))
        uids = list(maintained["answers"])
        # a full build of a tree depends on nothing but the tree: a revert to a tree built
        # before is compared with that build
        fresh = fulls.setdefault(tree_digest(django_repo), tmp_path / f"fresh-{kind}")
        if not fresh.exists():
            shutil.copytree(django_repo, fresh, ignore=shutil.ignore_patterns(".codeimpact"))
            run(fresh, force=True)
        # (a symbol missing from the full build shows as a difference, not as an error)
        full = dump(fresh, False, pick=lambda i, g, uids=uids: present(i, uids))
        assert first_difference(maintained, full) is None, (
            kind,
            first_difference(maintained, full),
        )
    for fresh in fulls.values():
        shutil.rmtree(fresh)
