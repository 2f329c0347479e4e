"""A full build forks its resolve host before the extraction and feeds it each file's facts
blob as it comes (indexer/early_host.py): the host decodes them while the workers extract,
not on the serial stretch between the extraction's end and its first worker's fork."""

from __future__ import annotations

import multiprocessing
import os

import pytest
from test_resolve_workers import _package

from codeimpact.indexer import extraction
from codeimpact.indexer.build import PARALLEL_RESOLVE_MIN, analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.early_host import Feed, worth_feeding
from codeimpact.indexer.fork_guard import FORKED
from codeimpact.indexer.lang.api import FileFacts
from conftest import write_files


def _hosts() -> list[str]:
    return [p.name for p in multiprocessing.active_children()
            if p.name == "codeimpact-resolve-host"]  # fmt: skip


def test_the_host_is_fed_during_the_extraction_and_decodes_every_python_file(tmp_path,
                                                                             monkeypatch):  # fmt: skip
    log = tmp_path / "decoded"
    decode = FileFacts.from_bytes.__func__

    def from_bytes(cls, data: bytes) -> FileFacts:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, f"{os.getpid()}\n".encode())
        os.close(fd)
        return decode(cls, data)

    monkeypatch.setattr(FileFacts, "from_bytes", classmethod(from_bytes))
    hosts_then = []
    extract = extraction.extract_files

    def extract_files(*a, **k):
        hosts_then.append(_hosts())  # (already forked, waiting for the blobs)
        return extract(*a, **k)

    monkeypatch.setattr(extraction, "extract_files", extract_files)
    one, two = tmp_path / "one", tmp_path / "two"
    files = _package(PARALLEL_RESOLVE_MIN + 40)
    write_files(one, files)
    write_files(two, files)
    report = analyze(one, IndexConfig(), RunOptions(workers=2))
    assert report.forks["resolvers"] == FORKED
    assert hosts_then == [["codeimpact-resolve-host"]]
    pids = log.read_text().split()
    assert str(os.getpid()) not in pids  # (the builder decoded none)
    assert len(set(pids)) == 1 and len(pids) == len(files)  # the host, each file once
    assert multiprocessing.active_children() == []
    monkeypatch.setattr(extraction, "extract_files", extract)
    serial = analyze(two, IndexConfig(), RunOptions(workers=1))
    assert serial.edges == report.edges


def test_a_build_failing_during_the_extraction_leaves_no_host(tmp_path, monkeypatch):
    def extract_files(*a, **k):
        assert _hosts()
        raise RuntimeError("extraction failed")

    monkeypatch.setattr(extraction, "extract_files", extract_files)
    write_files(tmp_path, _package(PARALLEL_RESOLVE_MIN + 40))
    with pytest.raises(RuntimeError, match="extraction failed"):
        analyze(tmp_path, IndexConfig(), RunOptions(workers=2))
    assert multiprocessing.active_children() == []


def test_only_trees_mostly_of_languages_resolved_from_whole_facts_are_fed():
    assert worth_feeding({"python": 40 << 20, "javascript": 2 << 20})  # (Django's kind)
    assert not worth_feeding({"python": 4 << 20, "javascript": 2 << 20})
    assert not worth_feeding({"python": 400 << 20, "c": 100 << 20})
    assert not worth_feeding({"c": 10 << 20})


def test_the_order_goes_only_when_every_file_of_it_was_sent():
    feed = Feed()
    feed.forked()
    feed.take("a.py", b"x")
    assert not feed.go(["a.py", "b.py"])  # (the builder then forks a host after)
