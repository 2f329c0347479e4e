"""A new index's resolve host is forked before its extraction and decodes each file's facts
as the builder hands them on (indexer/resolve_feed.py), not all of them after the
extraction's end on one core; a host that dies meanwhile leaves the builder to resolve."""

from __future__ import annotations

import os
import shutil
import signal
import threading

from test_incremental import dump
from test_resolve_workers import _package

from codeimpact.indexer import resolve_host
from codeimpact.indexer.build import PARALLEL_RESOLVE_MIN, analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.fork_guard import FORKED
from codeimpact.indexer.resolve_feed import Feed, received
from codeimpact.indexer.run import Run
from conftest import write_files


def test_the_builder_never_waits_for_the_host_to_read_and_every_frame_arrives():
    r, w = os.pipe()
    feed = Feed(w)
    sent = {f"pkg/m{i}.py": bytes([i % 251]) * (40_000 + i) for i in range(120)}
    sent["pkg/\udcff.py"] = b"x"  # (a name that is no UTF-8: surrogates escaped both ways)
    for path, blob in sent.items():
        feed.send(path, blob)  # ~4.8 MB, nobody reading yet: none of these may block
    got: list = []
    reader = threading.Thread(target=lambda: got.append(received(r, bytes.upper)))
    reader.start()
    feed.go(b"the order")
    reader.join()
    decoded, payload = got[0]
    assert payload == b"the order"
    assert decoded == {p: b.upper() for p, b in sent.items()}
    assert list(decoded) == list(sent)


def test_a_feed_cut_short_is_an_end_not_a_hang():
    r, w = os.pipe()
    feed = Feed(w)
    feed.send("a.py", b"blob")
    feed.close()
    try:
        received(r, bytes)
    except EOFError as e:
        assert "before its last frame" in str(e)
    else:
        raise AssertionError("a feed without its last frame was taken as whole")


def test_a_new_index_decodes_its_facts_in_the_host_before_the_extraction_ends(tmp_path,
                                                                             monkeypatch):  # fmt: skip
    repo, fed, seen = tmp_path / "repo", tmp_path / "fed", tmp_path / "seen"
    write_files(repo, _package(PARALLEL_RESOLVE_MIN + 40))
    shutil.copytree(repo, seen)
    events: list[str] = []
    real_start, real_facts_for, real_received = (resolve_host.Host.start, Run.facts_for,
                                                 resolve_host.received)  # fmt: skip

    def start(self, **kwargs):
        events.append("host forked" + (" with a feed" if kwargs.get("feed") else ""))
        return real_start(self, **kwargs)

    def facts_for(self, *args, **kwargs):
        try:
            return real_facts_for(self, *args, **kwargs)
        finally:
            events.append("facts made")

    def in_the_host(fd, decode):  # (the host's: a file tells the test)
        decoded, payload = real_received(fd, decode)
        fed.write_text(f"{os.getpid()} {len(decoded)}")
        return decoded, payload

    monkeypatch.setattr(resolve_host.Host, "start", start)
    monkeypatch.setattr(Run, "facts_for", facts_for)
    monkeypatch.setattr(resolve_host, "received", in_the_host)
    report = analyze(repo, IndexConfig(), RunOptions(workers=2, memory_budget_mb=1 << 20))
    assert events == ["host forked with a feed", "facts made"], events
    pid, n = map(int, fed.read_text().split())
    assert pid != os.getpid() and n == report.files == len(_package(PARALLEL_RESOLVE_MIN + 40))
    assert report.forks["resolvers"] == FORKED
    monkeypatch.undo()
    analyze(seen, IndexConfig(), RunOptions(workers=1))
    assert dump(repo, with_answers=False) == dump(seen, with_answers=False)


def test_a_fed_host_killed_during_the_extraction_leaves_the_builder_to_resolve(tmp_path,
                                                                              monkeypatch):  # fmt: skip
    repo, serial = tmp_path / "repo", tmp_path / "serial"
    write_files(repo, _package(PARALLEL_RESOLVE_MIN + 40))
    shutil.copytree(repo, serial)
    real_send = resolve_host.Host.send
    hosts: list[int] = []

    def send(self, path, blob):
        if not hosts:  # (the host is killed at the first file's facts)
            hosts.append(self._proc.pid)
            os.kill(self._proc.pid, signal.SIGKILL)
        return real_send(self, path, blob)

    monkeypatch.setattr(resolve_host.Host, "send", send)
    report = analyze(repo, IndexConfig(), RunOptions(workers=2, memory_budget_mb=1 << 20))
    assert report.mode == "full" and len(hosts) == 1
    analyze(serial, IndexConfig(), RunOptions(workers=1))
    assert dump(repo, with_answers=False) == dump(serial, with_answers=False)


def test_a_host_that_lags_is_not_asked_again_at_every_send(monkeypatch):
    """A full pipe refuses the backlog: the next try comes once the backlog has grown by a
    batch, not at every send (each try set up a writev of up to 512 parts: on Django with a
    lagging host, more instructions than the rest of the builder's receiving)."""
    tries = []
    writev = os.writev

    def counted(fd, parts):
        tries.append(len(parts))
        return writev(fd, parts)

    monkeypatch.setattr(os, "writev", counted)
    r, w = os.pipe()
    feed = Feed(w)
    for i in range(400):
        feed.send(f"pkg/m{i}.py", bytes([i % 251]) * 20_000)  # 8 MB, nobody reading
    # ~7 MB beyond the pipe's 1 MB at most: a try per 256 KB, not per send
    assert len(tries) < 40
    got: list = []
    reader = threading.Thread(target=lambda: got.append(received(r, len)))
    reader.start()
    feed.go(b"")
    reader.join()
    assert list(got[0][0].values()) == [20_000] * 400
