"""Extraction results by language and content hash, for one runner identity: one pack of
blobs and an index.

A run appends the blobs it extracted to the pack and writes the small index once (`flush`)
into the generation folder it publishes. The live generation's index is never rewritten,
nor its pack's prefix: a run that fails (or is killed) after its flush leaves every file
the live generation relies on as it was (the index was rewritten beside the generations: a
run failing after its flush left the live generation "damaged" and the next run full). A
file per blob cost more than it saved: creating three thousand files (and freeing them
again on `--force`) took longer than extracting Django.

The index names the pack it describes and the pack's length when it was written, so bytes
a killed run appended after it are ignored (and cut off by the next run that appends).
Each blob carries an xxh3-64 of its bytes, checked when it is read: a damaged blob is
dropped from the index (and extracted again), and a pack cut short loses only the blobs
past its end. The generation's manifest checks the index (a file of its folder) and the
pack's prefix (`sealed_files`). When most of the pack is blobs of content no file has any
more, `flush` writes the live ones to a new pack and points the index at it; the old pack,
which the live generation names, is deleted by the next run's flush (never before the
publish that replaces it). Only the writer (under the index lock) writes the cache.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import shutil
from pathlib import Path

import xxhash

from codeimpact.graph.errors import CorruptIndex, NoIndex
from codeimpact.graph.layout import atomic_write, read_current, sync_with_publish
from codeimpact.graph.manifest import stat_key

FORMAT = 2  # 2: (offset, length, xxh3-64) per blob


def facts_key(language: str, content_hash: str) -> str:
    """The key a file's facts are cached under. Extraction reads only the language and the
    bytes, so files of one language with the same bytes share a blob; the same bytes in
    another language do not (an empty .js file is no empty .py file: keyed by the hash
    alone, Django's empty vendor/module.js took an empty __init__.py's Python facts)."""
    return f"{language}:{content_hash}"


SLACK = 1 << 20  # dead bytes always tolerated before the pack is rewritten
# The pack's write buffer: with io's 8 KB, Django's 23.6 MB of blobs went out in thousands of
# small writes (each blob of 8 KB or more, 646 of 2,309, in one of its own): 17 -> 10 ms of
# the builder's CPU while the workers extract (Django's blobs written, 3 rounds each)
WRITE_BUFFER = 1 << 20


class FactsCache:
    """`source`: the generation folder whose index is read (None: the live generation's)."""

    def __init__(self, index_dir: Path, identity_digest: str, source: Path | None = None):
        self.idx = index_dir
        self.root = index_dir / "facts"
        self.name = identity_digest[:16]
        self.index_name = f"facts-{self.name}.index"  # in a generation folder
        self._source = source
        self._loaded: Path | None = None  # the index read, when in a generation folder
        self._kept = ""  # the pack the index read names (its generation relies on it)
        self._index: dict[str, tuple[int, int, int]] | None = None
        self._pack = ""  # file name of the pack the index describes
        self._size = 0  # its length as far as the index knows
        self._sealed: dict[str, int] = {}  # the pack's prefix as the last flush (or load) left it
        self._grown: dict[str, tuple[list[int], int]] = {}  # see `grown_files`
        self._reader = None
        self._writer = None
        self._dirty = False  # the index lacks blobs this run added
        self._buffered = False  # the writer holds blobs not yet handed to the file

    # ------------------------------------------------------------------ reading
    def _load(self) -> dict[str, tuple[int, int, int]]:
        if self._index is None:
            try:
                path = self._index_file()
                fmt, pack, size, index = marshal.loads(path.read_bytes())
                if fmt != FORMAT or not isinstance(index, dict) or not isinstance(size, int):
                    raise ValueError("another cache format")
                self._kept = str(pack)
                try:
                    on_disk = (self.root / pack).stat().st_size
                except FileNotFoundError:  # (none written yet, or lost: its blobs are)
                    on_disk = 0
                if on_disk < size:  # cut short: the blobs before the cut are still good
                    index = {h: r for h, r in index.items() if r[0] + r[1] <= on_disk}
                    size = max((r[0] + r[1] for r in index.values()), default=0)
                    self._dirty = True
                self._loaded = path if path.parent != self.root else None
                self._sealed = {pack: size}
            except (OSError, ValueError, EOFError, TypeError, IndexError, AttributeError):
                pack, size, index = f"{self.name}.0.pack", 0, {}
            self._index, self._pack, self._size = index, pack, size
        return self._index

    def _index_file(self) -> Path:
        """The source generation's index; the one beside the packs when it has none (written
        by an older codeimpact: any index is safe to read, each blob carries its digest)."""
        source = self._source
        if source is None:
            try:
                source = read_current(self.idx).path
            except (NoIndex, CorruptIndex):
                source = None
        if source is not None and (source / self.index_name).exists():
            return source / self.index_name
        return self.root / f"{self.name}.index"

    def get(self, content_hash: str) -> bytes | None:
        ref = self._load().get(content_hash)
        if ref is None:
            return None
        try:
            offset, length, digest = ref
        except (TypeError, ValueError):
            offset = length = digest = -1
        try:
            self.settle()  # a blob put in this run may still be in the writer's buffer
            if self._reader is None:
                self._reader = open(self.root / self._pack, "rb")  # noqa: SIM115 - kept open
            data = os.pread(self._reader.fileno(), length, offset) if length >= 0 else b""
        except (OSError, TypeError, ValueError, OverflowError):
            data = b""
        if len(data) == length and xxhash.xxh3_64_intdigest(data) == digest:
            return data
        # damaged or cut short: forgotten, so the facts extracted again are stored again
        del self._index[content_hash]
        self._dirty = True
        return None

    def holds(self, content_hash: str) -> bool:
        return content_hash in self._load()

    def settle(self) -> None:
        """Hand the blobs put so far to the file (not durable: `flush` is). A process forked
        after it may read the cache: a buffered writer in a child would write those bytes a
        second time through the file offset it shares with this process."""
        if self._buffered:
            with contextlib.suppress(OSError):
                self._writer.flush()
            self._buffered = False

    # ------------------------------------------------------------------ writing
    def put(self, content_hash: str, blob: bytes) -> None:
        index = self._load()
        if content_hash in index:
            return
        try:
            if self._writer is None:
                self.root.mkdir(parents=True, exist_ok=True)
                path = self.root / self._pack
                mode = "r+b" if self._size and path.exists() else "wb"
                self._writer = open(path, mode, buffering=WRITE_BUFFER)  # noqa: SIM115 - kept open for the run
                if mode == "r+b":  # (before the cut: it changes the stat)
                    key = stat_key(os.fstat(self._writer.fileno()))
                    self._grown = {f"{self.root.name}/{self._pack}": (key, self._size)}
                self._writer.truncate(self._size)  # what a killed run left past the index
                self._writer.seek(self._size)
            self._writer.write(blob)
        except OSError:
            return  # a cache that cannot be written only costs time
        index[content_hash] = (self._size, len(blob), xxhash.xxh3_64_intdigest(blob))
        self._size += len(blob)
        self._dirty = self._buffered = True

    def flush(self, live: set[str], target: Path) -> None:
        """Make what this run added durable, its index written into the generation folder
        `target` (the one the run publishes: nothing the live generation relies on is
        rewritten); `live` is every content hash the index holds now (a pack mostly of other
        blobs is rewritten with the live ones only)."""
        index = self._load()
        live_bytes = sum(ref[1] for h, ref in index.items() if h in live)
        written: list[Path] = []  # pack bytes this flush hands to the disk
        out = target / self.index_name
        try:
            compacted = self._size > 2 * live_bytes + SLACK
            if compacted:
                self._compact(live)
            elif self._dirty and self._writer is not None:  # (none: it only forgot blobs)
                self._writer.flush()
                written.append(self.root / self._pack)
            # the index read, unchanged: the new generation shares its file
            if compacted or self._dirty or self._loaded is None or not _linked(self._loaded, out):
                # durable with the generation, in its publish's batch (with the pack bytes:
                # each blob carries its digest, a pack torn by a crash before only loses blobs)
                atomic_write(out, marshal.dumps((FORMAT, self._pack, self._size, self._index)))
            if written:
                sync_with_publish([*written, self.root])
            self._dirty = False
            self._sealed = {self._pack: self._size} if self._size else {}
        except OSError:
            return  # the generation has no index: this run's blobs are not remembered
        for child in self.root.glob(f"{self.name}.*"):
            # packs nothing names any more (the one the live generation names stays until
            # the next flush: `target` is not published yet), and an older codeimpact's index
            # once the live generation has its own
            if (
                child.name.endswith(".pack")
                and child.name not in (self._pack, self._kept)
                or (child.name.endswith(".index") and self._loaded is not None)
            ):
                with contextlib.suppress(OSError):
                    child.unlink()

    def _compact(self, live: set[str]) -> None:
        """Write the live blobs to a new pack; the index is pointed at it next."""
        blobs = {h: b for h in sorted(live) if (b := self.get(h)) is not None}
        self.close()
        self._grown = {}  # a new file: hashed whole
        self._pack = self._next_pack()
        self._index, offset = {}, 0
        for h, blob in blobs.items():
            self._index[h] = (offset, len(blob), xxhash.xxh3_64_intdigest(blob))
            offset += len(blob)
        atomic_write(self.root / self._pack, b"".join(blobs.values()))
        self._size = offset

    def close(self) -> None:
        for fh in (self._reader, self._writer):
            if fh is not None:
                with contextlib.suppress(OSError):
                    fh.close()
        self._reader = self._writer = None
        self._buffered = False

    def sealed_files(self) -> dict[str, int]:
        """The pack as the last flush (or load) left it on disk, relative to the index
        folder -> the length a generation's manifest checks (the pack grows later); the
        index is a file of the generation folder."""
        return {f"{self.root.name}/{name}": size for name, size in self._sealed.items()}

    def grown_files(self) -> dict[str, tuple[list[int], int]]:
        """The pack this run appended to -> (its stat key before, the length it was cut to
        first): the manifest hashes only what was appended when that stat is the live
        generation's stamp of it (manifest.seal)."""
        return {name: grown for name, grown in self._grown.items() if name in self.sealed_files()}

    # ------------------------------------------------------------------ housekeeping
    def prune_other_identities(self) -> None:
        """Remove the caches of other runner identities (and of older cache formats)."""
        if not self.root.is_dir():
            return
        for child in self.root.iterdir():
            if child.name.startswith(self.name + "."):
                continue
            with contextlib.suppress(OSError):
                shutil.rmtree(child) if child.is_dir() else child.unlink()

    def clear(self) -> None:
        """Start an empty cache; the old one stays on disk (the live generation names it), so
        a run killed or failing on the way leaves the previous cache as it was."""
        self._load()
        self.close()
        self._pack = self._next_pack()
        self._index, self._size, self._dirty, self._grown = {}, 0, True, {}

    def _next_pack(self) -> str:
        return f"{self.name}.{int(self._pack.split('.')[1]) + 1}.pack"


def _linked(path: Path, to: Path) -> bool:
    """Hard-link a file into a generation folder (False when it cannot be)."""
    try:
        os.link(path, to)
    except OSError:
        return False
    return True
