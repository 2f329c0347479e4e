"""What the indexer remembers of the generation it wrote, so the next run can do only the delta.

Kept beside the database in the generation folder; a no-change run reads only
the small first file:
- `state-files.bin`: identity and config digests, HEAD, the run's figures, and
  per file its size, mtime, content hash and status (all the change plan needs);
- `state-keys.bin`: per file its lookup keys (used names and alias bindings) and its
  resolver's summary (as separate marshal blobs, decoded only where a run needs
  them), as some generation wrote them: hard-linked from generation to generation,
  state-graph.bin carrying the files' keys and summaries changed since, until they
  weigh an eighth of it (an edit of the kernel rewrote 150 MB of them);
- `state-names.bin`: the lookup keys of state-keys.bin inverted (indexer/name_index.py),
  written and linked on with it;
- `state-graph.bin`: per file where its resolved output lies in the packs, module names,
  the owners of edges that files other than their source's own produce,
  reference counts of external symbols, running totals;
- `state-ids.bin`: the dense-id assignment (uid -> id) as a table read in place
  (indexer/id_table.py), hard-linked from generation to generation: state-graph.bin
  carries the ids changed since it was written, until they are many enough to write
  it anew;
- `pack-N.bin`: resolved outputs, concatenated. A generation writes only the
  outputs it resolved, into a pack of its own, and hard-links the earlier packs
  it still refers to, so an incremental run neither reads nor rewrites the
  outputs of files it did not touch; packs are rewritten as one when they hold
  more stale bytes than live ones;
- `state-edges.npy` / `state-conf.npy`: every edge of the graph as a sorted
  int64 code (source id, target id, relation) and its confidence, patched by
  each run and turned into the CSR snapshot (hard-linked from the previous
  generation when a run changed no edge);
- `shared-<group>.bin`: what a resolver group's project keeps beside the
  files' summaries (C's name tables: lang/cfamily/name_tables.py), read only
  by a run that resolves that group, hard-linked when unchanged.

The extraction facts themselves live in the facts cache (by content hash), so
a run reads the facts of only the files it resolves.
"""

from __future__ import annotations

import marshal
import mmap
import os
import shutil
from collections.abc import Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

import xxhash

from codeimpact.graph.layout import atomic_write, fsync_file, note_written
from codeimpact.graph.snapshot_files import FLOAT32, INT64, read_npy, write_npy
from codeimpact.indexer.files_state import STATE_FORMAT
from codeimpact.indexer.id_table import Ids, IdTable, write_id_table
from codeimpact.indexer.marshalled import Marshalled
from codeimpact.indexer.name_index import NAMES_NAME, NameIndex, load_index, read_keys
from codeimpact.indexer.resolved import Edge, ResolvedFile, SymbolRow, Unresolved, native_core
from codeimpact.native.record import Compared

if TYPE_CHECKING:
    import numpy as np

GRAPH_NAME = "state-graph.bin"
EDGES_NAME = "state-edges.npy"
IDS_NAME = "state-ids.bin"
KEYS_NAME = "state-keys.bin"
CONF_NAME = "state-conf.npy"
SHARED_PREFIX = "shared-"  # shared-<resolver group>.bin: a marshal of its shared summary


def shared_name(group: str) -> str:
    return f"{SHARED_PREFIX}{group}.bin"


# An edge code: source id, target id and relation code in one sortable int64.
ID_BITS = 24
TYPE_BITS = 3
MAX_IDS = 1 << ID_BITS


def edge_code(src: int, dst: int, etype: int) -> int:
    return (src << (ID_BITS + TYPE_BITS)) | (dst << TYPE_BITS) | etype


def encode_codes(src: np.ndarray, dst: np.ndarray, etype: np.ndarray) -> np.ndarray:
    """`edge_code` over arrays (numpy's: the full build's; an edit's are the native core's)."""
    import numpy as np

    return (
        (src.astype(np.int64) << (ID_BITS + TYPE_BITS))
        | (dst.astype(np.int64) << TYPE_BITS)
        | etype.astype(np.int64)
    )


