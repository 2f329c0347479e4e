"""A full build's database written by a process of its own.

Kùzu's COPY of Django's graph takes 130-170 MB beside what it writes (its hash indexes,
per-thread buffers: a buffer pool of 64 MB instead of 512 changes nothing), and the
building process holds ~300 MB by then (the imports, every file's facts, the resolvers and
the resolved graph): 476 MB at its peak. So the tables go, as Arrow IPC streams through a
pipe, to a fresh interpreter that holds only Kùzu and the table it copies (~230 MB at its
peak): the builder's peak is its own ~310 MB. It costs a start-up (~0.2 s of CPU, while
the builder prepares the first tables) and a copy of ~45 MB through the pipe. Each stream is
written into the pipe as Arrow makes it (no buffer of the whole table first: 45 MB of fresh
pages in the builder, ~0.02 s of its CPU on Django) and read from it by the writer.

The child is the parent's: its stdin is the parent's pipe, so it ends when the parent dies
(the next read sees the end of the pipe) and it is in the parent's process group (a
killed analyze takes it along). What it raised is sent back and raised again here, the
same type with the same text (storage_errors reads Kùzu's message; an OSError keeps its
errno).

A full build may start its writer early (`prestart`): forked while the builder is still
small (indexer/full_run.py: as the first resolved file comes, once the sources are freed),
after it imported pyarrow and the Kùzu module, so the writer needs no interpreter start-up
nor imports of its own (0.25-0.3 s of CPU on Django, the most of what a process of its own
cost over a write in the builder) and is ready when the tables are. It waits for a first
line naming the generation, `{"folder": path, "number": n, "buffer_pool": bytes}`, which
the builder sends (`Prestarted.begin`) as its resolution ends: the writer then creates the
database and its schema (~0.14 s on Django) while the builder makes the tables.

Protocol, parent to child: per table a line `{"table": name}` and an Arrow IPC stream (which
says where it ends); then a line `{"meta": ...}`. A prestarted writer may be sent its first
tables (`Prestarted.send`: File at `begin`, Symbol as soon as it is made) before the builder
makes Meta and the other tables; those go as Arrow IPC files in the generation, each named
by a line `{"table": name, "file": path}`, which the writer maps (no copy) and removes: they
are on the build's serial end, and Django's Symbol (14 MB) took ~16 ms from the builder's
send to the writer's COPY through the pipe (two copies, ~3.4K page faults of the writer's
fresh buffers, a round between the processes per MB), ~8 ms as a file. The other tables
come while the writer COPYs. Child to parent, at the end: one line, `{"rows": {table:
count}}` or `{"error": type, "errno": n, "message": text}`.
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from codeimpact.graph import QUIET_BLAS, layout
from codeimpact.graph.errors import CorruptIndex

if TYPE_CHECKING:
    import pyarrow as pa


# Kùzu's threads in a prestarted writer (a small tree's: see PRESTART_MAX_BYTES in
# indexer/full_run.py). Django's COPYs take 0.05-0.3 s each; on one thread instead of one
# per core the writer used ~0.1 s less CPU (1.40 -> 1.30 s, median of 8 alternated runs
# on the same tables, ~11K fewer page faults: each thread's own allocator arena) for the
# same wall. A large tree's writer (a new interpreter) keeps a thread per core.
PRESTARTED_THREADS = 1
# The new interpreter's environment beside the caller's (which wins): OpenBLAS on one thread.
WRITER_ENV = QUIET_BLAS


class WriterDied(RuntimeError):
    """The writer process ended without an answer (killed, or a crash in native code)."""


def _write_stream(sink: IO[bytes], table: pa.Table) -> None:
    """`table` as an Arrow IPC stream into `sink` (left open)."""
    import pyarrow as pa

    with pa.ipc.new_stream(pa.PythonFile(sink, mode="w"), table.schema) as out:
        out.write_table(table)


def _write_file(folder: Path, name: str, table: pa.Table) -> str:
    """`table` as an Arrow IPC file of its own in `folder` (the generation's: a failed build
    removes it with the folder); returns its path."""
    import pyarrow as pa

    fd, path = tempfile.mkstemp(prefix=f"{name}-", suffix=".arrow.tmp", dir=folder)
    os.close(fd)
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as out:
        out.write_table(table)
    return path


def _map_file(path: str) -> pa.Table:
    """The table of the Arrow IPC file at `path`, mapped (no copy), the file removed (its
    pages live as long as the table)."""
    import pyarrow as pa

    try:
        mapped = pa.memory_map(path)
    except OSError as e:
        raise WriterDied(f"the builder's table file went away: {e}") from e
    os.unlink(path)
    return pa.ipc.open_file(mapped).read_all()


def _read_stream(source: IO[bytes]) -> pa.Table:
    """The table of the Arrow IPC stream `source` holds next, read up to the stream's end."""
    import pyarrow as pa

    try:
        return pa.ipc.open_stream(pa.PythonFile(source, mode="r")).read_all()
    except (pa.ArrowInvalid, OSError, EOFError) as e:  # cut short (Arrow says it either way)
        raise WriterDied("the builder went away in the middle of a table") from e


