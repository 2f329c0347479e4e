"""Every file of a generation with its checksum, and the check that the files still hold it.

`seal` runs when a generation is published: it lists every file of the generation's folder
(the Kùzu database, the CSR arrays, the state, the resolved packs, the unresolved sites) and
the facts pack the run left (which lives outside the folder and grows: its recorded prefix
is what is checked, as parts whose checksums the next generation reuses: `Entry`), each
with its size and an xxh3-64 of its bytes, plus the row count of each database table, in
`manifest.json`; `CURRENT` records the manifest's own checksum, so no file of a live
generation goes unchecked.

`verify` compares files with the manifest. Hashing is fast (xxh3: Django's 35 MB database in
~5-10 ms when cached) but not free, so the writer, which has just hashed what it wrote, also
leaves `verified.json`: per file, the (size, mtime, ctime, inode) it had when its checksum
last matched. Any write to a file changes its ctime (which no tool can set back), so a file
whose stat still matches its stamp holds the bytes that were checked; only a file whose stat
moved is hashed again. Readers only read the stamp (queries never write the index); the
writer (analyze, under the lock) refreshes it. `graph status` trusts no stamp.

A file that differs is damage: the index is stale ("damaged: <file>"), queries refuse it in
one line and the next plain `graph analyze` rebuilds it, never Kùzu opening a garbled
database (it can crash on one).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import xxhash

from codeimpact.graph.errors import CorruptIndex
from codeimpact.native.record import Compared, Hashed

MANIFEST_NAME = "manifest.json"
STAMP_NAME = "verified.json"
FORMAT = 2  # 2: a grown file's entry may list the checksums of its earlier parts
READ_FORMATS = (1, 2)
# Beside the database Kùzu may write these; a non-empty one it would replay on open.
KUZU_SIDE_FILES = (".wal", ".shadow")

Damage = tuple[str, str]  # (file, relative to the index folder; what is wrong with it)


class Damaged(CorruptIndex):
    """A file of the index is missing or differs from what its writer recorded."""

    def __init__(self, repo: Path, damage: list[Damage]):
        self.damage = damage
        first = "; ".join(f"{name} ({why})" for name, why in damage[:3])
        more = f" and {len(damage) - 3} more" if len(damage) > 3 else ""
        super().__init__(
            f"the index at {repo} is damaged: {first}{more}: run `graph analyze {repo}`"
        )


def reasons(damage: list[Damage]) -> list[str]:
    """One "damaged: <file> (<what>)" line per damaged file (the form status prints)."""
    return [f"damaged: {name} ({why})" for name, why in damage]


class Entry(Hashed):
    """A file's first `size` bytes as parts: ((end, xxh3) of each part before the last, the
    last from the end of the one before to `size` hashed to `xxh3`. A file appended to (the
    facts pack) is checked part by part, so sealing it after an append hashes only the bytes
    appended (`_grown`): Django's 23.7 MB pack was hashed whole after each edit that added
    facts, ~4-5 ms of the edit's last step."""

    size: int
    xxh3: str  # of the bytes from the end of the last of `parts` (or 0) to `size`
    grows: bool  # a cache file appended to after this: only its prefix is checked
    parts: tuple[tuple[int, str], ...]
    __slots__ = ("size", "xxh3", "grows", "parts")

    def __init__(
        self, size: int, xxh3: str, grows: bool = False, parts: tuple[tuple[int, str], ...] = ()
    ) -> None:
        self.size = size
        self.xxh3 = xxh3
        self.grows = grows
        self.parts = parts

    def spans(self) -> list[tuple[int, int, str]]:
        """(start, end, xxh3) of each part."""
        out, start = [], 0
        for end, xxh3 in self.parts:
            out.append((start, end, xxh3))
            start = end
        out.append((start, self.size, self.xxh3))
        return out


class Manifest(Compared):
    generation: int
    files: dict[str, Entry]  # path relative to the index folder -> entry
    rows: dict[str, int]  # database table -> rows
    __slots__ = ("generation", "files", "rows")

    def __init__(
        self, generation: int, files: dict[str, Entry], rows: dict[str, int] | None = None
    ) -> None:
        self.generation = generation
        self.files = files
        self.rows = {} if rows is None else rows


def digest(data: bytes) -> str:
    return xxhash.xxh3_64_hexdigest(data)


def file_digest(path: Path, size: int | None = None, start: int = 0) -> str:
    """xxh3-64 (hex) of a file's bytes from `start` to `size` (its end when None)."""
    return file_digests(path, [(start, size)])[0]