def decode_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import numpy as np

    codes = np.asarray(codes)
    src = codes >> (ID_BITS + TYPE_BITS)
    dst = (codes >> TYPE_BITS) & (MAX_IDS - 1)
    etype = (codes & ((1 << TYPE_BITS) - 1)).astype(np.uint8)
    return src, dst, etype


def resolved_blob(rf: ResolvedFile) -> bytes:
    """A resolved file as marshal bytes, each distinct string written once (in C: every
    resolved file passes here; `_resolved_blob` is the Python way, for what C does not write)."""
    make = getattr(native_core(), "resolved_blob", None)  # (None: an extension built before it)
    blob = None if make is None else make(rf.symbols, rf.edges, rf.unresolved, rf.calls_total,
                                          rf.calls_builtin)  # fmt: skip
    return blob if blob is not None else _resolved_blob(rf)


def _resolved_blob(rf: ResolvedFile) -> bytes:
    """A resolved file as marshal bytes, each distinct uid written once.

    Resolvers make a fresh string for every mention of a uid; marshal writes a string it
    meets again as a back-reference only when it is the same object. Sharing one object
    per uid halved Django's blobs (38.5 -> 19.1 MB: the pack, the workers' messages) and
    made them faster to load. `marshal.loads` reads either form.
    """
    one = {}
    same = one.setdefault
    return marshal.dumps(
        (
            [(same(s[0], s[0]), *s[1:]) for s in rf.symbols],
            [(r, same(a, a), same(b, b), c, why, line) for r, a, b, c, why, line in rf.edges],
            [(same(u[0], u[0]), *u[1:]) for u in rf.unresolved],
            rf.calls_total,
            rf.calls_builtin,
        )
    )


def resolved_from_blob(path: str, blob: bytes) -> ResolvedFile:
    t = marshal.loads(blob)
    new = tuple.__new__
    return ResolvedFile(
        path,
        [new(SymbolRow, s) for s in t[0]],
        [new(Edge, e) for e in t[1]],
        [new(Unresolved, u) for u in t[2]],
        t[3],
        t[4],
    )


Ref = tuple[str, int, int]  # (pack file name, offset, length)


