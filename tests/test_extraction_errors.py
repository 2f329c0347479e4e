"""A file the extractor fails on is recorded as skipped ("error: ..."), not the end of the run,
in the process that extracts a small change itself as in a worker (indexer/workers.py): an
extractor's exception (a RecursionError on a deeply nested file, a bug) ended an edit's run."""

from __future__ import annotations

import codeimpact.indexer.workers as workers

MARK = b"# the extractor fails on this file\n"


def test_an_edit_whose_file_the_extractor_fails_on_records_it_skipped(
    make_repo, index_repo, monkeypatch
):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    repo = make_repo({**files, "pkg/a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    extract_source = workers.extract_source

    def failing(language: str, data: bytes) -> bytes:
        if data.startswith(MARK):
            raise RecursionError("maximum recursion depth exceeded")
        return extract_source(language, data)

    monkeypatch.setattr(workers, "extract_source", failing)
    (repo / "pkg/a.py").write_bytes(MARK + b"def f():\n    return 2\n")
    report = index_repo(repo)  # one small file: extracted in this process, not by a worker
    assert report.mode == "incremental"
    skipped = {i["path"]: i for i in report.incomplete}
    assert skipped["pkg/a.py"]["code"] == "error"
    assert skipped["pkg/a.py"]["detail"] == "RecursionError: maximum recursion depth exceeded"
    assert report.symbols == index_repo(repo).symbols  # the next run agrees
