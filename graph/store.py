"""Reading and writing the Kùzu database of one index generation."""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codeimpact.graph import layout, manifest
from codeimpact.graph.errors import CorruptIndex, SchemaMismatch
from codeimpact.graph.meta_files import META_FILES, meta_from_files, meta_to_files
from codeimpact.graph.schema import NODE_TABLES, REL_TABLES, SCHEMA_VERSION, ddl

if TYPE_CHECKING:  # only annotations: importing pyarrow costs every query ~0.3 s
    import kuzu
    import pyarrow as pa


def kuzu_module():
    """Kùzu, imported when a database is first opened, not with this module: its import
    is no part of an edit's main process, which hands the database to its writer child.

    kuzu/__init__ imports its AsyncConnection, and with it asyncio, concurrent.futures and
    ssl: 23 of the 29 ms of CPU the import cost a forked writer (median of 15), in every
    process that opens a database (an edit's writer, on the critical path of a small edit;
    the spare's leveller; a full build's writer; each query). Nothing here uses it, so while
    kuzu is imported `kuzu.async_connection` is a placeholder whose AsyncConnection imports
    the real module when first used; `import kuzu.async_connection` after it is the real one."""
    kuzu = sys.modules.get("kuzu")
    if kuzu is not None:
        return kuzu
    name = "kuzu.async_connection"
    placeholder = None
    if name not in sys.modules:
        placeholder = types.ModuleType(name)
        placeholder.AsyncConnection = _AsyncConnection  # type: ignore[attr-defined]
        sys.modules[name] = placeholder
    try:
        import kuzu
    finally:
        if placeholder is not None and sys.modules.get(name) is placeholder:
            del sys.modules[name]
    return kuzu


def _real_async_connection() -> type:
    return importlib.import_module("kuzu.async_connection").AsyncConnection


class _AsyncConnectionType(type):
    """`kuzu.AsyncConnection` stands for the real class: instances, isinstance, attributes."""

    def __call__(cls, *args, **kwargs):
        return _real_async_connection()(*args, **kwargs)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _real_async_connection())

    def __getattr__(cls, attr: str):
        return getattr(_real_async_connection(), attr)


class _AsyncConnection(metaclass=_AsyncConnectionType):
    """kuzu.AsyncConnection until its module is imported (see `kuzu_module`)."""


DEFAULT_BUFFER_POOL = 512 * 1024 * 1024
READ_BUFFER_POOL = 256 * 1024 * 1024


def _open(path: Path, *, read_only: bool, buffer_pool: int, threads: int = 0) -> kuzu.Database:
    try:
        # a reader never checkpoints: in read-only mode a CHECKPOINT writes shadow pages
        # that make the database unopenable read-only (queries cannot reach one either:
        # query/cypher_guard.py refuses it)
        return kuzu_module().Database(
            str(path),
            read_only=read_only,
            buffer_pool_size=buffer_pool,
            auto_checkpoint=not read_only,
            max_num_threads=threads,  # 0: one per core
        )
    except RuntimeError as e:
        repo = path.parents[2]  # <repo>/.codeimpact/gen-N/graph.kz
        if read_only:  # the live generation's: checked whole, yet Kùzu cannot read it
            raise manifest.Damaged(
                repo, [(f"{path.parent.name}/{path.name}", str(e).splitlines()[0])]
            ) from e
        raise CorruptIndex(
            f"cannot write the index database {path}: {str(e).splitlines()[0]}"
        ) from e


# The tables whose row counts a generation records (Meta is not counted: its keys vary).
COUNTED_TABLES = [t for t in NODE_TABLES if t != "Meta"] + list(REL_TABLES)


def count_rows(conn: kuzu.Connection) -> dict[str, int]:
    """Rows per table, as Kùzu counts them (the node tables from their statistics, the
    relationship tables from their CSR headers: ~10 ms on Django's 170K edges)."""
    out = {}
    for table in COUNTED_TABLES:
        pattern = f"(n:{table})" if table in NODE_TABLES else f"()-[n:{table}]->()"
        res = conn.execute(f"MATCH {pattern} RETURN count(*)")
        out[table] = int(res.get_next()[0])
    return out


def copied_rows(said: kuzu.QueryResult) -> int | None:
    """The rows a COPY's answer says it wrote ("N tuples have been copied to the T table."),
    None when it says it otherwise."""
    first = said.get_next()[0] if said.has_next() else ""
    count, _, rest = str(first).partition(" ")
    return int(count) if count.isdigit() and rest.startswith("tuples have been copied") else None