class GraphState(Compared):
    resolved_refs: dict[str, Ref]  # path -> its resolved output in a pack of `pack_dir`
    used: dict[str, bytes]  # path -> plan.lookup_keys_blob of its facts
    modules: dict  # language -> {path: module name}, or None where the resolver has none
    ids: MutableMapping[str, int]  # a dict, or an id_table.Ids over the table file
    free_ids: list[int]
    # edge key -> files (not its source's) that produce it (a ForeignOwners, or a full
    # build's dict)
    foreign: MutableMapping[tuple, list[str]]
    ext_refs: dict[str, int]  # external uid -> edges pointing at it
    totals: dict  # calls and edge counts
    summaries: dict[str, bytes]  # path -> resolver summary
    codes: np.ndarray
    confs: np.ndarray
    # resolved outputs not in a pack yet (written by save_graph_state)
    new_blobs: dict[str, bytes]
    pack_dir: Path | None  # the generation folder the refs point into
    # a generation folder whose edge files (and CSR snapshot) hold exactly `codes` and
    # `confs` (a delta that changed no edge): they are hard-linked, not written again
    edges_from: Path | None
    # resolver group -> its shared summary (resolution.shared_summaries): the bytes to write,
    # or a file holding them (the previous generation's, or one a full build staged)
    shared: dict[str, bytes | Path]
    # the lookup keys and summaries as a generation's state-keys.bin holds them (that file,
    # its size, the two dicts), which `used` and `summaries` differ from in a few files
    keys_base: tuple[Path, int, dict[str, bytes], dict[str, bytes]] | None
    keys_digest: int | None  # xxh3 of that file's bytes
    # the files whose lookup keys differ from keys_base's (changed or gone since)
    keys_changed: frozenset[str]
    # keys_base's lookup keys inverted (indexer/name_index.py), once `users_of` made or read it
    names: NameIndex | None
    _decoded: dict[str, ResolvedFile]
    _names_tried: bool
    __slots__ = (
        "resolved_refs",
        "used",
        "modules",
        "ids",
        "free_ids",
        "foreign",
        "ext_refs",
        "totals",
        "summaries",
        "codes",
        "confs",
        "new_blobs",
        "pack_dir",
        "edges_from",
        "shared",
        "keys_base",
        "keys_digest",
        "keys_changed",
        "names",
        "_decoded",
        "_names_tried",
    )
    _unshown = ("_decoded", "_names_tried")

    def __init__(
        self,
        resolved_refs: dict[str, Ref],
        used: dict[str, bytes],
        modules: dict,
        ids: MutableMapping[str, int],
        free_ids: list[int],
        foreign: dict[tuple, list[str]],
        ext_refs: dict[str, int],
        totals: dict,
        summaries: dict[str, bytes] | None = None,
        codes: np.ndarray | None = None,
        confs: np.ndarray | None = None,
        new_blobs: dict[str, bytes] | None = None,
        pack_dir: Path | None = None,
        edges_from: Path | None = None,
        shared: dict[str, bytes | Path] | None = None,
        keys_base: tuple[Path, int, dict[str, bytes], dict[str, bytes]] | None = None,
        keys_digest: int | None = None,
        keys_changed: frozenset[str] = frozenset(),
        names: NameIndex | None = None,
        _decoded: dict[str, ResolvedFile] | None = None,
        _names_tried: bool = False,
    ) -> None:
        self.resolved_refs = resolved_refs
        self.used = used
        self.modules = modules
        self.ids = ids
        self.free_ids = free_ids
        self.foreign = foreign
        self.ext_refs = ext_refs
        self.totals = totals
        self.summaries = {} if summaries is None else summaries
        self.codes = memoryview(b"").cast("q") if codes is None else codes
        self.confs = memoryview(b"").cast("f") if confs is None else confs
        self.new_blobs = {} if new_blobs is None else new_blobs
        self.pack_dir = pack_dir
        self.edges_from = edges_from
        self.shared = {} if shared is None else shared
        self.keys_base = keys_base
        self.keys_digest = keys_digest
        self.keys_changed = keys_changed
        self.names = names
        self._decoded = {} if _decoded is None else _decoded
        self._names_tried = _names_tried

    def files(self) -> set[str]:
        return set(self.resolved_refs) | set(self.new_blobs)

    def resolved_bytes(self, path: str) -> bytes | None:
        blob = self.new_blobs.get(path)
        if blob is not None:
            return blob
        ref = self.resolved_refs.get(path)
        if ref is None or self.pack_dir is None:
            return None
        return read_ref(self.pack_dir, ref)

    def resolved(self, path: str) -> ResolvedFile | None:
        rf = self._decoded.get(path)
        if rf is None:
            blob = self.resolved_bytes(path)
            if blob is None:
                return None
            rf = self._decoded[path] = resolved_from_blob(path, blob)
        return rf

    def lookup_keys(self, path: str) -> tuple[frozenset[str], list] | None:
        """(used names, alias binders) of a file, as `plan.lookup_keys_blob` wrote them."""
        blob = self.used.get(path)
        if blob is None:
            return None
        names, binders = read_keys(blob)
        return frozenset(names), binders

    def users_of(self, names: set[str], used_only: bool) -> set[str] | None:
        """The files of this state whose lookup keys hold one of `names`: those that use one
        (`used_only`), or with those whose flow binders read one; None without an index (a
        state not read from a generation, or keys that hold binders themselves)."""
        if not self._names_tried:
            self._names_tried = True
            if self.keys_base is not None and self.keys_digest is not None:
                folder = self.keys_base[0].parent
                self.names = load_index(folder / NAMES_NAME, self.keys_digest) or NameIndex.build(
                    self.keys_digest, self.keys_base[2]
                )
        if self.names is None:
            return None
        changed = self.keys_changed
        out = {p for p in self.names.files_with(names, used_only) if p not in changed}
        for p in changed:  # their keys as this state holds them, not as the index does
            blob = self.used.get(p)
            if blob is None:
                continue
            used, second = read_keys(blob)
            held = set(used)
            if not used_only and second:  # binder names, or (an older index) the binders
                held.update(
                    second if isinstance(second[0], str) else (n for b in second for n in b[0])
                )
            if not held.isdisjoint(names):
                out.add(p)
        return out


