"""incremental == full on real code: edits of kinds the change plan treats differently, applied
one after another to Django 5.2.8, each followed by a comparison of what users query from the
maintained index (every table through Cypher, the CSR by uid, the unresolved sites, and the
impact and context answers of the edited files' symbols and their neighbours) with a fresh
full build of the same tree.

The sdist is fetched the way CI can (`pip download`); the test skips when PyPI is
unreachable. Several full builds of Django: about two minutes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_incremental import dump, run

from codeimpact.query.index import Index
from conftest import sdist_copy
from index_dump import answers, first_difference, uid_graph

pytestmark = pytest.mark.slow  # Django / every fixture project: minutes of CPU


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path} no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1))


EDITS = [
    # a method body: its users and the functions returning its value are re-resolved
    ("body", lambda r: _edit(r / "django/db/models/base.py", "        return collector.delete()",
                             "        return collector.delete() or None")),
    # a new subclass of Model with an override: dispatch on Model receivers changes
    ("subclass", lambda r: (r / "django/db/models/base.py").write_text(
        (r / "django/db/models/base.py").read_text()
        + "\n\nclass Extra(Model):\n    def save(self, *args):\n        return super().save(*args)\n")),
    ("rename", lambda r: (r / "django/utils/termcolors.py").rename(
        r / "django/utils/termcolors2.py")),
    ("delete", lambda r: (r / "django/utils/termcolors2.py").unlink()),
    # append a function, then put the file back as it was: its facts come from the cache,
    # and the database must keep all its rows (the issue: CALLS was left with 0)
    ("append", lambda r: _append(r / "django/utils/crypto.py",
                                 "\n\ndef appended():\n    return constant_time_compare('a', 'b')\n")),
    ("revert", lambda r: (r / "django/utils/crypto.py").write_text(_ORIGINAL.pop("crypto"))),
]  # fmt: skip
_ORIGINAL: dict[str, str] = {}


def _append(path: Path, text: str) -> None:
    _ORIGINAL["crypto"] = path.read_text()
    path.write_text(_ORIGINAL["crypto"] + text)


EDITED = ("django/db/models/base.py", "django/utils/termcolors", "django/utils/crypto.py")
SAMPLE = 30  # symbols whose answers are compared after each edit


def sample_uids(index: Index, files: tuple[str, ...], edges: dict) -> list[str]:
    """Symbols of the edited files and their neighbours, the first SAMPLE by uid."""
    mine = {u for u in index.graph.symbols.uid if u.startswith(files)}
    near = {b for a, b in edges if a in mine} | {a for a, b in edges if b in mine}
    return sorted(mine)[: SAMPLE // 2] + sorted(near - mine)[: SAMPLE // 2]


@pytest.fixture(scope="module")
def django_repo(request, tmp_path_factory) -> Path:
    return sdist_copy(request, tmp_path_factory, "django", "5.2.8")


def test_edits_of_django_keep_incremental_equal_to_full(django_repo, tmp_path):
    run(django_repo)
    for kind, edit in EDITS:
        edit(django_repo)
        report = run(django_repo)
        assert report.mode == "incremental", (kind, report.reason)
        fresh = tmp_path / f"fresh-{kind}"
        shutil.copytree(django_repo, fresh, ignore=shutil.ignore_patterns(".codeimpact"))
        run(fresh, force=True)
        maintained, full = dump(django_repo, False), dump(fresh, False)
        assert first_difference(maintained, full) is None, (
            kind,
            first_difference(maintained, full),
        )
        # impact and context of the symbols of the edited files and of their neighbours
        with Index.open(django_repo) as a, Index.open(fresh) as b:
            edges = uid_graph(a)
            uids = sample_uids(a, EDITED, edges)
            assert answers(a, uids, edges) == answers(b, uids), kind
        shutil.rmtree(fresh)
