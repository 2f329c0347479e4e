"""A stale native build is never used: the extension records the digest of the sources it was
built from (native/build_digest.py, compiled in by setup.py) and the runner compares it with
the sources beside the package.

The editable install builds `_syntax` in place; before this, a `native/` edited and not rebuilt
silently gave the old facts. The stale case is made for real: the package is laid out as
installed in a temporary folder with a copy of native/ (its built extensions among them), one
C source of the copy is edited, and the CLI runs from there in a child process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import codeimpact
from codeimpact.native import build_digest
from codeimpact.native.runner import NATIVE_ENV, native_status
from conftest import write_files

ROOT = Path(codeimpact.__file__).resolve().parent.parent  # the checkout (editable install)
NATIVE = ROOT / "native"
WARNING = "codeimpact: warning: the native extension was built from other sources"

pytestmark = pytest.mark.skipif(
    native_status().built is None or build_digest.source_digest(NATIVE) is None,
    reason="needs the built extension and its sources (an editable install)",
)

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "from pkg.b import helper\n\n\ndef run(x):\n    return helper(x)\n",
    "pkg/b.py": "def helper(x):\n    return x\n",
}


def test_the_build_records_the_digest_of_the_sources_it_compiled():
    # fails when this checkout's extension is older than its sources: rebuild
    assert native_status().built == build_digest.source_digest(NATIVE)
    assert native_status().used is True


def test_sources_with_the_build_stamp_are_not_hashed_again(monkeypatch):
    """The extension records the names, sizes and mtimes of its sources too: while they are
    the same, the digest compiled in is the sources' (as Python trusts compiled bytecode),
    without hashing 0.9 MB at every start-up; a file touched since is hashed again."""
    from codeimpact.native import _syntax, runner

    assert build_digest.source_stamp(NATIVE) == _syntax.SOURCE_STAMP

    def no_hashing(native):
        raise AssertionError("hashed the sources again")

    monkeypatch.setattr(runner, "source_digest", no_hashing)
    runner.native_status.cache_clear()
    try:
        st = runner.native_status()
        assert st.used and st.sources == st.built == _syntax.SOURCE_DIGEST
    finally:
        runner.native_status.cache_clear()


def test_a_touched_source_is_hashed_and_the_same_digest_is_the_same_build(tmp_path):
    layout = installed_copy(tmp_path / "site")
    native = layout / "codeimpact" / "native"
    assert build_digest.source_stamp(native) == build_digest.source_stamp(NATIVE)
    src = native / "facts_defs.c"
    os.utime(src, ns=(src.stat().st_atime_ns, src.stat().st_mtime_ns + 10**9))
    assert build_digest.source_stamp(native) != build_digest.source_stamp(NATIVE)
    repo = tmp_path / "repo"
    write_files(repo, FILES)
    built, err = graph(layout, "analyze", str(repo), "--index-only")
    assert built["extraction"]["native"] is True and WARNING not in err
    assert built["extraction"]["native_sources"] == native_status().built


def installed_copy(tmp: Path) -> Path:
    """The package laid out as installed (as .ci/import_layers.py does), native/ copied."""
    pkg = tmp / "codeimpact"
    pkg.mkdir(parents=True)
    for entry in (ROOT / "codeimpact").iterdir():
        if entry.suffix == ".py":
            (pkg / entry.name).symlink_to(entry)
    for name in ("indexer", "graph", "query"):
        (pkg / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copytree(NATIVE, pkg / "native", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp


def graph(layout: Path, *args: str) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if k != NATIVE_ENV}
    env["PYTHONPATH"] = str(layout)
    res = subprocess.run(
        [sys.executable, "-m", "codeimpact", *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=layout,
    )
    assert res.returncode in (0, 1), res.stderr
    return json.loads(res.stdout), res.stderr


def test_an_edited_source_is_a_stale_build_and_the_python_path_runs(tmp_path):
    layout = installed_copy(tmp_path / "site")
    repo = tmp_path / "repo"
    write_files(repo, FILES)

    built, err = graph(layout, "analyze", str(repo), "--index-only")
    assert built["extraction"]["native"] is True and WARNING not in err
    st, _ = graph(layout, "status", str(repo))
    comps = st["identity"]["components"]
    digest = native_status().built
    assert comps["native_build.extension"] == comps["native_build.sources"] == digest

    native = layout / "codeimpact" / "native"
    src = native / "facts_defs.c"
    src.write_bytes(src.read_bytes() + b"\n/* edited, not rebuilt */\n")
    now = build_digest.source_digest(native)
    assert now != digest

    st, err = graph(layout, "status", str(repo))
    # said once, on one line, and the extraction says why it runs the Python path
    assert [line for line in err.splitlines() if "warning" in line] == [
        f"{WARNING} ({digest}, native/ now {now}): rebuild it (pip install -e .); "
        "using the Python path"
    ]
    assert st["extraction"]["native"] is False
    assert st["extraction"]["reason"].startswith("the native extension was built from other")
    assert st["identity"]["components"]["native_build.sources"] == now
    changed = {c["component"] for c in st["identity"]["changed"]}
    assert {"native_extraction", "native_build.sources"} <= changed

    # the next analyze rebuilds by the Python path: the same graph
    rebuilt, err = graph(layout, "analyze", str(repo), "--index-only")
    assert WARNING in err
    assert rebuilt["mode"] == "full" and rebuilt["extraction"]["native"] is False
    assert (rebuilt["symbols"], rebuilt["edges"]) == (built["symbols"], built["edges"])


def test_without_the_sources_nothing_is_compared(tmp_path):
    # an installed package ships no C sources: the digest is absent, the build is trusted
    native = tmp_path / "codeimpact" / "native"
    native.mkdir(parents=True)
    assert build_digest.source_digest(native) is None
    (native / "tree_sitter").mkdir()
    for name in build_digest.SYNTAX_SOURCES + build_digest.SYNTAX_DEPENDS:
        (native / name).parent.mkdir(parents=True, exist_ok=True)
        (native / name).write_text("x")
    digest = build_digest.source_digest(native)
    assert digest is not None
    # chains.c's tables are generated from Python's chain syntax: editing it is a new build
    (native / build_digest.CHAIN_SYNTAX).write_text("y")
    assert build_digest.source_digest(native) not in (None, digest)
    (native / "facts.c").unlink()
    assert build_digest.source_digest(native) is None
