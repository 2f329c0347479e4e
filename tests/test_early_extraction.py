"""A new index's files are read by the extraction workers, forked as soon as discover listed
them (indexer/extraction.py EarlyExtraction): each record must say what a scan would have
read (size, hash, lines, language by content, why a file was skipped), for every kind of
file and when a worker never answered for one (killed at its parse timeout)."""

from __future__ import annotations

import os
import time

from codeimpact.graph import layout
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.discover import discover
from codeimpact.indexer.extraction import EarlyExtraction, facts_for
from codeimpact.indexer.facts_cache import FactsCache
from codeimpact.indexer.files_state import load_files_state
from codeimpact.indexer.lang.api import count_lines
from codeimpact.indexer.reading import content_hash
from codeimpact.indexer.scanning import scan, unread_records
from conftest import write_files

GOOD = "def ok():\n    return helper()\n\ndef helper():\n    return 1\n"
FILES: dict[str, str | bytes] = {
    **{f"pkg/m{i}.py": GOOD.replace("helper", f"helper{i}") for i in range(12)},
    "pkg/no_newline.py": "X = 1\nY = 2",
    "pkg/empty.py": "",
    "pkg/broken.py": "def fine():\n    pass\n\ndef broken(:\n    pass\n",
    "binary.py": b"\x00\x01\x02 compiled junk\x00",
    "latin1.py": "name = 'caf\u00e9'\n".encode("latin-1"),
    "big.py": "X = 1\n" * 400,  # 2400 bytes: over the limit below
    "c/plain.h": "int add(int a, int b);\n",
    "c/classy.h": "namespace n { class K { public: int f(); }; }\n",
    "c/use.c": '#include "plain.h"\nint main(void) { return add(1, 2); }\n',
}
LIMIT = 2000


def _as_scanned(repo, config):
    """What a scan records of each file (the build before the early extraction)."""
    records, _data = scan(repo, discover(repo, config), config, None, time.time_ns())
    return {r.path: (r.language, r.size, r.content_hash, r.lines, r.is_test) for r in records}


def test_a_new_index_records_each_file_as_a_scan_reads_it(tmp_path):
    repo = tmp_path / "repo"
    write_files(repo, FILES)
    config = IndexConfig(max_file_size=LIMIT)
    report = analyze(repo, config, RunOptions(workers=2))
    assert report.mode == "full"
    state = load_files_state(layout.read_current(layout.index_dir(repo)).path)
    got = {p: (f.language, f.size, f.content_hash, f.lines, f.is_test)
           for p, f in state.files.items()}  # fmt: skip
    assert got == _as_scanned(repo, config)
    status = {p: (f.status, bool(f.detail)) for p, f in state.files.items()}
    assert status["binary.py"] == ("skipped:binary", True)
    assert status["latin1.py"] == ("skipped:decode_error", True)
    assert status["big.py"] == ("skipped:file_too_large", True)
    assert status["pkg/broken.py"][0] == "partial"
    assert got["c/classy.h"][0] == "cpp" and got["c/plain.h"][0] == "c"
    assert got["pkg/no_newline.py"][3] == 2
    assert got["big.py"][2] == ""  # (not read: over the limit, as the scan records it)
    # the skipped files are recorded, not parsed; the rest is indexed
    assert report.parsed == len(FILES) - 3
    assert report.files_by_status["ok"] == len(FILES) - 4


def test_workers_read_what_the_records_of_a_new_index_lack(tmp_path):
    """The early extraction's workers each give the record of a file no scan read what a
    scan would have: the builder reads none of them."""
    repo = tmp_path / "repo"
    write_files(repo, FILES)
    config = IndexConfig(max_file_size=LIMIT)
    early = EarlyExtraction(repo, LIMIT, RunOptions(workers=2), 60.0)
    records = unread_records(discover(repo, config, found=early.add))
    assert {r.content_hash for r in records} == {""}
    assert early.extraction is not None  # (forked as discover listed them: the workers read)
    idx = tmp_path / "idx"
    idx.mkdir()
    cache = FactsCache(idx, "test")
    try:
        facts, parsed = facts_for(repo, LIMIT, records, {}, cache, RunOptions(workers=2), None,
                                  60.0, early=early)  # fmt: skip
    finally:
        cache.close()
    assert parsed == len(FILES) - 3 and len(facts) == parsed
    got = {r.path: (r.language, r.size, r.content_hash, r.lines, r.is_test) for r in records}
    assert got == _as_scanned(repo, config)
    # the workers are waited for by then, so their CPU is the extraction phase's in the
    # report (RUSAGE_CHILDREN counts a child once it is reaped; left to exit, it was counted
    # in a later phase or none)
    assert _children() == []


def _children() -> list[str]:
    """The processes this one forked that are not reaped yet (zombies included)."""
    out: list[str] = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as fh:
            out += fh.read().split()
    return out


def test_a_file_whose_worker_was_killed_is_recorded_as_the_scan_reads_it(tmp_path):
    """A parse over its time limit kills the worker before it answers: the builder reads the
    file then, so its record still has its size, hash and lines (its status says timeout)."""
    repo = tmp_path / "repo"
    huge = "".join(f"def f{i}(x):\n    return g(x) + {i}\n" for i in range(20_000)).encode()
    write_files(repo, {**{f"m{i}.py": GOOD for i in range(10)}, "huge.py": huge})
    report = analyze(repo, IndexConfig(parse_timeout_ms=1), RunOptions(workers=2))
    state = load_files_state(layout.read_current(layout.index_dir(repo)).path)
    f = state.files["huge.py"]
    assert f.status == "skipped:timeout", f.status
    assert (f.size, f.content_hash, f.lines) == (len(huge), content_hash(huge), count_lines(huge))
    assert any(r["code"] == "timeout" and r["path"] == "huge.py" for r in report.incomplete)


def test_a_new_index_forks_its_extraction_workers_before_the_walk_has_listed_every_folder(
    tmp_path, monkeypatch
):
    """discover's walk hands the files it lists on as it goes (`found`): the workers parse
    while it lists the rest, not after it (the builder's walk ran on one core)."""
    from codeimpact.indexer import discover as discovering
    from codeimpact.indexer import workers

    repo = tmp_path / "repo"
    write_files(repo, {f"pkg{d}/m{i}.py": f"def f{i}():\n    return {d}\n"
                       for d in range(30) for i in range(10)})  # fmt: skip
    events: list[str] = []
    real_walk, real_extraction = discovering._walk_files, workers.Extraction.__init__

    def walk(*args, **kwargs):
        try:
            return real_walk(*args, **kwargs)
        finally:
            events.append("walk done")

    def extraction(self, *args, **kwargs):
        events.append("workers forked")
        return real_extraction(self, *args, **kwargs)

    monkeypatch.setattr(discovering, "_walk_files", walk)
    monkeypatch.setattr(workers.Extraction, "__init__", extraction)
    report = analyze(repo, IndexConfig(), RunOptions(workers=2))
    assert events == ["workers forked", "walk done"], events
    assert report.parsed == report.files == 300
