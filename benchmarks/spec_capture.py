"""A pytest plugin that keeps every small project the test suite indexes.

    CODEIMPACT_CAPTURE_DIR=/tmp/captured PYTHONPATH=benchmarks pytest -p spec_capture tests/...

Each successful `analyze` with the default configuration (the Python entry point, so the
CLI run in-process too) saves the repository's files, once per distinct content, as
`<digest>.json` = {"name": "<test id>#<n-th analyze of the test>", "files": {path: text or
{"b64": ...}}}. `graph_dump.py fixtures-record` then indexes each in a fresh folder and records
its dump: the fixtures part of the graph specification (benchmarks/spec/README.md).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
from collections import Counter
from pathlib import Path

MAX_FILES = 400
MAX_BYTES = 2 * 1024 * 1024
SKIP_DIRS = {".git", ".codeimpact"}

_calls: Counter = Counter()


def _tree(repo: Path) -> dict | None:
    """path -> content of every regular file (None: a tree not worth keeping or not readable)."""
    files: dict = {}
    total = 0
    for top, dirs, names in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for d in dirs:
            if os.path.islink(os.path.join(top, d)):
                return None
        for name in sorted(names):
            full = os.path.join(top, name)
            if os.path.islink(full) or not os.path.isfile(full):
                return None
            try:
                with open(full, "rb") as fh:
                    data = fh.read()
            except OSError:
                return None
            total += len(data)
            if len(files) >= MAX_FILES or total > MAX_BYTES:
                return None
            rel = os.path.relpath(full, repo).replace(os.sep, "/")
            try:
                files[rel] = data.decode("utf-8")
            except UnicodeDecodeError:
                files[rel] = {"b64": base64.b64encode(data).decode()}
    return files


def _save(out: Path, repo: Path) -> None:
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
    _calls[test] += 1
    files = _tree(repo)
    if not files:
        return
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:20]
    target = out / f"{digest}.json"
    if target.exists():
        return
    fx = {"name": f"{test}#{_calls[test]}", "files": files}
    target.write_text(json.dumps(fx, sort_keys=True, ensure_ascii=False))


def pytest_configure(config) -> None:
    out = os.environ.get("CODEIMPACT_CAPTURE_DIR")
    if not out:
        return
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    from codeimpact.indexer import build, pipeline
    from codeimpact.indexer.config import IndexConfig

    original = pipeline.analyze

    def analyze(path, config=None, options=None, progress=None):
        report = original(path, config, options, progress)
        if config is None or config == IndexConfig():
            with contextlib.suppress(OSError):
                _save(out_dir, Path(path).resolve())
        return report

    # the CLI calls pipeline.analyze; tests import it from build too
    build.analyze = pipeline.analyze = analyze
