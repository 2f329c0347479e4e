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
background CPU on Django, and the file grows in steps, then holds (Django's index folder
after 50 edit/revert pairs: 166.5 MB, database 49.0 MB, against 144.4 MB with a 497 KB log
when only logs past wal_store.COMPACT_WAL_BYTES were checkpointed; an older index's database
stepped once more to 57.6 MB and held it). A larger database (the kernel's 1 GB: a
checkpoint ~30 s of CPU, which a next edit would wait for) is checkpointed past
COMPACT_WAL_BYTES only, as before.

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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codeimpact.graph import layout, manifest, spare, wal_store
from codeimpact.graph.delta import GraphDelta, apply_delta
from codeimpact.graph.meta_files import META_FILES
from codeimpact.graph.store import count_mismatches, count_rows, write_meta


def _no_stage(name: str) -> None:
    """Tests replace it to stop (and kill) a leveller at one of its stages."""


STAGE: Callable[[str], None] = _no_stage
# the largest database file whose log the leveller checkpoints whatever its size (Django's:
# 38-57 MB); a larger one's only past wal_store.COMPACT_WAL_BYTES
CHECKPOINT_DB_MAX = 128 * 1024 * 1024
# the open database of a leveller, kept until its os._exit (freed, Kùzu would checkpoint)
_KEPT: list[wal_store.Opened] = []


def levellable(idx: Path, live: int) -> bool:
    """Whether the spare holds generation `live - 1`, which `level` can bring to `live`
    (the caller holds the spare's lock)."""
    record = spare._record(idx)
    return record is not None and record["generation"] == live - 1


def level(idx: Path, live: int, delta: GraphDelta, meta: dict[str, Any], rows: dict[str, int],
          buffer_pool: int) -> str:  # fmt: skip
    """Bring the spare from generation `live - 1` to `live` (`delta` made it, `meta` is its
    Meta, `rows` its row counts), with the spare's lock held by the caller. Returns what it
    did. The database is left open: the caller ends its process with os._exit (closing would
    checkpoint, graph/wal_store.py)."""
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
    # the CPU this process took (a new interpreter: its start and imports included): the run's own
    # rusage never holds it, so benchmarks read it here (benchmarks/bench_incremental.py)
    # `rows`: the counts just checked (and again by the checkpoint): the next writer starts
    # from them instead of counting its relationship tables again (~18 ms of its CPU)
    body = json.dumps({"format": spare.FORMAT, "generation": live, "files": files,
                       "rows": counted, "leveller_cpu_seconds": round(time.process_time(), 4)},
                      sort_keys=True)  # fmt: skip
    layout.atomic_write(folder / spare.RECORD_NAME, body.encode(), durable=False)
    return "levelled, compacted" if compacted else "levelled"


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