def file_digests(path: Path, spans: list[tuple[int, int | None]]) -> list[str]:
    """xxh3-64 (hex) of each (start, end) span of a file's bytes (end None: its end), read
    through a buffer of at most READ_CHUNK bytes: mapped, the file's pages counted in this
    process's memory while it hashed (a full build's publish: Django's 36 MB database raised
    the builder's high-water mark by as much, the build's largest process then), for the
    same CPU (~8-10 ms for that file, either way)."""
    with open(path, "rb", buffering=0) as fh:
        length = os.fstat(fh.fileno()).st_size
        ends = [length if end is None else end for _, end in spans]
        if max(ends, default=0) > length:
            raise OSError(f"{path} is shorter than {max(ends)} bytes")
        longest = max((end - start for (start, _), end in zip(spans, ends, strict=True)),
                      default=0)  # fmt: skip
        buf = memoryview(bytearray(min(READ_CHUNK, max(longest, 0))))
        out = []
        for (start, _), end in zip(spans, ends, strict=True):
            h = xxhash.xxh3_64()
            fh.seek(start)
            left = end - start
            while left > 0:
                n = fh.readinto(buf[: min(left, len(buf))])
                if not n:
                    raise OSError(f"{path} is shorter than {end} bytes")
                h.update(buf[:n])
                left -= n
            out.append(h.hexdigest())
        return out


# Bytes `file_digests` reads at a time.
READ_CHUNK = 256 << 10


def _matches(path: Path, entry: Entry) -> bool:
    spans = entry.spans()
    return file_digests(path, [(a, b) for a, b, _ in spans]) == [h for _, _, h in spans]


def _gen_files(gen_path: Path) -> list[Path]:
    out = []
    for p in sorted(gen_path.rglob("*")):
        if p.is_file() and p.name not in (MANIFEST_NAME, STAMP_NAME) and ".tmp" not in p.name:
            out.append(p)
    return out


def stat_key(st: os.stat_result) -> list[int]:
    """What a stamp (and layout.note_written) records of a file: size, mtime, ctime, inode."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


_stat_key = stat_key


def seal(gen_path: Path, generation: int, rows: dict[str, int],
         outside: dict[str, int] | None = None,
         previous: tuple[Path, str | None] | None = None,
         checked: dict[str, list] | None = None,
         grown: dict[str, tuple[list[int], int]] | None = None) -> str:  # fmt: skip
    """Write the manifest of a generation; returns the manifest's checksum.

    `outside`: files beside the generations (path relative to the index folder -> the
    prefix length to check) that the generation relies on: the facts cache. `previous`: the
    live generation (folder, manifest checksum), whose checked files this one may share (a
    resolved pack hard-linked, the facts cache untouched): their checksums are reused.
    `checked`: files of this generation (local name -> [size, xxh3]) whose checksum its
    writer took and knows unchanged since (an incremental run's database: the spare it
    verified, written only through its WAL): reused while their size is that one. `grown`:
    files of `outside` this process appended to -> (their stat key before it wrote to them,
    the length it cut them to first): while that key is the live generation's stamp of the
    file, the parts the live manifest checked are reused and only what follows is hashed."""
    idx = gen_path.parent
    before = _previous_files(*previous) if previous is not None else ({}, {})
    known = _checked_files(gen_path.parent, *before)
    for name, (size, xxh3) in (checked or {}).items():
        with contextlib.suppress(OSError):
            known[name] = ((os.stat(gen_path / name).st_ino, size), Entry(size, xxh3))
    files: dict[str, Entry] = {}

    def entry(path: Path, name: str, size: int, grows: bool) -> Entry:
        st = os.stat(path)
        same = known.get(name.partition("/")[2] if name.startswith("gen-") else name)
        if same is not None and same[0] == (st.st_ino, st.st_size) and same[1].size == size:
            return same[1]
        return Entry(size, file_digest(path, size), grows)

    for p in _gen_files(gen_path):
        name = p.relative_to(idx).as_posix()
        files[name] = entry(p, name, os.stat(p).st_size, False)
    for name, size in sorted((outside or {}).items()):
        with contextlib.suppress(OSError):  # a cache that could not be written is no damage
            files[name] = _grown(idx, name, size, before, (grown or {}).get(name)) or entry(
                idx / name, name, size, True
            )
    data = json.dumps(
        {
            "format": FORMAT,
            "generation": generation,
            "rows": rows,
            "files": {
                k: [e.size, e.xxh3, e.grows, *([[list(p) for p in e.parts]] if e.parts else [])]
                for k, e in sorted(files.items())
            },
        },
        sort_keys=True,
    ).encode()
    _atomic_write(gen_path / MANIFEST_NAME, data)
    return xxhash.xxh3_64_hexdigest(data)


def _previous_files(gen_path: Path, digest: str | None) -> tuple[dict[str, Entry], dict]:
    """A generation's manifest entries and its stamp ({}, {} when its manifest is unsound)."""
    try:
        return load(gen_path, digest, _number(gen_path)).files, read_stamp(gen_path)
    except CorruptIndex:
        return {}, {}