def _save_npy(path: Path, descr: str, arr) -> None:
    """`arr` (a buffer of `descr` items: numpy's, or an edit's bytes) as `np.save` writes it
    (graph/snapshot_files.py: an edit imports no numpy)."""
    if getattr(arr, "dtype", None) is not None and arr.dtype.str != descr:
        arr = arr.astype(descr)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}.npy")
    with open(tmp, "wb") as fh:
        size, xxh3 = write_npy(fh, descr, arr)
    os.replace(tmp, path)
    note_written(path, size, xxh3)  # (the manifest's checksum, not read back at publish)


def read_ref(pack_dir: Path, ref: Ref) -> bytes:
    name, offset, length = ref
    with open(pack_dir / name, "rb") as fh:
        fh.seek(offset)
        data = fh.read(length)
    if len(data) != length:
        raise OSError(f"{pack_dir / name}: truncated")
    return data


def _write_pack(path: Path, blobs: dict[str, bytes]) -> dict[str, Ref]:
    refs: dict[str, Ref] = {}
    offset = 0
    for p, blob in blobs.items():
        refs[p] = (path.name, offset, len(blob))
        offset += len(blob)
    atomic_write(path, b"".join(blobs.values()))
    return refs


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:  # a file system without hard links
        shutil.copyfile(src, dst)


def save_graph_state(gen_dir: Path, st: GraphState, number: int) -> None:
    """Write the state into generation `number`'s folder (packs: see the module docstring)."""
    refs = dict(st.resolved_refs)
    names = {name for name, _, _ in refs.values()}
    stored = sum((st.pack_dir / name).stat().st_size for name in names) if names else 0
    live = sum(length for _, _, length in refs.values())
    new_blobs = st.new_blobs
    if stored > 2 * live or len(names) > 16:
        # more stale bytes than live ones: every output goes into this generation's pack
        new_blobs = {p: st.resolved_bytes(p) for p in sorted(st.files())}
        refs, names = {}, set()
    for name in sorted(names):
        if st.pack_dir != gen_dir:
            _link_or_copy(st.pack_dir / name, gen_dir / name)
        else:  # a full build's pack, moved in unsynced: durable before the state naming it
            fsync_file(gen_dir / name)
    if new_blobs:
        refs.update(_write_pack(gen_dir / f"pack-{number}.bin", new_blobs))
    used, summaries = _save_keys(gen_dir, st)
    data = (
        STATE_FORMAT,
        refs,
        used,
        st.modules,
        _save_ids(gen_dir, st.ids),
        st.free_ids,
        _foreign_blobs(st.foreign),
        st.ext_refs,
        st.totals,
        summaries,
    )
    for group, src in st.shared.items():
        dst = gen_dir / shared_name(group)
        if isinstance(src, bytes):
            atomic_write(dst, src)
        elif src != dst:
            _link_or_copy(src, dst)
    if st.edges_from is not None and st.edges_from != gen_dir:
        _link_or_copy(st.edges_from / EDGES_NAME, gen_dir / EDGES_NAME)
        _link_or_copy(st.edges_from / CONF_NAME, gen_dir / CONF_NAME)
    else:
        _save_npy(gen_dir / EDGES_NAME, INT64, st.codes)
        _save_npy(gen_dir / CONF_NAME, FLOAT32, st.confs)
    atomic_write(gen_dir / GRAPH_NAME, marshal.dumps(data))


# the ids' changes carried in state-graph.bin before the table is written anew: a few
# hundred KB at most, against the kernel's 170 MB table
IDS_CHANGES_MAX = 4096


def _save_ids(gen_dir: Path, ids: MutableMapping[str, int]) -> tuple[dict, list[str], int]:
    """Link the live generation's id table into `gen_dir` and return the changes made since
    it was written; write the table anew when there is none or the changes are many."""
    if isinstance(ids, Ids) and len(ids.changed) + len(ids.gone) <= max(
        IDS_CHANGES_MAX, len(ids.base) // 64
    ):
        if ids.base.path != gen_dir / IDS_NAME:
            _link_or_copy(ids.base.path, gen_dir / IDS_NAME)
        return ids.changed, sorted(ids.gone), len(ids)
    write_id_table(gen_dir / IDS_NAME, ids)
    return {}, [], len(ids)


