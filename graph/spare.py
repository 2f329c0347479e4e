"""The spare database: a second copy of the graph that only the writer touches.

An incremental run must not copy the live database (39 MB on Django, gigabytes on
a kernel), nor write into it: readers have it open (Kùzu refuses a read-write open
while another process holds the file, and its isolation does not reach across
processes), and a killed write must leave it whole. So the index keeps two
databases and the writer alternates between them:

- after a publish, the database of the generation it replaced is *salvaged* once no
  reader pins that generation (the publish holds its folder's lock exclusively, so
  nobody has the file open): it moves to `spare/` with a record of the generation
  whose content it holds and its checksums;
- right after the publish, a detached process *levels* it: the delta and Meta of the
  generation just published go in, and it is recorded as that generation
  (graph/spare_level.py), off the next run's critical path;
- the next run *takes* it into the new generation's folder and brings it forward:
  the live generation's own delta (its `delta.bin`) when the spare is still one behind
  (no leveller ran, or it was killed before its record), then the run's delta
  (graph/wal_store.py). Nothing is copied; a reader of the live generation is never
  waited for. Whoever moves or writes the spare holds its lock (`held`).

When there is no usable spare (the first edit after a full build, the previous
generation still pinned by a reader at publish time and since, a damaged spare),
the run copies the live database as before. A full build makes no spare: that
would be a second copy of the database on disk (37.5 MB on Django) in every index,
edited or not, while the first edit's copy costs it ~0.1 s (measured on Django,
/work/notes/edits.md) and the generation that edit replaces becomes the spare of the
edits after. The spare is a cache: it is written without fsync and checked against
its record before use; losing it costs one copy, never an answer.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import mmap
import os
import re
import shutil
import signal
import time
from pathlib import Path

import xxhash

from codeimpact.graph import layout, lock, manifest
from codeimpact.graph.delta import GraphDelta
from codeimpact.graph.delta_log import load_delta
from codeimpact.native.record import Compared

SPARE_DIRNAME = "spare"
RECORD_NAME = "spare.json"
# Serialises whoever moves or writes the spare: a run's take, the salvage of a publish,
# a full build's drop and the leveller that brings it forward after a publish
# (graph/spare_level.py), which holds it until it is done (a flock: a killed holder drops it)
LOCK_NAME = "spare.lock"
# The size, in Kùzu pages, of the freshest database of the index's lineage: the first one a
# leveller levelled after the full build (a full build's and one delta), or its last fresh
# copy (graph/spare_level.py); beside the spare's folder, which each take removes
BASE_NAME = "spare-base.json"
# How long a run waits for a leveller before it kills it (a killed leveller costs a copy)
LEVELLER_WAIT = 20.0
FORMAT = 1
WAL_SUFFIX = ".wal"
_GEN_DIR = re.compile(r"gen-(\d{6,})")


class Taken(Compared):
    """A spare moved into a new generation's folder."""

    generation: int  # the generation whose content it holds
    replay: list[GraphDelta]  # deltas that bring it to the live generation, in order
    wal_bytes: int  # its write-ahead log's size (checkpointed when it grows large)
    # its files' [size, xxh3] as recorded, when `take` left the check to the caller (`verify`)
    expected: dict[str, list] | None
    # the rows of its tables as its leveller counted them (None: not recorded), which its
    # files (the checksums recorded with them) still hold
    rows: dict[str, int] | None
    __slots__ = ("generation", "replay", "wal_bytes", "expected", "rows")

    def __init__(
        self,
        generation: int,
        replay: list[GraphDelta],
        wal_bytes: int,
        expected: dict[str, list] | None = None,
        rows: dict[str, int] | None = None,
    ) -> None:
        self.generation = generation
        self.replay = replay
        self.wal_bytes = wal_bytes
        self.expected = expected
        self.rows = rows


class SpareDamaged(OSError):
    """A spare's file differs from its record (the caller copies the live database)."""


def spare_dir(idx: Path) -> Path:
    return idx / SPARE_DIRNAME


def mark_leveller(fd: int, pid: int, copying: bool = False) -> None:
    """Record in the lock file `fd` the leveller `pid` that holds it (its start ticks: a run
    that waited too long kills it, never another process of the same pid), and whether it
    is making a fresh copy of the spare (graph/spare_level.py), which a run stops at once:
    the spare stays recorded meanwhile, and the copy is work no run needs."""
    line = f"{pid} {lock.process_start_ticks(pid)}{' copying' if copying else ''}\n"
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, line.encode(), 0)


