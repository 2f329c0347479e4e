"""What a full build's gathering has taken so far, kept in files instead of memory.

The builder gathers every resolved file's symbol rows and edges while the resolve host and
its workers run, and the tree's memory peaks as the last file comes: on Django the rows
(~11 MB) and edge columns (~5 MB) were the builder's largest share then, and they are read
only once every file is in (`FullGraph.finish`). So they go to two files beside the index
as they grow (the rows as Arrow batches of an IPC stream, the edge columns' bytes one spill
after another), and come back at the end: the rows mapped (no copy), each edge column read
into one buffer with what was gathered since the last spill.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pyarrow as pa


class GatherSpill:
    """Row batches and byte columns moved to files in `folder` (`rows`, `columns`), given
    back by `take_rows` and `take_columns`; `drop` removes the files."""

    def __init__(self, folder: Path, schema: pa.Schema, ncolumns: int) -> None:
        self._folder, self._schema = folder, schema
        self._rows_path: Path | None = None
        self._rows_sink = self._rows_out = None
        self._cols_path: Path | None = None
        self._cols = None
        self._spilled = [0] * ncolumns  # bytes of each column in the file
        self._chunks: list[list[int]] = []  # per spill: each column's length

    def _new_file(self, prefix: str) -> Path:
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=self._folder)
        os.close(fd)
        return Path(name)

    def rows(self, batch: pa.RecordBatch) -> None:
        """`batch` moved to the rows' file (the caller drops its own reference)."""
        if self._rows_out is None:
            self._rows_path = self._new_file("gather-rows-")
            self._rows_sink = pa.OSFile(str(self._rows_path), "wb")
            self._rows_out = pa.ipc.new_stream(self._rows_sink, self._schema)
        self._rows_out.write_batch(batch)

    def columns(self, columns: list[bytearray]) -> None:
        """Each column's bytes appended to the columns' file, the column emptied in place
        (whoever appends to it goes on with the same object)."""
        if self._cols is None:
            self._cols_path = self._new_file("gather-cols-")
            self._cols = open(self._cols_path, "wb")  # noqa: SIM115 - closed by take/drop
        lengths = []
        for i, col in enumerate(columns):
            self._cols.write(col)
            self._spilled[i] += len(col)
            lengths.append(len(col))
            del col[:]
        self._chunks.append(lengths)

    def take_rows(self) -> list[pa.RecordBatch]:
        """Every batch moved so far, in order, mapped from the file (which is removed: the
        mapping keeps its pages)."""
        if self._rows_out is None:
            return []
        self._rows_out.close()
        self._rows_sink.close()
        self._rows_out = None
        source = pa.memory_map(str(self._rows_path))
        self._rows_path.unlink()
        self._rows_path = None
        return pa.ipc.open_stream(source).read_all().to_batches()

    def take_columns(self, columns: list[bytearray]) -> list[bytearray]:
        """Each column whole: its bytes in the file, then those of `columns` (gathered since
        the last spill), in a new buffer; the file is removed."""
        if self._cols is None:
            return columns
        self._cols.close()
        self._cols = None
        out = [bytearray(n + len(col)) for n, col in zip(self._spilled, columns)]
        at = [0] * len(out)
        with open(self._cols_path, "rb") as f:
            for lengths in self._chunks:
                for i, n in enumerate(lengths):
                    with memoryview(out[i]) as whole, whole[at[i] : at[i] + n] as view:
                        if f.readinto(view) != n:
                            raise OSError(f"{self._cols_path} is shorter than was written")
                    at[i] += n
        for i, col in enumerate(columns):
            out[i][at[i] :] = col
        self.drop()
        return out

    def drop(self) -> None:
        """Close and remove the files (the run failed, or they were taken back)."""
        for f in (self._rows_out, self._rows_sink, self._cols):
            if f is not None:
                f.close()
        self._rows_out = self._rows_sink = self._cols = None
        for path in (self._rows_path, self._cols_path):
            if path is not None:
                path.unlink(missing_ok=True)
        self._rows_path = self._cols_path = None