Changes = tuple[dict[str, bytes], list[str]]  # (path -> blob new or changed, paths gone)

# The size of a keys file written anew up to which its names index is written with it. The
# index's build holds ~2.8x the keys file at its peak and ~54 ms of CPU a MB (the kernel's
# 147 MB: 7.9 s, +414 MB, in the sidecar writer at the build's memory peak); a larger one's
# is made by the first edit that asks, as before. (Django's: 4.1 MB.)
NAMES_WITH_KEYS_MAX = 32 << 20


def _changes(base: dict[str, bytes], now: dict[str, bytes]) -> Changes:
    changed = {p: b for p, b in now.items() if (a := base.get(p)) is not b and a != b}
    return changed, sorted(p for p in base if p not in now)


def _applied(base: dict[str, bytes], changes: Changes) -> dict[str, bytes]:
    out = dict(base)
    out.update(changes[0])
    for p in changes[1]:
        out.pop(p, None)
    return out


def _save_keys(gen_dir: Path, st: GraphState) -> tuple[Changes, Changes]:
    """Link the live generation's state-keys.bin into `gen_dir` and return the lookup keys'
    and summaries' changes since it was written; write it anew, and its names index, when
    there is none or the changes weigh more than an eighth of it."""
    if st.keys_base is not None:
        path, size, used, summaries = st.keys_base
        out = _changes(used, st.used), _changes(summaries, st.summaries)
        if sum(len(b) for c in out for b in c[0].values()) <= size // 8:
            if path != gen_dir / KEYS_NAME:
                _link_or_copy(path, gen_dir / KEYS_NAME)
            names = st.names  # the index of that file, when an edit made or read one
            kept = path.parent / NAMES_NAME  # or, unread by this run, the one beside it
            if names is not None and names.digest == st.keys_digest:
                if names.origin is None:
                    names.save(gen_dir / NAMES_NAME)
                elif names.origin != gen_dir / NAMES_NAME:
                    _link_or_copy(names.origin, gen_dir / NAMES_NAME)
            elif names is None and kept != gen_dir / NAMES_NAME and kept.exists():
                _link_or_copy(kept, gen_dir / NAMES_NAME)
            return out
    data = marshal.dumps((st.used, st.summaries))
    atomic_write(gen_dir / KEYS_NAME, data)
    # its names index with it (a full build's sidecar writer: beside Kùzu's write), not by
    # the next edit that asks (name_index.py), up to NAMES_WITH_KEYS_MAX
    if len(data) <= NAMES_WITH_KEYS_MAX:
        names = NameIndex.build(xxhash.xxh3_64_intdigest(data), st.used)
        if names is not None:
            names.save(gen_dir / NAMES_NAME)
    return ({}, []), ({}, [])


