"""`graph analyze` says what it did in one sentence, in every mode it can choose."""

from __future__ import annotations

import re

from click.testing import CliRunner

from codeimpact.cli import main
from conftest import git


def summary(repo, *extra: str) -> str:
    res = CliRunner().invoke(main, ["analyze", "--index-only", *extra, str(repo)])
    assert res.exit_code == 0, res.output
    (line,) = res.stdout.splitlines()
    return line


def one_sentence(line: str) -> None:
    assert not re.search(r";\s*;|\(\s*;|;\s*\)|,\s*,|\(\s*\)|: ;", line), line  # no empty part
    assert line.count(": ") == 1 and line.endswith("s") and "  " not in line, line


def test_every_mode_reads_as_one_clear_sentence(make_repo):
    files = {f"m{k}.py": f"def h{k}():\n    return {k}\n" for k in range(12)}
    files["a.py"] = "def f():\n    return 1\n"
    files["b.py"] = "from a import f\n\n\ndef g():\n    return f()\n"
    repo = make_repo(files)  # enough files for one edit to be an incremental update
    lines = {}
    lines["first"] = summary(repo)
    lines["unchanged"] = summary(repo)
    lines["forced"] = summary(repo, "--force")
    (repo / "a.py").write_text("def f():\n    return 2\n")
    lines["edited"] = summary(repo)
    git(repo, "commit", "-q", "-am", "f returns 2")  # the content indexed already: HEAD moved
    lines["head moved"] = summary(repo)
    (repo / "b.py").unlink()
    lines["deleted"] = summary(repo)
    for line in lines.values():
        one_sentence(line)
    assert lines["first"].startswith("indexed 14 files from scratch (no usable index): ")
    assert lines["unchanged"].startswith("index is up to date (14 files, ")
    assert lines["forced"].startswith("indexed 14 files from scratch (forced): ")
    assert lines["edited"].startswith("updated the index of 14 files (1 modified; re-parsed 1, ")
    assert lines["head moved"].startswith(
        "updated the index of 14 files (HEAD moved, no file changed; re-resolved "
    )
    assert lines["deleted"].startswith("updated the index of 13 files (1 deleted; re-parsed 0, ")