def _leveller(fd: int) -> tuple[int, int, bool] | None:
    """(pid, start ticks, copying) of the leveller the lock file records."""
    words = b""
    with contextlib.suppress(OSError):
        words = os.pread(fd, 64, 0).split()
    if len(words) < 2 or not (words[0].isdigit() and words[1].isdigit()):
        return None  # (none yet: a leveller writes it as it starts)
    return int(words[0]), int(words[1]), words[2:3] == [b"copying"]


def _stop_leveller(fd: int) -> None:
    """Kill the leveller recorded in the lock file if it still runs."""
    found = _leveller(fd)
    if found is not None and found[0] > 0 and lock.process_start_ticks(found[0]) == found[1]:
        with contextlib.suppress(OSError):
            os.kill(found[0], signal.SIGKILL)


@contextlib.contextmanager
def held(idx: Path, wait: float | None = None, *, stop_copy: bool = True):
    """The spare's lock (see LOCK_NAME); yields its fd. A leveller still at work is waited
    for up to `wait` seconds, then killed; one making a fresh copy is killed at once
    (unless not `stop_copy`). Released by closing the fd, never by LOCK_UN: a leveller
    started while it is held is handed it (`spare_leveller.start`) and keeps it."""
    fd = os.open(idx / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + (LEVELLER_WAIT if wait is None else wait)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                found = _leveller(fd) if stop_copy else None
                if time.monotonic() > deadline or (found is not None and found[2]):
                    _stop_leveller(fd)
                    deadline = float("inf")
                time.sleep(0.002)
        yield fd
    finally:
        os.close(fd)


def waited(idx: Path) -> None:
    """Return once no leveller works on the spare, a fresh copy it makes included (tests,
    and `status` of a spare)."""
    with held(idx, stop_copy=False):
        pass


def _db_files(folder: Path) -> list[str]:
    """The database's files in `folder`: graph.kz, and its WAL when it holds anything."""
    names = [layout.DB_FILENAME]
    wal = folder / (layout.DB_FILENAME + WAL_SUFFIX)
    with contextlib.suppress(OSError):
        if wal.stat().st_size:
            names.append(wal.name)
    return names


def _checksum(path: Path) -> list:
    """[size, xxh3-64] of a file (memory-mapped: Django's database in ~5 ms when cached)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if not size:
            return [0, xxhash.xxh3_64_hexdigest(b"")]
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
            return [size, xxhash.xxh3_64_hexdigest(view)]


def drop(idx: Path) -> None:
    """Forget the spare (a full build starts a new lineage, its size unknown yet; a damaged
    spare is useless)."""
    with held(idx):
        _drop(idx)
        with contextlib.suppress(OSError):
            (idx / BASE_NAME).unlink()


def base_pages(idx: Path) -> int | None:
    """The pages of the lineage's freshest database (BASE_NAME); None: not known yet."""
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        pages = json.loads((idx / BASE_NAME).read_bytes())["pages"]
        if type(pages) is int and pages > 0:
            return pages
    return None


def set_base_pages(idx: Path, pages: int) -> None:
    """Record `pages` as the lineage's freshest database's (by the spare's lock holder)."""
    layout.atomic_write(idx / BASE_NAME, json.dumps({"pages": pages}).encode(), durable=False)


def _drop(idx: Path) -> None:
    shutil.rmtree(spare_dir(idx), ignore_errors=True)


def _stamped(folder: Path, names: list[str]) -> dict[str, list]:
    """name -> [size, xxh3] that the generation's manifest records for those of its files
    whose stat is still the one the writer stamped when their checksum last matched
    (graph/manifest.py: any write moves the ctime). The kernel's database is 1 GB: hashing
    it again as it leaves was 1.4 s of every edit's publish. The manifest is not checked
    against CURRENT (which names the new generation by now): a wrong record makes the
    spare fail its check before use, and the run copies instead."""
    stamp = manifest.read_stamp(folder)
    try:
        files = json.loads((folder / manifest.MANIFEST_NAME).read_bytes())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    out = {}
    for name in names:
        key = f"{folder.name}/{name}"
        entry, seen = files.get(key), stamp.get(key)
        try:
            st = os.stat(folder / name)
        except OSError:
            continue
        if (
            isinstance(entry, list)
            and len(entry) == 3
            and not entry[2]  # (a growing cache file records a prefix only)
            and entry[0] == st.st_size
            and seen == manifest._stat_key(st)
        ):
            out[name] = [entry[0], entry[1]]
    return out


def _move_in(src: Path, names: list[str], generation: int, idx: Path) -> None:
    """Move the database files `names` of `src` into a fresh spare of `generation` (the
    caller holds the spare's lock)."""
    _drop(idx)
    dst = spare_dir(idx)
    dst.mkdir()
    files = _stamped(src, names)  # (before the move, which changes their ctime)
    for name in names:
        os.replace(src / name, dst / name)
        if name not in files:
            files[name] = _checksum(dst / name)
    # each file's stat once in the spare: while it holds, the file is what `files` says
    # (any write moves the ctime), so the leveller need not hash it again (graph/spare_level.py)
    stamps = {name: manifest._stat_key(os.stat(dst / name)) for name in names}
    record = {"format": FORMAT, "generation": generation, "files": files, "stamps": stamps}
    # last: a spare without its record (a crash in between) is never used
    (dst / RECORD_NAME).write_text(json.dumps(record, sort_keys=True))


def salvager(idx: Path, generation: int):
    """The `layout.publish(salvage=...)` callback that keeps generation `generation`'s
    database as the spare when its folder is removed (unpinned, so nobody has it open)."""

    def salvage(folder: Path) -> None:
        m = _GEN_DIR.fullmatch(folder.name)
        if m is None or int(m.group(1)) != generation:
            return
        with contextlib.suppress(OSError), held(idx):
            _move_in(folder, _db_files(folder), generation, idx)

    return salvage


def _record(idx: Path) -> dict | None:
    try:
        raw = json.loads((spare_dir(idx) / RECORD_NAME).read_bytes())
        if raw.get("format") != FORMAT or not isinstance(raw.get("generation"), int):
            return None
        files = raw["files"]
        if not isinstance(files, dict) or layout.DB_FILENAME not in files:
            return None
        return raw
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _salvage_previous(idx: Path, live: int) -> None:
    """The previous generation's folder, still there because a reader pinned it when it
    was replaced, becomes the spare if nobody pins it now."""
    folder = idx / layout.generation_dirname(live - 1)
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # still read
        with contextlib.suppress(OSError):
            if (folder / layout.DB_FILENAME).is_file():
                _move_in(folder, _db_files(folder), live - 1, idx)
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)