def loads_mapped(path: Path, digest: bool = False) -> tuple[object, int, int | None]:
    """(marshal.loads of a file, its size, its xxh3-64 if `digest`), read through a mapping
    of the file: reading it whole first copied it into a fresh buffer, whose page faults
    were ~2 ms of an edit's CPU for Django's 4.1 MB of lookup keys and summaries (the decode
    copies what it makes out of it: nothing refers to the mapping after)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if not size:
            raise EOFError(f"{path} is empty")
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as whole, memoryview(whole) as v:
            return marshal.loads(v), size, xxhash.xxh3_64_intdigest(v) if digest else None


def _source_file(key: tuple) -> str:
    return key[1].split("::", 1)[0]  # (rel, source uid, target uid): the source's file


class ForeignOwners(MutableMapping):
    """GraphState.foreign: edge key (rel, source uid, target uid) -> the files other than the
    source's own that produce the edge, kept in buckets by the source's file, each a
    Marshalled (decoded when a key of that file is looked up, written as read unless
    changed). An edit looks up the keys of its files' edges only: decoding Django's 5,565
    keys whole was ~5 ms of every edit (a few buckets of 41 are read), and writing them
    again ~1 ms."""

    __slots__ = ("_blobs", "_buckets")

    def __init__(self, blobs: dict[str, bytes] | None = None) -> None:
        self._blobs = {} if blobs is None else blobs  # source file -> its bucket, as read
        self._buckets: dict[str, Marshalled] = {}  # source file -> its bucket, once looked up

    @classmethod
    def of(cls, owners: dict) -> ForeignOwners:
        """The owners of a dict of them (a full build's)."""
        by_file: dict[str, dict] = {}
        for key, files in owners.items():
            by_file.setdefault(_source_file(key), {})[key] = files
        out = cls()
        out._buckets = {path: Marshalled.of(bucket) for path, bucket in by_file.items()}
        return out

    def _bucket(self, path: str, make: bool = False) -> Marshalled | None:
        got = self._buckets.get(path)
        if got is None:
            blob = self._blobs.get(path)
            if blob is not None:
                got = self._buckets[path] = Marshalled(blob)
            elif make:
                got = self._buckets[path] = Marshalled.of({})
        return got

    def __getitem__(self, key: tuple) -> list[str]:
        got = self._bucket(_source_file(key))
        if got is None:
            raise KeyError(key)
        return got[key]

    def get(self, key: tuple, default=None):
        got = self._bucket(_source_file(key))
        return default if got is None else got.get(key, default)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and self.get(key) is not None

    def __setitem__(self, key: tuple, files: list[str]) -> None:
        self._bucket(_source_file(key), True)[key] = files

    def __delitem__(self, key: tuple) -> None:
        got = self._bucket(_source_file(key))
        if got is None:
            raise KeyError(key)
        del got[key]

    def _all(self) -> Iterator[Marshalled]:
        for path in self._blobs:
            self._bucket(path)
        return iter(list(self._buckets.values()))

    def __iter__(self):
        for bucket in self._all():
            yield from bucket

    def __len__(self) -> int:
        return sum(map(len, self._all()))

    def copy(self) -> ForeignOwners:
        """Another owners' table, reading the same blobs (the buckets decoded are copied)."""
        out = ForeignOwners(self._blobs)
        out._buckets = {p: b.copy() for p, b in self._buckets.items()}
        return out

    def blobs(self) -> dict[str, bytes]:
        """source file -> its bucket as marshal bytes (what state-graph.bin holds)."""
        out = dict(self._blobs)
        for p, bucket in self._buckets.items():
            if not bucket.changed:
                continue
            if bucket:
                out[p] = bucket.encoded()
            else:
                out.pop(p, None)
        return out


def _foreign_blobs(owners: Mapping) -> dict[str, bytes]:
    if not isinstance(owners, ForeignOwners):
        owners = ForeignOwners.of(dict(owners))
    return owners.blobs()


def load_graph_state(gen_dir: Path) -> GraphState | None:
    try:
        t = loads_mapped(gen_dir / GRAPH_NAME)[0]
        if t[0] != STATE_FORMAT:
            return None
        changed, gone, n = t[4]
        ids = Ids(IdTable(gen_dir / IDS_NAME), changed, set(gone), n)
        keys = gen_dir / KEYS_NAME
        (used, summaries), size, digest = loads_mapped(keys, digest=True)
        base = (keys, size, used, summaries)
        # mapped, not read: an edit that changes no edge links them on (the kernel's: 90 MB)
        codes = read_npy(gen_dir / EDGES_NAME, INT64)
        confs = read_npy(gen_dir / CONF_NAME, FLOAT32)
        shared = {f.name[len(SHARED_PREFIX) : -len(".bin")]: f
                  for f in gen_dir.glob(f"{SHARED_PREFIX}*.bin")}  # fmt: skip
        return GraphState(t[1], _applied(used, t[2]), t[3], ids, t[5], ForeignOwners(t[6]),
                          t[7], t[8],
                          _applied(summaries, t[9]), codes, confs, pack_dir=gen_dir,
                          shared=shared, keys_base=base, keys_digest=digest,
                          keys_changed=frozenset(t[2][0]) | frozenset(t[2][1]))  # fmt: skip
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        return None