def count_mismatches(counts: dict[str, int], expected: dict[str, int]) -> list[str]:
    """ "CALLS 0 of 90983" for each table whose count differs from the expected one."""
    return [
        f"{t} {counts.get(t, 0)} of {expected.get(t, 0)}"
        for t in COUNTED_TABLES
        if counts.get(t, 0) != expected.get(t, 0)
    ]


def write_meta(conn: kuzu.Connection, folder: Path, meta: dict[str, Any]) -> None:
    """Meta = `meta` (the META_FILES values go to files of `folder`)."""
    meta = meta_to_files(folder, meta)
    # one statement for every key: a statement each cost a millisecond apiece
    rows = [{"k": key, "v": json.dumps(value, sort_keys=True)} for key, value in meta.items()]
    if rows:
        conn.execute(
            "UNWIND $rows AS r MERGE (m:Meta {key: r.k}) SET m.value = r.v", {"rows": rows}
        )


# A transaction of the full write (`Writer.begin`) commits before its COPYs' Arrow tables
# would pass this share of the buffer pool: until its COMMIT, Kùzu holds in the pool what
# they wrote (a 4x Django tree that wrote with a 96 MB pool a COPY per transaction needed
# 160 MB in one). Django's ~45 MB of tables are one transaction under the default 512 MB
# pool; a table larger than the share is a transaction of its own, as a COPY was before.
TRANSACTION_POOL_SHARE = 4


