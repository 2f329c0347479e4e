"""What a run that has nothing to do loads.

A no-op `analyze` (and the start of every edit) is judged against a full index in issue
28, and most of its time is start-up: the modules imported before any work. The write's
modules (Kùzu, Arrow), numpy's traversal arrays and importlib.metadata are no part of
it; an import added at the top of a module on the no-op's path brings them back, which
these tests catch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest

from codeimpact.indexer.identity import _dist_version

# the modules a no-op must not import (each was on its path before: 0.04-0.11 s of CPU)
HEAVY = ("kuzu", "pyarrow", "numpy", "importlib.metadata", "codeimpact.indexer.state")

PROBE = """
import json, sys
from codeimpact.cli import main
try:
    main(["analyze", "--index-only", "--json", sys.argv[1]])
except SystemExit as e:
    assert not e.code, e.code
print(json.dumps(sorted(m for m in sys.modules if m in {heavy!r})))
"""


@pytest.mark.parametrize("name", ["tree-sitter", "tree-sitter-language-pack", "kuzu", "numpy"])
def test_dist_version_from_the_dist_info_folder_is_what_metadata_says(name):
    assert _dist_version(name) == metadata.version(name)


def test_an_absent_distribution_is_unknown():
    assert _dist_version("codeimpact-no-such-distribution") == "unknown"


def test_a_noop_analyze_imports_none_of_the_write_path(make_repo, index_repo):
    repo = make_repo(
        {"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "from pkg.a import f\nf()\n"}
    )
    index_repo(repo)
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=set(HEAVY)), str(repo)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    report, loaded = json.loads("\n".join(out[:-1])), json.loads(out[-1])
    assert report["mode"] == "unchanged"
    assert loaded == []
