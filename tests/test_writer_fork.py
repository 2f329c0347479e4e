"""The prestarted database writer (graph/full_write.py `prestart`) is forked once the
builder has freed every source file's bytes (indexer/full_run.py): pages the builder held
at the fork and rewrote later stay the writer's. Forked during the extraction, it kept
~19 MB of Django's sources (freed by the builder, their pages reused) through the
resolution, the build's peak of memory."""

from __future__ import annotations

import gc

import pytest

from codeimpact.graph import full_write
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.fork_guard import FORKED
from codeimpact.indexer.run import PARALLEL_RESOLVE_MIN, Run
from conftest import write_files


@pytest.mark.parametrize("files", [3, PARALLEL_RESOLVE_MIN + 10], ids=["in-process", "host"])
def test_the_writer_is_forked_once_the_sources_are_freed(tmp_path, monkeypatch, files):
    write_files(tmp_path, {
        f"pkg/m{i}.py": f"from pkg.m0 import f0\n\n\ndef f{i}():\n    return f0() + {i}\n"
        for i in range(files)
    })  # fmt: skip
    held = []  # at each fork: the source bytes each live run holds
    real = full_write.prestart

    def spy(after_fork):
        held.append([len(o.data) for o in gc.get_objects() if isinstance(o, Run)])
        return real(after_fork)

    monkeypatch.setattr(full_write, "prestart", spy)
    options = RunOptions(workers=2, memory_budget_mb=1 << 20)  # memory never decides here
    report = analyze(tmp_path, IndexConfig(), options)
    assert report.forks["database writer"] == FORKED
    if files > PARALLEL_RESOLVE_MIN:
        assert report.forks["resolvers"] == FORKED
    assert held == [[0]], f"the writer was forked while sources were held: {held}"
    assert report.symbols >= files