def verify(folder: Path, expected: dict[str, list], stamps: dict[str, list] | None = None) -> None:
    """Raise SpareDamaged unless the files of `folder` hold what the spare's record says.
    A file whose stat is still its stamp in `stamps` (see `_move_in`) is not hashed again."""
    for name, want in sorted(expected.items()):
        if stamps and name in stamps:
            with contextlib.suppress(OSError):
                if manifest._stat_key(os.stat(folder / name)) == stamps[name]:
                    continue
        try:
            found = _checksum(folder / name)
        except OSError as e:
            raise SpareDamaged(f"spare {name}: {e}") from e
        if found != want:
            raise SpareDamaged(f"spare {name} differs from its record")


def take(idx: Path, live: layout.Generation, dst: layout.Generation,
         check: bool = True) -> Taken | None:  # fmt: skip
    """Move the spare into `dst`'s folder if it can be brought to `live`'s content; None
    (and no spare any more, if it was unusable) when the caller must copy instead.
    `check=False`: its checksums are not computed here but returned (`Taken.expected`) for
    the caller to `verify` before use (the kernel's 1 GB: 1-3 s the run need not wait for,
    when the writer child checks it while the run resolves)."""
    with held(idx):
        return take_held(idx, live, dst, check)


def take_held(idx: Path, live: layout.Generation, dst: layout.Generation,
              check: bool = True) -> Taken | None:  # fmt: skip
    """`take`, by a caller that holds the spare's lock (`held`)."""
    record = _record(idx)
    if record is None or record["generation"] not in (live.number, live.number - 1):
        _salvage_previous(idx, live.number)
        record = _record(idx)
    if record is None:
        _drop(idx)
        return None
    generation = record["generation"]
    replay: list[GraphDelta] = []
    if generation == live.number - 1:
        delta = load_delta(live.path)
        if delta is None:
            _drop(idx)
            return None
        replay.append(delta)
    elif generation != live.number:
        _drop(idx)
        return None
    src = spare_dir(idx)
    files: dict = record["files"]
    try:
        if check:
            verify(src, files)
        (src / RECORD_NAME).unlink()  # taken: never used twice
        for name in files:
            os.replace(src / name, dst.path / name)
    except OSError:
        _drop(idx)
        for name in files:
            with contextlib.suppress(OSError):
                (dst.path / name).unlink()
        return None
    _drop(idx)
    wal = files.get(layout.DB_FILENAME + WAL_SUFFIX)
    rows = record.get("rows")
    if not (isinstance(rows, dict) and all(type(n) is int for n in rows.values())):
        rows = None
    return Taken(generation, replay, wal[0] if wal else 0, None if check else files, rows)