class Writer:
    """A writable connection to a new generation's database.

    Use it as a context manager: it checkpoints and closes the database when the block
    ends normally, and abandons it when the block raised (see `abandon`)."""

    def __init__(self, gen: layout.Generation, buffer_pool: int = DEFAULT_BUFFER_POOL,
                 threads: int = 0):  # fmt: skip
        self.gen = gen
        self.db = _open(gen.db_path, read_only=False, buffer_pool=buffer_pool, threads=threads)
        self.conn = kuzu_module().Connection(self.db)
        # nothing written since the last CHECKPOINT (`checkpoint`): `close` checkpoints no
        # more (~4 ms on Django, the same file: it finds an empty WAL)
        self._checkpointed = False
        self._in_transaction = False  # `begin` opened one, `checkpoint` commits it
        # the Arrow bytes the open transaction's COPYs took (see `copy`), and their bound
        self._pinned = 0
        self._pin_limit = buffer_pool // TRANSACTION_POOL_SHARE
        # rows per table as the COPYs said they wrote them (each checked against the Arrow
        # table it took); None once a statement changed rows without saying how many
        self._copied: dict[str, int] | None = {}

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abandon()

    def begin(self) -> None:
        """Write what follows in one transaction, up to `checkpoint`. Kùzu 0.11 checkpoints
        at the end of every COPY's own transaction (auto_checkpoint or not): in one
        transaction the COPYs are checkpointed once, at its COMMIT, and a relation's COPY
        finds its endpoints' keys in the node tables' in-memory indexes (Django's full write:
        -380 M instructions of ~5.4 G, the same database). A transaction holds what its
        COPYs wrote in the buffer pool until its COMMIT, so `copy` commits and begins again
        before the pool could fill (see TRANSACTION_POOL_SHARE)."""
        self.conn.execute("BEGIN TRANSACTION")
        self._in_transaction = True
        self._pinned = 0

    def create_schema(self) -> None:
        for stmt in ddl():
            self.conn.execute(stmt)

    def copy(self, name: str, arrow_rows) -> None:
        """COPY one Arrow table into `name` (node tables before the relations that use them)."""
        if name in NODE_TABLES:
            expected = [c for c, _ in NODE_TABLES[name]]
        else:
            expected = ["from", "to", *[c for c, _ in REL_TABLES[name][2]]]
        _check_columns(name, arrow_rows, expected)
        self._checkpointed = False
        if arrow_rows.num_rows:
            size = arrow_rows.nbytes
            if self._in_transaction and self._pinned and self._pinned + size > self._pin_limit:
                self.conn.execute("COMMIT")  # (a checkpoint: a COPY forces it)
                self.conn.execute("BEGIN TRANSACTION")
                self._pinned = 0
            self._pinned += size
            # Kùzu's COPY scans a Python variable by name from the calling frame.
            said = self.conn.execute(f"COPY {name} FROM arrow_rows")
            self._count_copied(name, said, arrow_rows.num_rows)

    def _count_copied(self, name: str, said: kuzu.QueryResult, sent: int) -> None:
        """Add the rows a COPY of `sent` rows into `name` says it wrote (CorruptIndex if
        they differ); a COPY whose answer has no count leaves the counts to the read-back."""
        copied = copied_rows(said)
        if copied is None:
            self._copied = None
        elif copied != sent:
            raise CorruptIndex(f"{name}: Kùzu's COPY wrote {copied} of the {sent} rows sent")
        elif self._copied is not None:
            self._copied[name] = self._copied.get(name, 0) + copied

    def write_meta(self, meta: dict[str, Any]) -> None:
        self._checkpointed = False
        write_meta(self.conn, self.gen.path, meta)

    def copy_meta(self, meta: dict[str, Any]) -> None:
        """Meta = `meta` in a database whose Meta table is still empty (a new generation's):
        one COPY, where `write_meta`'s MERGE of every key cost ~3x more on the serial end of a
        full build (Django: 12 -> 5 ms of the writer's CPU, the files included)."""
        from codeimpact.graph.arrow import arrow_table

        rest = meta_to_files(self.gen.path, meta)
        rows = [(key, json.dumps(value, sort_keys=True)) for key, value in rest.items()]
        self.copy("Meta", arrow_table(NODE_TABLES["Meta"], rows))

    def execute(self, query: str, params: dict | None = None):
        self._checkpointed = False
        self._copied = None  # (rows it may have changed: counted by the read-back)
        return self.conn.execute(query, params or {})

    def checkpoint(self, read_back: bool = True) -> dict[str, int]:
        """Write everything to the database file; returns the row counts it then holds: read
        back from it, or (`read_back=False`, a new database written by COPYs alone) the rows
        the COPYs wrote, each checked as it was written. The read-back (~14 ms on Django,
        on a full build's serial end) checks the checkpoint too: without it, a database's
        rows are read back by a reader that had to hash its file (check_rows)."""
        if self._in_transaction:
            self._in_transaction = False
            self.conn.execute("COMMIT")
        # a COMMIT after a COPY checkpointed (Kùzu forces it) and left no WAL: a CHECKPOINT
        # then only syncs the same file again (3 fdatasyncs, ~6 M instructions)
        if os.path.exists(str(self.gen.db_path) + ".wal"):
            self.conn.execute("CHECKPOINT")
        if read_back or self._copied is None:
            rows = count_rows(self.conn)  # reads: the database stays checkpointed
        else:
            rows = {t: self._copied.get(t, 0) for t in COUNTED_TABLES}
        self._checkpointed = True
        return rows

    def close(self) -> None:
        try:
            if not self._checkpointed:
                self.conn.execute("CHECKPOINT")
            # Kùzu 0.11 checkpoints again as the database closes, with nothing to write: it
            # rewrote the file's header page (the database id) and synced the database, its
            # WAL and shadow files (5 fdatasyncs, which only cost when the disk is busy:
            # Django's close 44 -> 26 ms at load ~6, 24 ms either way when quiet).
            # Checkpointed, the file is final: closing leaves it as is.
            self.conn.execute("CALL force_checkpoint_on_close=false")
        except BaseException:
            self.abandon()
            raise
        self.conn.close()
        self.db.close()

    def abandon(self) -> None:
        """Leave the database of a failed write unclosed, for the rest of the process.

        When Kùzu 0.11 cannot write the rollback of a failed write (a full disk), closing
        the connection, or its destructor, throws from C++ and aborts the whole process.
        The generation is thrown away anyway, so its Kùzu objects are kept alive (a
        reference that is never dropped: not even the interpreter's exit frees them) and
        the open files go with the process; the console script ends with os._exit."""
        import ctypes  # (here: an edit's run imports it for nothing otherwise, ~2 ms)

        for obj in (self.conn, self.db):
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def _check_columns(name: str, table: pa.Table, expected: list[str]) -> None:
    if table.column_names != expected:
        raise ValueError(f"{name}: columns {table.column_names} != schema {expected}")


# What a query reads of a generation: checked against the manifest before Kùzu opens it.
# (the database's WAL holds the deltas of incremental runs: graph/wal_store.py)
QUERY_FILES = manifest.in_generation([layout.DB_FILENAME, layout.DB_FILENAME + ".wal", "csr/",
                                      "unresolved.bin", *META_FILES.values()])  # fmt: skip


_DB_NAMES = ("/" + layout.DB_FILENAME, "/" + layout.DB_FILENAME + ".wal")  # its WAL too


