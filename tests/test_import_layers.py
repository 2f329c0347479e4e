"""The import floors hold: façade -> query -> indexer -> graph -> native, the command line
and the MCP server do not import each other, and the shared tool table imports neither
(pyproject.toml [tool.importlinter], run by .ci/import_layers.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("lint-imports") is None, reason="import-linter not installed")
def test_import_contracts_are_kept():
    res = subprocess.run([sys.executable, str(ROOT / ".ci" / "import_layers.py")],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "BROKEN" not in res.stdout and res.stdout.count("KEPT") >= 4
