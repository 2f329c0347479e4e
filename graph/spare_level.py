"""Bringing the spare database level with the live generation after a publish.

An incremental run writes into the spare (graph/spare.py), which holds the generation
before the live one: its writer replayed the live generation's delta before the run's own,
on the critical path of a small edit (Kùzu's open of a larger write-ahead log, the replay,
~40 ms of CPU on Django; a checkpoint of the log when it grew past
wal_store.COMPACT_WAL_BYTES, 50-100 ms more). Right after a publish the database it replaced
becomes the spare, and the run that published still holds the delta that makes the live
generation from it. `level` applies that delta and the live generation's Meta to the spare
then, in a process of its own that the run does not wait for (indexer/spare_leveller.py),
checkpoints it, and records it as the live generation: the next run's writer only opens it,
with no log to replay.

The checkpoint is made whatever the log's size (Kùzu's replay is costly even for a small
log: ~8 ms of CPU per relationship table it touches, for the writer and every reader) while
the database file is at most CHECKPOINT_DB_MAX: there it costs the leveller ~0.25 s of
background CPU on Django. A larger database (the kernel's 1 GB: a checkpoint ~30 s of CPU,
which a next edit would wait for) is checkpointed past COMPACT_WAL_BYTES only, as before.

Checkpoints leave free pages in the file, which grows in steps and never shrinks (Django:
35.9 MB after the full build, 71.0 MB after 250 edits, graph/fresh_copy.py). Once it is
COPY_GROWTH times the freshest database of the index (and at most CHECKPOINT_DB_MAX: a larger
one is not copied yet), the leveller replaces the levelled spare with a fresh copy (a full
build's size): the spare is recorded as levelled first, and
a run that wants it meanwhile stops the copy at once and takes it as it is (`spare.held`).
Each database of the index is the spare every other edit, so both are copied in turn.

The spare is a cache, and this keeps it one: its record is removed before anything is
written and recorded again (with new checksums) only once the database holds the live
generation, row counts checked, so a leveller killed at any point leaves a spare without a
record, which the next run drops and copies the live database instead. The live generation
is never touched. The leveller holds the spare's lock (`spare.held`) from before its start to
its end: a run that wants the spare meanwhile waits for it (or kills it, past
spare.LEVELLER_WAIT).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codeimpact.graph import fresh_copy, layout, manifest, spare, wal_store
from codeimpact.graph.delta import GraphDelta, apply_delta
from codeimpact.graph.meta_files import META_FILES
from codeimpact.graph.store import count_mismatches, count_rows, write_meta


def _no_stage(name: str) -> None:
    """Tests replace it to stop (and kill) a leveller at one of its stages."""


STAGE: Callable[[str], None] = _no_stage
# the largest database file whose log the leveller checkpoints whatever its size (Django's:
# 38-57 MB); a larger one's only past wal_store.COMPACT_WAL_BYTES
CHECKPOINT_DB_MAX = 128 * 1024 * 1024
# A fresh copy of the spare (graph/fresh_copy.py) is made once its file is COPY_GROWTH times
# the lineage's freshest database (spare.base_pages), and at least COPY_MIN_GROWTH_BYTES more:
# the file stays within that and one of Kùzu's steps (Django's: 4-16 MB; its base, the full
# build's levelled once, 37.7 MB: copied at the step to 47 MB, ~75 edits). Not by its free
# pages alone: of Django's 71 MB after 400 edits (a full build's: 35.9), 24 MB were free.
# Only a database of at most CHECKPOINT_DB_MAX is copied (the ones checkpointed each edit, which
# grow each edit): the copy reads each whole table as Arrow (Django's: 1.7 s of CPU, the
# leveller's peak ~290 MB); a kernel's 1 GB would take GBs and minutes. Larger indexes are not
# kept small yet (next: a copy streamed in batches).
COPY_GROWTH = 1.2
COPY_MIN_GROWTH_BYTES: float = 8 * 1024 * 1024
COPY_DIRNAME = "fresh-copy"  # in the spare's folder, while a copy is made
# the open database of a leveller, kept until its os._exit (freed, Kùzu would checkpoint)
_KEPT: list[wal_store.Opened] = []


def levellable(idx: Path, live: int) -> bool:
    """Whether the spare holds generation `live - 1`, which `level` can bring to `live`
    (the caller holds the spare's lock)."""
    record = spare._record(idx)
    return record is not None and record["generation"] == live - 1


def level(idx: Path, live: int, delta: GraphDelta, meta: dict[str, Any], rows: dict[str, int],
          buffer_pool: int, copying: Callable[[bool], None] = lambda on: None) -> str:  # fmt: skip
    """Bring the spare from generation `live - 1` to `live` (`delta` made it, `meta` is its
    Meta, `rows` its row counts), with the spare's lock held by the caller; then, when its
    file grew past the lineage's freshest (`needs_copy`), replace it with a fresh copy, said
    by `copying(True)` before and `copying(False)` after. Returns what it did. The database is
    left open: the caller ends its process with os._exit (closing would checkpoint,
    graph/wal_store.py)."""
    record = spare._record(idx)
    if record is None or record["generation"] != live - 1:
        return "no spare of the generation before"
    folder = spare.spare_dir(idx)
    stamps = record.get("stamps") or {}
    spare.verify(folder, record["files"], stamps)  # (the salvage's stamps: no hash of the file)
    db = folder / layout.DB_FILENAME
    db_stat = _stat(db)
    STAGE("checked")
    # from here until the new record, the spare is unusable: a kill leaves it so
    (folder / spare.RECORD_NAME).unlink()
    STAGE("unrecorded")
    opened = wal_store.Opened(folder / layout.DB_FILENAME, buffer_pool)
    _KEPT.append(opened)
    found = wal_store.generation_of(opened.conn)
    if found != live - 1:
        spare._drop(idx)
        return f"the spare holds generation {found}, not {live - 1}"
    # Meta as the live database holds it (the values kept in files are not in the table)
    in_table = {k: v for k, v in meta.items() if k not in META_FILES}
    apply_delta(wal_store._Conn(opened.conn), delta, guard=False,
                also=lambda conn: write_meta(conn, folder, in_table))  # fmt: skip
    STAGE("applied")
    counted = count_rows(opened.conn)
    lost = count_mismatches(counted, rows)
    if lost:
        spare._drop(idx)
        return f"the levelled spare's rows differ from the live generation's ({', '.join(lost)})"
    # checkpointed whatever the log's size: the next writer's open replays any log it finds,
    # and Kùzu's replay is costly even for a small one (a log of ONE edge: ~8 ms of CPU, 8 MB
    # zeroed per relationship table it touches; a bench edit's log: ~27 ms of the writer's CPU,
    # which shares two cores with the run); here the checkpoint (50-100 ms) is background work
    wal = folder / (layout.DB_FILENAME + spare.WAL_SUFFIX)
    compacted = False
    always = _size(db) <= CHECKPOINT_DB_MAX
    if _size(wal) > (0 if always else wal_store.COMPACT_WAL_BYTES):
        wal_store.compact(opened.conn)
        compacted = True
    STAGE("written")
    files = {}
    for name in spare._db_files(folder):
        if name == db.name and _stat(db) == db_stat:  # only the log was written
            files[name] = record["files"][name]
        else:
            files[name] = spare._checksum(folder / name)
    _record(folder, live, files, counted)
    done = "levelled, compacted" if compacted else "levelled"
    if not always:  # (not copied either: see COPY_GROWTH)
        return done
    pages, base = _size(db) // fresh_copy.PAGE_BYTES, spare.base_pages(idx)
    if base is None:
        spare.set_base_pages(idx, pages)
        return done
    if not needs_copy(pages, base):
        return done
    free = fresh_copy.free_pages(opened.conn)[0]
    # the spare stays recorded while the copy is made: a run that wants it stops the copy
    # (spare.held) and takes the spare as it is
    copying(True)
    STAGE("copying")
    new = fresh_copy.fresh_copy(opened.conn, folder / COPY_DIRNAME, counted, buffer_pool,
                                wal_store.DELTA_THREADS)  # fmt: skip
    copying(False)  # (a run that comes now waits: the spare is swapped)
    STAGE("copied")
    (folder / spare.RECORD_NAME).unlink()
    os.replace(new, db)
    wal.unlink(missing_ok=True)  # (the old file's: what it held is in the copy)
    shutil.rmtree(folder / COPY_DIRNAME, ignore_errors=True)
    _record(folder, live, {db.name: spare._checksum(db)}, counted)
    copied = _size(db) // fresh_copy.PAGE_BYTES
    spare.set_base_pages(idx, copied)
    return done + f", copied: {pages} pages ({free} free) -> {copied}"


def needs_copy(pages: int, base: int) -> bool:
    """Whether a database file of `pages` is worth a fresh copy, its lineage's freshest
    database having had `base` pages."""
    grown = pages - base
    return pages >= COPY_GROWTH * base and grown * fresh_copy.PAGE_BYTES >= COPY_MIN_GROWTH_BYTES


def _record(folder: Path, live: int, files: dict[str, list], rows: dict[str, int]) -> None:
    # the CPU this process took (a new interpreter: its start and imports included): the run's
    # own rusage never holds it, so benchmarks read it here (benchmarks/bench_incremental.py)
    # `rows`: the counts just checked (and again by the checkpoint): the next writer starts
    # from them instead of counting its relationship tables again (~18 ms of its CPU)
    body = json.dumps({"format": spare.FORMAT, "generation": live, "files": files,
                       "rows": rows, "leveller_cpu_seconds": round(time.process_time(), 4)},
                      sort_keys=True)  # fmt: skip
    layout.atomic_write(folder / spare.RECORD_NAME, body.encode(), durable=False)


def _stat(path: Path) -> list[int] | None:
    try:
        return manifest._stat_key(os.stat(path))
    except OSError:
        return None


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
