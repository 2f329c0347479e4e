"""A full build's database written by a process of its own.

Kùzu's COPY of Django's graph takes 130-170 MB beside what it writes (its hash indexes,
per-thread buffers: a buffer pool of 64 MB instead of 512 changes nothing), and the
building process holds ~300 MB by then (the imports, every file's facts, the resolvers and
the resolved graph): 476 MB at its peak. So the tables go, as Arrow IPC streams through a
pipe, to a fresh interpreter that holds only Kùzu and the table it copies (~230 MB at its
peak): the builder's peak is its own ~310 MB. It costs a start-up (~0.2 s of CPU, while
the builder prepares the first tables) and a copy of ~40 MB through the pipe.

The child is the parent's: its stdin is the parent's pipe, so it ends when the parent dies
(the next read sees the end of the pipe) and it is in the parent's process group (a
killed analyze takes it along). What it raised is sent back and raised again here, the
same type with the same text (storage_errors reads Kùzu's message; an OSError keeps its
errno).

Protocol, parent to child: per table a line `{"table": name, "bytes": n}` and n bytes of an
Arrow IPC stream; then a line `{"meta": ...}`. Child to parent, at the end: one line, `{"rows":
{table: count}}` or `{"error": type, "errno": n, "message": text}`.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codeimpact.graph import layout
from codeimpact.graph.errors import CorruptIndex

if TYPE_CHECKING:
    import pyarrow as pa


class WriterDied(RuntimeError):
    """The writer process ended without an answer (killed, or a crash in native code)."""


def _ipc_bytes(table: pa.Table):
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as out:
        out.write_table(table)
    return sink.getvalue()


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
                     meta: dict[str, Any], buffer_pool: int) -> dict[str, int]:  # fmt: skip
    """Create `gen`'s database: the schema, each table by COPY (in the order given), then
    Meta = `meta`; checkpointed. Returns its row counts."""
    with tempfile.TemporaryFile() as err:  # what Kùzu prints as it aborts: not for the user
        proc = subprocess.Popen(
            [sys.executable, "-m", __name__, str(gen.path), str(gen.number), str(buffer_pool)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
            cwd=gen.path,  # not the caller's folder: `-m` would import a checkout found there
        )  # fmt: skip
        try:
            line = _feed(proc, tables, meta)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            proc.stdout.close()
        err.seek(0)
        said = err.read().decode("utf-8", "replace").strip().splitlines()
    if not line:
        last = f": {said[-1]}" if said else ""
        raise WriterDied(f"the database writer exited without an answer (status "
                         f"{proc.returncode}){last}")  # fmt: skip
    answer = json.loads(line)
    if "rows" not in answer:
        _raise_answer(answer)
    return {k: int(v) for k, v in answer["rows"].items()}


def _feed(proc: subprocess.Popen, tables: Iterable[tuple[str, pa.Table]],
          meta: dict[str, Any]) -> bytes:  # fmt: skip
    """Send the tables and meta to the writer; returns its answer line (b"": none)."""
    try:
        for name, table in tables:
            data = _ipc_bytes(table)
            del table
            proc.stdin.write(json.dumps({"table": name, "bytes": data.size}).encode() + b"\n")
            proc.stdin.write(memoryview(data))
            del data
        proc.stdin.write(json.dumps({"meta": meta}).encode() + b"\n")
    except BrokenPipeError:
        pass  # the writer failed (or died): its answer says why
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.close()
    said = proc.stdout.read().strip().splitlines()  # the answer is the last line
    proc.wait()
    return said[-1] if said else b""


# ------------------------------------------------------------------------- the child
def _serve(gen: layout.Generation, buffer_pool: int) -> dict[str, int]:
    import pyarrow as pa

    from codeimpact.graph.store import Writer

    source = sys.stdin.buffer
    w = Writer(gen, buffer_pool)
    try:
        w.create_schema()
        while True:
            line = source.readline()
            if not line:
                raise WriterDied("the builder went away before the end of the tables")
            head = json.loads(line)
            if "meta" in head:
                w.write_meta(head["meta"])
                rows = w.checkpoint()
                w.close()
                return rows
            data = source.read(head["bytes"])
            if len(data) != head["bytes"]:
                raise WriterDied("the builder went away in the middle of a table")
            w.copy(head["table"], pa.ipc.open_stream(pa.py_buffer(data)).read_all())
            del data
    except BaseException:
        # never freed: Kùzu 0.11's destructor of a failed write can spin for ever in
        # rollbackCheckpoint (seen with a full disk) or abort (store.Writer.abandon)
        w.abandon()
        raise


def _answer(answer: dict, code: int) -> None:
    """Send the answer and end here: no destructor runs (see `_serve`)."""
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    os._exit(code)


def main(argv: list[str]) -> None:
    folder, number, buffer_pool = argv
    try:
        rows = _serve(layout.Generation(int(number), Path(folder)), int(buffer_pool))
    except BaseException as e:  # everything goes to the parent, which raises it
        answer = {"error": type(e).__name__, "message": str(e)}
        if e.__cause__ is not None:
            answer["cause"] = str(e.__cause__)
        if isinstance(e, OSError) and e.errno:
            answer.update(errno=e.errno, strerror=e.strerror,
                          filename=None if e.filename is None else str(e.filename))  # fmt: skip
        _answer(answer, 1)  # inside the handler: the failed write's objects are still held
    _answer({"rows": rows}, 0)


if __name__ == "__main__":
    main(sys.argv[1:])