def _raise_answer(answer: dict) -> None:
    """Raise what the child raised: a built-in exception as its type (an OSError with its
    errno), CorruptIndex as such, anything else (Kùzu's) as a RuntimeError of its text."""
    kind, text = answer.get("error"), answer.get("message", "")
    if kind == CorruptIndex.__name__:
        cause = answer.get("cause")  # Kùzu's error under it, which storage_errors reads
        raise CorruptIndex(text) from (RuntimeError(cause) if cause else None)
    cls = getattr(builtins, str(kind), None)
    if isinstance(cls, type) and issubclass(cls, OSError) and answer.get("errno"):
        raise cls(answer["errno"], answer.get("strerror") or text, answer.get("filename"))
    if isinstance(cls, type) and issubclass(cls, Exception):
        raise cls(text)
    raise RuntimeError(text)


def write_generation(gen: layout.Generation, tables: Iterable[tuple[str, pa.Table]],
                     meta: dict[str, Any], buffer_pool: int, *,
                     writer: Prestarted | None = None) -> dict[str, int]:  # fmt: skip
    """Create `gen`'s database: the schema, each table by COPY (in the order given), then
    Meta = `meta`; checkpointed. Returns its row counts. `writer`: a `prestart`ed writer
    (taken over: it is waited for here), else a fresh interpreter is started now."""
    if writer is not None:
        return writer.write(gen, tables, meta, buffer_pool)
    with tempfile.TemporaryFile() as err:  # what Kùzu prints as it aborts: not for the user
        proc = subprocess.Popen(
            [sys.executable, "-m", __name__, str(gen.path), str(gen.number), str(buffer_pool)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
            cwd=gen.path,  # not the caller's folder: `-m` would import a checkout found there
            env=WRITER_ENV | os.environ,
        )  # fmt: skip
        try:
            _grow_pipe(proc.stdin.fileno())
            line = _feed(proc.stdin, proc.stdout, tables, meta)
            proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            proc.stdout.close()
        return _rows(line, proc.returncode, err)


def _answer_of(line: bytes) -> dict:
    """The writer's answer a line holds ({} when it holds none)"""
    try:
        answer = json.loads(line)
    except ValueError:
        return {}
    return answer if isinstance(answer, dict) else {}


def _answered(line: bytes) -> bool:
    answer = _answer_of(line)
    return "rows" in answer or "error" in answer


def _answered_rows(line: bytes) -> bool:
    return "rows" in _answer_of(line)


def _rows(line: bytes, status: int | None, err: IO[bytes]) -> dict[str, int]:
    """The row counts the writer answered, or what it raised raised here."""
    err.seek(0)
    said = err.read().decode("utf-8", "replace").strip().splitlines()
    if not line:
        last = f": {said[-1]}" if said else ""
        raise WriterDied(f"the database writer exited without an answer (status "
                         f"{status}){last}")  # fmt: skip
    answer = json.loads(line)
    if "rows" not in answer:
        _raise_answer(answer)
    return {k: int(v) for k, v in answer["rows"].items()}


@dataclass
class Prestarted:
    """A writer forked by `prestart`, waiting for its generation; `write` or `cancel` it."""

    pid: int
    to_child: IO[bytes]
    from_child: IO[bytes]
    err: IO[bytes]  # the child's stderr
    begun: layout.Generation | None = None  # named to the child by `begin`

    def begin(self, gen: layout.Generation, buffer_pool: int) -> None:
        """Name the generation to the child now: it creates the database and its schema
        while the caller makes the tables (then `write` them, to the same generation)."""
        self.begun = gen
        with contextlib.suppress(BrokenPipeError):  # the writer died: `write` says why
            self.to_child.write(_head(gen, buffer_pool))
            self.to_child.flush()

    def send(self, tables: Iterable[tuple[str, pa.Table]]) -> None:
        """Send the first tables of the coming `write` now, after `begin`: the child COPYs
        them while the caller makes the rest (and Meta)."""
        if self.begun is None:
            raise ValueError("send before begin: the writer does not know its generation")
        with contextlib.suppress(BrokenPipeError):  # the writer died: `write` says why
            for name, table in tables:
                _send_table(self.to_child, name, table, self.begun.path)
            self.to_child.flush()

    def write(self, gen: layout.Generation, tables: Iterable[tuple[str, pa.Table]],
              meta: dict[str, Any], buffer_pool: int) -> dict[str, int]:  # fmt: skip
        try:
            if self.begun is not None and self.begun != gen:
                raise ValueError(f"the writer was begun for {self.begun}, not {gen}")
            head = None if self.begun is not None else _head(gen, buffer_pool)
            line = _feed(self.to_child, self.from_child, tables, meta, head)
            # an answer with the rows: the child is past its database (closed) and only exits
            # now, its memory freed by the kernel (~10-20 ms on Django): not waited for here,
            # on the build's serial end, but reaped by `cancel` (the build's scope ends so)
            status = None if _answered_rows(line) else self._reap()
            if status is None:
                self._close_pipes()
        except BaseException:
            self.cancel()
            raise
        return _rows(line, status, self.err)

    def _close_pipes(self) -> None:
        for f in (self.to_child, self.from_child):
            with contextlib.suppress(OSError):
                f.close()

    def _reap(self) -> int | None:
        pid, self.pid = self.pid, 0
        self._close_pipes()
        if not pid:
            return None
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)

    def cancel(self) -> None:
        """Stop the writer if it is still there (the build failed, or wrote no database) and
        reap it (also once it answered: `write` leaves it to exit)."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()
        self.err.close()


def import_writer_modules() -> None:
    """Import what a prestarted writer uses, so that the child shares them (see `prestart`)."""
    import pyarrow.ipc  # noqa: F401 - the child reads the tables with it: imported once, here

    from codeimpact.graph import store  # noqa: F401 - Kùzu's (imported by its Writer), likewise


def prestart(after_fork: Callable[[int], None]) -> Prestarted:
    """A writer forked now (see the module docstring): call it while this process is small
    and runs no other thread. `after_fork(parent_pid)` runs first in the child (the
    builder's lifeline: the writer dies with it)."""
    import_writer_modules()
    down_r, down_w = os.pipe()
    up_r, up_w = os.pipe()
    err = tempfile.TemporaryFile()  # noqa: SIM115 - closed by Prestarted.cancel
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the builder's code
        try:
            after_fork(parent)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the builder handles Ctrl-C
            os.dup2(err.fileno(), 2)
            os.dup2(down_r, 0)
            os.dup2(up_w, 1)
            # every other descriptor is the builder's (its lock file, its workers' pipes)
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            _prestarted_child(os.fdopen(0, "rb"), os.fdopen(1, "wb"))
        finally:
            os._exit(1)  # what _prestarted_child did not end: never back into the builder
    os.close(down_r)
    os.close(up_w)
    _grow_pipe(down_w)
    return Prestarted(pid, os.fdopen(down_w, "wb"), os.fdopen(up_r, "rb"), err)


# Bytes the pipe to the writer holds (grown where the system lets it: Linux's default most
# for an unprivileged process, /proc/sys/fs/pipe-max-size, is 1 MB). With the default 64 KB,
# every table sent waited for the writer to read it: the File table (280 KB on Django) sent
# at `begin` held the builder until the writer, just woken, started its reading thread, and
# Symbol's 14 MB went in ~220 rounds between the two processes, each one a wait for the
# other's GIL and a wake-up.
PIPE_BYTES = 1 << 20


def _grow_pipe(fd: int) -> None:
    grow = getattr(fcntl, "F_SETPIPE_SZ", None)  # (Linux only)
    if grow is not None:
        with contextlib.suppress(OSError):  # over the system's or the user's limit: as it is
            fcntl.fcntl(fd, grow, PIPE_BYTES)


def _keep_freed_memory() -> None:
    """This process's C allocator keeps up to KEEP_FREED bytes freed at the top of its heap
    for the next allocations (glibc's M_TOP_PAD; elsewhere nothing). Kùzu's COPYs allocate
    and free large blocks over and over: with glibc's default (128 KB) every block freed at
    the top went back to the system and the next one came as fresh pages, each a page
    fault (Django's full build: the writer's 45.7K faults -> 40.9K, its Symbol COPY's 18.2K
    -> 13.5K; replayed on the same tables alone, 34.7K -> 28.6K at the same high-water
    mark). The writer's own process only (a forked child or its own interpreter): never the
    builder, which may be a library caller's."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_TOP_PAD, KEEP_FREED)


M_TOP_PAD = -2  # (glibc's malloc.h)
KEEP_FREED = 64 << 20


def _prestarted_child(source: IO[bytes], out: IO[bytes]) -> None:
    _keep_freed_memory()
    line = source.readline()
    if not line:
        os._exit(0)  # cancelled: the builder wrote no database
    head = json.loads(line)
    gen = layout.Generation(int(head["number"]), Path(head["folder"]))
    _run(gen, int(head["buffer_pool"]), source, out, PRESTARTED_THREADS)


def _head(gen: layout.Generation, buffer_pool: int) -> bytes:
    """The first line to a prestarted writer: the generation it writes."""
    head = {"folder": str(gen.path), "number": gen.number, "buffer_pool": buffer_pool}
    return json.dumps(head).encode() + b"\n"


def _send_table(to_child: IO[bytes], name: str, table: pa.Table,
                folder: Path | None = None) -> None:  # fmt: skip
    """The line naming the table, then the table: through the pipe, or (`folder`) as a file
    there that the writer maps."""
    if folder is None:
        to_child.write(json.dumps({"table": name}).encode() + b"\n")
        _write_stream(to_child, table)
        return
    path = _write_file(folder, name, table)
    to_child.write(json.dumps({"table": name, "file": path}).encode() + b"\n")


def _feed(to_child: IO[bytes], from_child: IO[bytes], tables: Iterable[tuple[str, pa.Table]],
          meta: dict[str, Any], head: bytes | None = None) -> bytes:  # fmt: skip
    """Send the tables and meta (after `head`, a prestarted writer's generation) to the
    writer; returns its answer line (b"": none)."""
    try:
        if head is not None:
            to_child.write(head)
        for name, table in tables:
            _send_table(to_child, name, table)
            del table
        to_child.write(json.dumps({"meta": meta}).encode() + b"\n")
    except BrokenPipeError:
        pass  # the writer failed (or died): its answer says why
    with contextlib.suppress(BrokenPipeError):
        to_child.close()
    # the answer is the last line: read up to it, not to the end of the pipe (its end comes
    # once the writer's exit has freed its memory, ~10-20 ms after the answer on Django)
    said = b""
    for line in iter(from_child.readline, b""):
        if line.strip():
            said = line.strip()
            if _answered(said):
                break
    return said


# ------------------------------------------------------------------------- the child
class _ReadAhead:
    """What the builder sends, read from `source` by a thread while Kùzu COPYs the tables
    read before (a statement leaves the GIL): the builder, which would otherwise wait on a
    full pipe until the COPY before ends, makes and sends the next tables meanwhile, and the
    COPYs follow one another without waiting for a table to be made and read (Django:
    ~0.1-0.17 s of such waits between the COPYs, on the build's serial end). The tables read
    and not yet COPYed hold at most `limit` bytes before the next one is read, the one being
    COPYed counted: a table larger than that (a large tree's) is read once the COPY before
    it ended, as without a thread. Taking the next table (`next`) says the one taken before
    is COPYed (and no longer referenced)."""

    def __init__(self, source: IO[bytes], limit: int) -> None:
        self._source, self._limit = source, limit
        self._ready: collections.deque = collections.deque()
        self._held = 0  # bytes of the tables read and not yet COPYed
        self._taken = 0  # those of the table `next` gave last
        self._cv = threading.Condition()
        threading.Thread(target=self._read, name="codeimpact-read-ahead", daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                with self._cv:
                    self._cv.wait_for(lambda: self._held < self._limit)
                line = self._source.readline()
                if not line:
                    raise WriterDied("the builder went away before the end of the tables")
                head = json.loads(line)
                if "meta" in head:
                    self._put(("meta", head["meta"], 0))
                    return
                table = _map_file(head["file"]) if "file" in head else _read_stream(self._source)
                self._put((head["table"], table, table.nbytes))
        except BaseException as e:  # raised by `next` in the writer's main thread
            self._put((None, e, 0))

    def _put(self, item: tuple) -> None:
        with self._cv:
            self._ready.append(item)
            self._held += item[2]
            self._cv.notify_all()

    def next(self) -> tuple[str, Any]:
        """(table name, table) or ("meta", meta), in the order sent; raises what reading
        raised. The table taken before is done with: the next may be read in its place."""
        with self._cv:
            self._held -= self._taken
            self._cv.notify_all()
            self._cv.wait_for(lambda: bool(self._ready))
            name, value, self._taken = self._ready.popleft()
        if name is None:
            raise value
        return name, value


# Bytes of Arrow tables the writer reads ahead of its COPYs (`_ReadAhead`): one table or two
# beyond the one being COPYed on Django (its largest, CALLS, is 16 MB). The tables read ahead
# are memory of the build's end, when the writer, the builder and the sidecar writer are all
# alive: all of Django's (48 MB) read at once made it the build's peak (PSS 377 -> 380 MB).
READ_AHEAD_BYTES = 16 << 20


def _serve(gen: layout.Generation, buffer_pool: int, source: IO[bytes],
           threads: int) -> dict[str, int]:  # fmt: skip
    from codeimpact.graph.store import Writer

    # reading from the start: the builder's first tables never wait for Kùzu's start
    sent = _ReadAhead(source, READ_AHEAD_BYTES)
    w = Writer(gen, buffer_pool, threads)
    try:
        w.begin()  # the schema, the tables and Meta: one transaction, one checkpoint
        w.create_schema()
        while True:
            name, value = sent.next()
            if name == "meta":
                w.copy_meta(value)
                rows = w.checkpoint(read_back=False)  # (a new database, COPYs alone)
                w.close()
                return rows
            w.copy(name, value)
            del value  # (freed before the next table is read in its place)
    except BaseException:
        # never freed: Kùzu 0.11's destructor of a failed write can spin for ever in
        # rollbackCheckpoint (seen with a full disk) or abort (store.Writer.abandon)
        w.abandon()
        raise


def _run(gen: layout.Generation, buffer_pool: int, source: IO[bytes], out: IO[bytes],
         threads: int = 0) -> None:  # fmt: skip
    """Write `gen` from `source` with Kùzu on `threads` threads (0: one per core), answer
    on `out`, and end the process here: no destructor of a failed write runs (see
    `_serve`)."""
    try:
        rows = _serve(gen, buffer_pool, source, threads)
    except BaseException as e:  # everything goes to the parent, which raises it
        answer = {"error": type(e).__name__, "message": str(e)}
        if e.__cause__ is not None:
            answer["cause"] = str(e.__cause__)
        if isinstance(e, OSError) and e.errno:
            answer.update(errno=e.errno, strerror=e.strerror,
                          filename=None if e.filename is None else str(e.filename))  # fmt: skip
        _answer(out, answer, 1)  # inside the handler: the failed write's objects are still held
    _answer(out, {"rows": rows}, 0)


def _answer(out: IO[bytes], answer: dict, code: int) -> None:
    out.write(json.dumps(answer).encode() + b"\n")
    out.flush()
    os._exit(code)


def main(argv: list[str]) -> None:
    _keep_freed_memory()
    folder, number, buffer_pool = argv
    _run(layout.Generation(int(number), Path(folder)), int(buffer_pool), sys.stdin.buffer,
         sys.stdout.buffer)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
