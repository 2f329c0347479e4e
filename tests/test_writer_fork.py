"""The prestarted database writer (graph/full_write.py `prestart`) is forked once the
builder has freed every source file's bytes (indexer/full_run.py): pages the builder held
at the fork and rewrote later stay the writer's. Forked during the extraction, it kept
~19 MB of Django's sources (freed by the builder, their pages reused) through the
resolution, the build's peak of memory."""

from __future__ import annotations

import gc
import os
import threading

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


def test_a_finish_that_fails_after_the_writer_began_stops_it_before_the_folder_goes(
    tmp_path, monkeypatch
):
    # the writer was told the generation (it makes its database there) before the graph's
    # finish: a finish that fails stops it, then removes the folder, and the run raises
    write_files(tmp_path, {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(3)})
    from codeimpact.graph import layout
    from codeimpact.indexer import full_graph, full_run

    writers, alive_at_discard = [], []
    real_prestart, real_discard = full_write.prestart, layout.discard

    def prestart(after_fork):
        writers.append(real_prestart(after_fork))
        return writers[-1]

    def discard(gen):
        alive_at_discard.append([w.pid for w in writers if w.pid])
        real_discard(gen)

    def fail(self, symbols_made=None):
        raise RuntimeError("finish failed")

    monkeypatch.setattr(full_write, "prestart", prestart)
    monkeypatch.setattr(full_run.layout, "discard", discard)
    monkeypatch.setattr(full_graph.FullGraph, "finish", fail)
    with pytest.raises(RuntimeError, match="finish failed"):
        analyze(tmp_path, IndexConfig(), RunOptions(workers=2, memory_budget_mb=1 << 20))
    assert len(writers) == 1 and alive_at_discard == [[]], alive_at_discard
    assert list(layout.index_dir(tmp_path).glob("gen-*")) == []


@pytest.mark.parametrize("workers", [2, 1], ids=["two processes", "one process"])
def test_the_state_is_freed_before_the_generation_is_published(tmp_path, monkeypatch, workers):
    # the graph state and node arrays serve the sidecars alone: freed by the tail's thread
    # beside Kùzu's write (once it wrote the sidecars), not when the build returns, on its
    # serial end after the publish
    write_files(tmp_path, {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(3)})
    from codeimpact.graph import layout
    from codeimpact.indexer import full_run
    from codeimpact.indexer.state import GraphState

    alive_at_publish = []
    real_publish = layout.publish

    def publish(*args, **kwargs):
        alive_at_publish.append(sum(isinstance(o, GraphState) for o in gc.get_objects()))
        return real_publish(*args, **kwargs)

    monkeypatch.setattr(full_run.layout, "publish", publish)
    options = RunOptions(workers=workers, memory_budget_mb=1 << 20)
    report = analyze(tmp_path, IndexConfig(), options)
    assert report.symbols >= 3
    assert alive_at_publish == [0], alive_at_publish


def test_the_sidecars_are_written_by_the_builders_tail_thread(tmp_path, monkeypatch):
    # by the tail's thread, while the database writer COPYs the tables and commits on one
    # core: a child forked for them at the build's end took ~12K page faults on Django, the
    # builder ~14K more
    repo, seen = tmp_path / "repo", tmp_path / "sidecars-written-by"
    write_files(repo, {
        f"pkg/m{i}.py": f"from pkg.m0 import f0\n\n\ndef f{i}():\n    return f0() + {i}\n"
        for i in range(PARALLEL_RESOLVE_MIN + 10)
    })  # fmt: skip
    from codeimpact.indexer import full_run

    real = full_run._save_sidecars

    def spy(*args):
        seen.write_text(f"{os.getpid()} {threading.current_thread().name}")
        return real(*args)

    monkeypatch.setattr(full_run, "_save_sidecars", spy)
    options = RunOptions(workers=2, memory_budget_mb=1 << 20)  # memory never decides here
    report = analyze(repo, IndexConfig(), options)
    assert report.forks["database writer"] == FORKED and report.forks["resolvers"] == FORKED
    pid, thread = seen.read_text().split()
    assert (int(pid), thread) == (os.getpid(), "codeimpact-tail")
    assert "sidecar writer" not in report.forks


@pytest.mark.parametrize("prestart", [True, False], ids=["prestarted", "new interpreter"])
def test_the_sidecars_begin_with_the_relations_feed_of_a_new_interpreter(tmp_path, monkeypatch,
                                                                         prestart):  # fmt: skip
    # a new interpreter's relations feed waits on its COPYs (its read-ahead full) until the
    # last table: sidecars begun once it was sent came after the writer's answer (the Linux
    # kernel's, ~3.8 s serial); begun before the node tables were sent, they slowed the
    # feed the writer waits for. A prestarted writer's relations feed ends well before its
    # answer: there they wait for the last table (beside its making they raised the
    # builder's high-water mark)
    write_files(tmp_path, {
        f"pkg/m{i}.py": f"from pkg.m0 import f0\n\n\ndef f{i}():\n    return f0() + {i}\n"
        for i in range(6)
    })  # fmt: skip
    from codeimpact.indexer import full_run

    if not prestart:
        monkeypatch.setattr(full_run, "PRESTART_MAX_BYTES", 0)
    began, seen = threading.Event(), {}
    real_sidecars, real_send = full_run._save_sidecars, full_write._send_table

    def sidecars(*args):
        began.set()
        return real_sidecars(*args)

    def send(to_child, name, table, folder=None):
        kind = name if name in ("File", "Symbol") else "relation"
        if kind not in seen:
            # (a bound on the wait, not a measure: they begin at once or not before the end)
            wait = kind == "relation" and not prestart
            seen[kind] = began.wait(60) if wait else began.is_set()
        return real_send(to_child, name, table, folder)

    monkeypatch.setattr(full_run, "_save_sidecars", sidecars)
    monkeypatch.setattr(full_write, "_send_table", send)
    report = analyze(tmp_path, IndexConfig(), RunOptions(workers=2, memory_budget_mb=1 << 20))
    assert (report.forks["database writer"] == FORKED) == prestart, report.forks
    assert seen == {"File": False, "Symbol": False, "relation": not prestart}, seen
    assert report.symbols >= 6