def check_generation(repo: Path, gen: layout.Generation, found: manifest.Manifest | None = None,
                     known: dict[str, list[int]] | None = None,
                     ) -> tuple[manifest.Manifest, manifest.Check]:  # fmt: skip
    """The generation's manifest (`found`: already loaded) once the files queries read match
    it (stamped files by their stat, the others by checksum); raises Damaged."""
    found = found or manifest.load(gen.path, gen.manifest, gen.number)
    check = manifest.verify(gen.path, found, QUERY_FILES, known=known)
    if check.damage:
        raise manifest.Damaged(repo, check.damage)
    return found, check


def check_rows(repo: Path, gen: layout.Generation, conn: kuzu.Connection,
               found: manifest.Manifest) -> None:  # fmt: skip
    """Damaged unless the database holds the rows its writer counted."""
    lost = count_mismatches(count_rows(conn), found.rows)
    if lost:
        raise manifest.Damaged(
            repo, [(f"{gen.path.name}/{layout.DB_FILENAME}", "rows: " + ", ".join(lost))]
        )


class Reader:
    """A read-only view of the live generation; checks its files and the schema version on
    open (a database whose checksum had to be computed again has its row counts checked
    too: one that still matches the writer's stamp holds the rows the writer counted).

    Each thread queries through a connection of its own (`conn`): queries on one Kùzu
    connection run one at a time, those on different connections to the same database
    side by side (the MCP server's tools run in worker threads).
    """

    def __init__(self, repo: Path, buffer_pool: int = READ_BUFFER_POOL):
        self.repo = repo
        self._local = threading.local()
        self._conns: list[kuzu.Connection] = []
        self._conns_lock = threading.Lock()
        # the pin keeps a concurrent publish from deleting this generation while we read it
        self.gen, self._pin = layout.pin_current(layout.index_dir(repo))
        try:
            self.manifest, check = check_generation(repo, self.gen)
            self.db = _open(self.gen.db_path, read_only=True, buffer_pool=buffer_pool)
        except BaseException:
            self._pin.release()
            raise
        # the files this reader hashed and found whole: trusted by `recheck` while unchanged
        self._known = check.verified
        if any(n.endswith(_DB_NAMES) for n in check.hashed):
            try:
                check_rows(repo, self.gen, self.conn, self.manifest)
            except BaseException:
                self.close()
                raise
        try:
            self.meta = self._read_meta()
        except RuntimeError as e:
            self.close()
            raise CorruptIndex(
                f"the index at {repo} is unreadable ({str(e).splitlines()[0]}): "
                f"run `graph analyze --force {repo}`"
            ) from e
        version = self.meta.get("schema_version")
        if version != SCHEMA_VERSION:
            self.close()
            raise SchemaMismatch(
                f"the index at {repo} has schema version {version}, this codeimpact reads "
                f"version {SCHEMA_VERSION}: run `graph analyze --force {repo}`"
            )

    def recheck(self) -> None:
        """Damaged if a file queries read no longer matches the manifest: for a reader kept
        open (the MCP server) while something writes into the index folder. A file whose
        stat is still the stamped one costs a stat (~0.1 ms in all); one hashed whole again
        keeps the rows it had, so they are not counted again."""
        _, check = check_generation(self.repo, self.gen, self.manifest, self._known)
        self._known.update(check.verified)

    def _read_meta(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        res = self.conn.execute("MATCH (m:Meta) RETURN m.key, m.value")
        while res.has_next():
            key, value = res.get_next()
            try:
                out[key] = json.loads(value)
            except (TypeError, ValueError):
                out[key] = value
        return {**out, **meta_from_files(self.gen.path)}  # a file wins: Meta may hold an old value

    @property
    def conn(self) -> kuzu.Connection:
        """This thread's connection to the database, made on its first query."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = kuzu_module().Connection(self.db)
            with self._conns_lock:
                self._conns.append(conn)
            self._local.conn = conn
        return conn

    def query(self, query: str, params: dict | None = None) -> tuple[list[str], list[list]]:
        res = self.conn.execute(query, params or {})
        columns = res.get_column_names()
        rows = []
        while res.has_next():
            rows.append(res.get_next())
        return columns, rows

    def close(self) -> None:
        try:
            with self._conns_lock:
                conns, self._conns = self._conns, []
            for conn in conns:
                conn.close()
            self.db.close()
        except RuntimeError:
            pass
        self._pin.release()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
