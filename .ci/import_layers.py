"""Check the import contracts of pyproject.toml ([tool.importlinter]) with lint-imports.

The distribution maps its top-level folders into one package (query/ is codeimpact.query,
...: setuptools package-dir), which an editable install resolves with an import hook that
import-linter's scanner does not follow. So the package is laid out as it is installed, as
links in a temporary folder, and lint-imports reads it from there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    # package -> folder, from `package-dir = { "codeimpact.query" = "query", ... }` (one line;
    # read by hand: tomllib is Python 3.11+)
    text = (ROOT / "pyproject.toml").read_text()
    line = re.search(r"^package-dir\s*=\s*\{(.*)\}\s*$", text, re.M).group(1)
    mapping = dict(re.findall(r'"([\w.]+)"\s*=\s*"([\w./]+)"', line))
    with tempfile.TemporaryDirectory(prefix="import-layers-") as tmp:
        for package, folder in sorted(mapping.items()):
            target = Path(tmp, *package.split("."))
            if "." not in package:  # the root: its own files, with the sub-packages beside
                target.mkdir()
                for entry in (ROOT / folder).iterdir():
                    if entry.suffix == ".py":
                        (target / entry.name).symlink_to(entry)
            else:  # the root is a real folder of the temporary tree, never the checkout
                target.symlink_to(ROOT / folder, target_is_directory=True)
        env = {**os.environ, "PYTHONPATH": tmp}
        cmd = ["lint-imports", str(ROOT / "pyproject.toml")]
        return subprocess.run(cmd, cwd=tmp, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
