"""incremental == full on real code: edits of kinds the change plan treats differently, applied
one after another to Django 5.2.8, each followed by a comparison of the whole maintained
graph (Kùzu rows and CSR) with a fresh full build of the same tree.

The sdist is fetched the way CI can (`pip download`); the test skips when PyPI is
unreachable. Several full builds of Django: about two minutes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_incremental import dump, run

from conftest import sdist_copy

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
]  # fmt: skip


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
        maintained, full = dump(django_repo), dump(fresh)
        for key in maintained:
            assert maintained[key] == full[key], f"{kind}: incremental != full in {key}"
        shutil.rmtree(fresh)