# the most parts of a grown file's entry: past it the file is hashed whole again (a file
# appended to ~1e4 times: the parts merged as they go keep ~log2 of that, `_grown`)
MAX_PARTS = 64


def _grown(idx: Path, name: str, size: int, before: tuple[dict[str, Entry], dict],
           grown: tuple[list[int], int] | None) -> Entry | None:  # fmt: skip
    """The entry of a file outside the generation that this process appended to, hashing
    only the bytes after the live manifest's parts, when its stat before the appends was the
    live generation's stamp of it (so those parts still hold) and the appends began past
    them; None: hash it whole. Adjacent parts are merged (hashed again) while the earlier is
    no longer than the later, so the parts stay ~log2(appends) and each byte is hashed again
    ~log2 times over the file's life, not at each append."""
    if grown is None:
        return None
    path = idx / name
    prior, stamp = before[0].get(name), before[1].get(name)
    key, cut = grown
    if prior is None or not prior.grows or stamp != key or not prior.size <= cut <= size:
        return None
    spans = [(a, b, h) for a, b, h in prior.spans() if b > a]
    if size > prior.size:
        spans.append((prior.size, size, file_digest(path, size, prior.size)))
    while len(spans) >= 2 and spans[-2][1] - spans[-2][0] <= spans[-1][1] - spans[-1][0]:
        (a, _, _), (_, b, _) = spans[-2], spans.pop()
        spans[-1] = (a, b, file_digest(path, b, a))
    if not spans or len(spans) > MAX_PARTS:
        return None
    return Entry(size, spans[-1][2], True, tuple((b, h) for _, b, h in spans[:-1]))


def _checked_files(
    idx: Path, files: dict[str, Entry], stamp: dict
) -> dict[str, tuple[tuple, Entry]]:
    """Files of a generation still as its writer's stamp saw them: (local name in the
    generation folder, or the name of a file outside) -> ((inode, size), entry). A file of
    the folder may have a newer ctime: the writer hard-linking it into the new generation
    changes that (its size, mtime and inode must be the stamp's)."""
    out = {}
    for name, entry in files.items():
        try:
            st = os.stat(idx / name)
        except OSError:
            continue
        key, seen = _stat_key(st), stamp.get(name)
        inside = name.startswith("gen-")
        if seen == key or inside and seen is not None and seen[:2] + seen[3:] == key[:2] + key[3:]:
            local = name.partition("/")[2] if inside else name
            out[local] = ((st.st_ino, st.st_size), entry)
    return out


def _number(gen_path: Path) -> int:
    return int(gen_path.name.rpartition("-")[2])


def stamp_sealed(gen_path: Path, outside: Iterable[str] = ()) -> None:
    """The writer's stamp of the files `seal` just hashed (after the publish that follows
    it, which changes the ctime of hard-linked packs when it deletes the older folders)."""
    idx = gen_path.parent
    paths = [*_gen_files(gen_path), *(idx / name for name in outside)]
    stamp = {}
    for p in paths:
        with contextlib.suppress(OSError):
            stamp[p.relative_to(idx).as_posix()] = _stat_key(os.stat(p))
    write_stamp(gen_path, stamp)


def recorded_rows(gen_path: Path) -> dict[str, int]:
    """The row counts of a generation's manifest, unchecked ({} when unreadable): for a
    writer that publishes a generation again after changing it in place."""
    try:
        rows = json.loads((gen_path / MANIFEST_NAME).read_bytes())["rows"]
        return {str(k): int(v) for k, v in rows.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    from codeimpact.graph.layout import atomic_write  # layout imports this module

    atomic_write(path, data, durable)


def load(gen_path: Path, digest: str | None, generation: int) -> Manifest:
    """The manifest of a generation, checked against the checksum CURRENT recorded."""
    name = f"{gen_path.name}/{MANIFEST_NAME}"
    repo = gen_path.parent.parent
    if digest is None:
        raise Damaged(repo, [(name, "not recorded: written by an older codeimpact")])
    try:
        data = (gen_path / MANIFEST_NAME).read_bytes()
    except FileNotFoundError:
        raise Damaged(repo, [(name, "missing")]) from None
    except OSError as e:
        raise Damaged(repo, [(name, f"unreadable: {e.strerror or e}")]) from None
    if xxhash.xxh3_64_hexdigest(data) != digest:
        raise Damaged(repo, [(name, "checksum mismatch")])
    try:
        raw = json.loads(data)
        files = {k: _entry(v) for k, v in raw["files"].items()}
        rows = {str(k): int(v) for k, v in raw["rows"].items()}
        if raw["format"] not in READ_FORMATS or raw["generation"] != generation:
            raise ValueError("another format or generation")
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        raise Damaged(repo, [(name, "not a manifest of this generation")]) from None
    return Manifest(generation, files, rows)


def _entry(v: list) -> Entry:
    parts = tuple((int(end), str(xxh3)) for end, xxh3 in v[3]) if len(v) > 3 else ()
    return Entry(int(v[0]), str(v[1]), bool(v[2]), parts)


def read_stamp(gen_path: Path) -> dict[str, list[int]]:
    try:
        raw = json.loads((gen_path / STAMP_NAME).read_bytes())
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def write_stamp(gen_path: Path, verified: dict[str, list[int]]) -> None:
    """Record files whose checksums matched just now (the writer only; never a reader).
    Nothing new, nothing written (a no-op wrote it each time, two fsyncs); written without
    fsync: a stamp only saves time, and one lost in a crash costs its files a hash again."""
    kept = read_stamp(gen_path)
    stamp = {**kept, **verified}
    if stamp == kept and (gen_path / STAMP_NAME).exists():
        return
    with contextlib.suppress(OSError):
        _atomic_write(gen_path / STAMP_NAME, json.dumps(stamp, sort_keys=True).encode(), False)


class Check(Compared):
    damage: list[Damage]
    verified: dict[str, list[int]]  # files hashed now and found whole: their stamps
    hashed: set[str]  # files whose checksum was computed
    __slots__ = ("damage", "verified", "hashed")

    def __init__(
        self, damage: list[Damage], verified: dict[str, list[int]], hashed: set[str] | None = None
    ) -> None:
        self.damage = damage
        self.verified = verified
        self.hashed = set() if hashed is None else hashed


def verify(gen_path: Path, manifest: Manifest, which: Callable[[str], bool] | None = None,
           trust_stamp: bool = True, sizes_only: bool = False,
           known: dict[str, list[int]] | None = None) -> Check:  # fmt: skip
    """Compare the files (those `which` accepts, or all) with the manifest: their sizes, and
    the checksums of those not stamped (unless `sizes_only`). `known`: stamps the caller
    earned itself by hashing (a reader may not write verified.json), trusted like it."""
    idx = gen_path.parent
    stamp = {**read_stamp(gen_path), **(known or {})} if trust_stamp else {}
    check = Check([], {})
    for name, entry in manifest.files.items():
        if which is not None and not which(name):
            continue
        path = idx / name
        try:
            st = os.stat(path)
        except FileNotFoundError:
            check.damage.append((name, "missing"))
            continue
        except OSError as e:
            check.damage.append((name, f"unreadable: {e.strerror or e}"))
            continue
        short = st.st_size < entry.size if entry.grows else st.st_size != entry.size
        if short:
            check.damage.append((name, f"{st.st_size} bytes, {entry.size} were written"))
            continue
        key = _stat_key(st)
        if sizes_only or stamp.get(name) == key:  # (a cache file appended to: not equal)
            continue
        check.hashed.add(name)
        try:
            same = _matches(path, entry)
        except (OSError, ValueError) as e:
            check.damage.append((name, f"unreadable: {e}"))
            continue
        if same:
            check.verified[name] = key
        else:
            check.damage.append((name, "checksum mismatch"))
    db = next((n for n in manifest.files if n.endswith("/graph.kz")), None)
    if db is not None and (which is None or which(db)):
        for suffix in KUZU_SIDE_FILES:
            side = idx / (db + suffix)
            with contextlib.suppress(OSError):
                if side.stat().st_size and db + suffix not in manifest.files:
                    check.damage.append((db + suffix, "not written by codeimpact"))
    return check


def in_generation(names: Iterable[str]) -> Callable[[str], bool]:
    """A `which` for `verify`: the files of the generation folder with these names (a
    name ending in "/" takes everything under that folder)."""
    wanted = tuple(names)

    def accept(name: str) -> bool:
        folder, _, local = name.partition("/")
        return folder.startswith("gen-") and any(
            local.startswith(w) if w.endswith("/") else local == w for w in wanted
        )

    return accept
