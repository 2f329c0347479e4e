"""Where an index lives on disk and how generations replace each other.

`<repo>/.codeimpact/` holds `CURRENT` (which generation is live), one folder per
generation (`gen-000007/` with the Kùzu database and the CSR snapshot), the
facts cache and the writer lock. A writer builds generation N+1 in its own
folder and publishes it by atomically replacing `CURRENT`, so a reader never
sees a half-written graph and a killed writer leaves generation N live.

Crash safety, step by step:
- `next_generation` creates the new folder and records `writing.json` (pid,
  generation, start time) *before* anything is written into it.
- `publish` replaces `CURRENT` (written to a temporary file, fsynced, renamed);
  `CURRENT` also records the database's size, so a truncated database is
  reported as damaged instead of half-read. A writer that changes a published
  generation's database in place must call `publish` again afterwards.
- `writer_lock` clears `writing.json` and any unpublished folder when its
  holder exits normally (or with an exception). A SIGKILL skips that, so a
  marker found while nobody holds the lock means a write was interrupted:
  `interrupted_write` reports it, and the next analyze removes the leftovers.

Readers pin the generation they read (a shared `flock` on its folder), and a
publish only deletes old generations nobody pins, so a query that started
before a publish finishes on the generation it started with. The lock file, the record of
its holder and the takeover of a stale one are graph/lock.py.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from codeimpact.graph import lock, manifest, storage_errors
from codeimpact.graph.errors import BadInput, CorruptIndex, IndexLocked, NoIndex
from codeimpact.graph.manifest import Damaged
from codeimpact.native.record import Hashed

INDEX_DIRNAME = ".codeimpact"
DB_FILENAME = "graph.kz"
CURRENT = "CURRENT"
WRITING = "writing.json"
GEN_PREFIX = "gen-"
# a generation folder that no reader pins and no name reaches any more, renamed to be removed
# in the background (`remove_trash`)
TRASH_PREFIX = "trash-"
_GEN_DIR = re.compile(r"gen-(\d{6,})")

# A status probe takes the lock for a moment (shared, non-blocking); a writer
# that happens to try at that instant retries for this long before giving up.
LOCK_GRACE_SECONDS = 0.5


class Generation(Hashed):
    number: int
    path: Path
    # the checksum of its manifest.json, as CURRENT records it (None: not recorded)
    manifest: str | None
    __slots__ = ("number", "path", "manifest")
    _uncompared = ("manifest",)

    def __init__(self, number: int, path: Path, manifest: str | None = None) -> None:
        self.number = number
        self.path = path
        self.manifest = manifest

    @property
    def db_path(self) -> Path:
        return self.path / DB_FILENAME


class WriteMarker(Hashed):
    """`writing.json`: a write that started; `pid`/`started_at` are None when unreadable."""

    generation: int | None
    dir: str | None
    pid: int | None
    started_at: float | None
    __slots__ = ("generation", "dir", "pid", "started_at")

    def __init__(
        self, generation: int | None, dir: str | None, pid: int | None, started_at: float | None
    ) -> None:
        self.generation = generation
        self.dir = dir
        self.pid = pid
        self.started_at = started_at


def check_repo(path: str | os.PathLike) -> Path:
    """The repository folder `path` names, resolved; BadInput when it is not one."""
    repo = Path(path)
    if not repo.exists():
        raise BadInput(f"no such directory: {repo}")
    if not repo.is_dir():
        raise BadInput(f"not a directory: {repo}")
    return repo.resolve()


def index_dir(repo: Path) -> Path:
    return repo / INDEX_DIRNAME


def ensure_index_dir(repo: Path) -> Path:
    d = index_dir(repo)
    if d.is_symlink() or (d.exists() and not d.is_dir()):
        raise BadInput(f"{d} is not an index folder: run `graph clean {repo}` to remove it")
    try:
        d.mkdir(exist_ok=True)
        gi = d / ".gitignore"
        if not gi.exists():
            gi.write_text("*\n")
    except OSError as e:
        if e.errno in storage_errors.KINDS:
            raise storage_errors.unwritable(e.errno, f"the index folder {d}") from e
        raise BadInput(f"cannot write the index folder {d}: {e.strerror or e}") from e
    if not os.access(d, os.W_OK):
        raise storage_errors.unwritable_folder(d)
    return d


def generation_dirname(number: int) -> str:
    return f"{GEN_PREFIX}{number:06d}"


def _damaged(idx: Path, name: str, what: str) -> Damaged:
    return Damaged(idx.parent, [(name, what)])


def _no_index(idx: Path) -> NoIndex | Damaged:
    repo = idx.parent
    if any((p / manifest.MANIFEST_NAME).is_file() for p in idx.glob(GEN_PREFIX + "*")):
        return Damaged(repo, [(CURRENT, "missing")])  # a published generation, unnamed
    if read_marker(idx) is not None:
        holder = lock.lock_holder(idx)
        if holder is not None:
            return NoIndex(
                f"no index at {repo} yet: graph analyze (pid {holder.get('pid')}) is writing "
                "the first one"
            )
        return NoIndex(
            f"no index at {repo}: the first graph analyze was interrupted; "
            f"run `graph analyze {repo}`"
        )
    return NoIndex(f"no index at {repo}: run `graph analyze {repo}`")


def read_current(idx: Path) -> Generation:
    """The live generation, or NoIndex / CorruptIndex with the command that fixes it."""
    cur = idx / CURRENT
    if idx.is_symlink():  # an index elsewhere would be read from outside the repository
        raise CorruptIndex(
            f"{idx} is a link, not an index folder: run `graph clean {idx.parent}`, "
            f"then `graph analyze {idx.parent}`"
        )
    try:
        raw = cur.read_bytes()
    except FileNotFoundError:
        raise _no_index(idx) from None
    except NotADirectoryError:
        raise CorruptIndex(
            f"{idx} is not an index folder: run `graph clean {idx.parent}`, "
            f"then `graph analyze {idx.parent}`"
        ) from None
    except OSError as e:
        raise _damaged(idx, CURRENT, f"unreadable: {e.strerror or e}") from e
    try:
        data = json.loads(raw)
        number = int(data["generation"])
        dirname = str(data["dir"])
        db_size = data.get("db_size")
        digest = data.get("manifest")
        sealed = data.get("check")
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise _damaged(idx, CURRENT, "not a record of the live generation") from e
    if sealed != _current_check(data):  # (none: written by an older codeimpact)
        raise _damaged(idx, CURRENT, "checksum mismatch" if sealed else "no checksum")
    # `dir` names a folder beside CURRENT, never a path elsewhere
    if not _GEN_DIR.fullmatch(dirname):
        raise _damaged(idx, CURRENT, "names no generation folder")
    path = idx / dirname
    try:
        st = os.stat(path / DB_FILENAME)
    except OSError:
        raise _damaged(idx, f"{dirname}/{DB_FILENAME}", "missing") from None
    if isinstance(db_size, int) and st.st_size != db_size:
        raise _damaged(
            idx, f"{dirname}/{DB_FILENAME}", f"{st.st_size} bytes, {db_size} were written"
        )
    return Generation(number, path, digest if isinstance(digest, str) else None)


def _current_check(record: dict) -> str:
    """CURRENT's own checksum, over its other fields: a flipped bit in the record (a key
    name, the size) is damage like any other, not a field silently missing."""
    fields = {k: v for k, v in record.items() if k != "check"}
    return manifest.digest(json.dumps(fields, sort_keys=True).encode())


class Pin:
    """A shared lock on one generation's folder: publish will not delete it while held."""

    def __init__(self, fd: int | None):
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def _current_bytes(idx: Path) -> bytes | None:
    try:
        return (idx / CURRENT).read_bytes()
    except OSError:
        return None


def pin_current(idx: Path, attempts: int = 5) -> tuple[Generation, Pin]:
    """The live generation, pinned; retried when a publish replaces it under our feet."""
    seen = _current_bytes(idx)
    for _ in range(attempts):
        try:
            gen = read_current(idx)
        except CorruptIndex:
            # A publish between reading CURRENT and opening its folder looks like damage;
            # only a CURRENT that did not change since is really damaged.
            now = _current_bytes(idx)
            if now == seen:
                raise
            seen = now
            continue
        try:
            fd = os.open(gen.path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            # blocks only while a publish is deleting this very folder
            fcntl.flock(fd, fcntl.LOCK_SH)
            if os.fstat(fd).st_nlink > 0:
                return gen, Pin(fd)
        except OSError:
            pass
        os.close(fd)
    return read_current(idx), Pin(None)


def _try_remove_generation(path: Path, salvage: Callable[[Path], None] | None = None,
                           defer: bool = False) -> bool:  # fmt: skip
    """Delete a generation folder unless a reader pins it; True if it is gone. `salvage`
    may first move files out of it (graph/spare.py: nobody has them open then); `defer`:
    rename it to the trash instead of deleting it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return True
    except OSError:
        shutil.rmtree(path, ignore_errors=True)
        return not path.exists()
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a reader still uses it; a later publish removes it
        if salvage is not None:
            salvage(path)
        if defer:
            with contextlib.suppress(OSError):  # (else deleted here)
                os.rename(path, path.with_name(TRASH_PREFIX + path.name))
                return True
        shutil.rmtree(path, ignore_errors=True)
        return not path.exists()
    finally:
        os.close(fd)


def next_generation(idx: Path) -> Generation:
    """Create the folder of the next generation and record that a write has started."""
    try:
        number = read_current(idx).number + 1
    except (NoIndex, CorruptIndex):
        number = 1
    # never reuse a folder a killed writer left behind
    while (idx / generation_dirname(number)).exists():
        if not _try_remove_generation(idx / generation_dirname(number)):
            number += 1
    path = idx / generation_dirname(number)
    path.mkdir()
    _UNSYNCED[os.path.abspath(path)] = (os.getpid(), set())
    _HASHED[os.path.abspath(path)] = {}
    gen = Generation(number, path)
    mark_writing(idx, gen)
    return gen


# Generation folders this process is writing and will publish: the fsyncs of their files
# and folders wait for `publish`, which makes them together (`_sync_paths`: on threads)
# before CURRENT names the generation, instead of one after another as each is written (an
# edit of Django made ~35, each waiting for its own journal commit). Exactly the deferred
# paths are synced: a file no writer fsynced before (the spare's database, written by Kùzu,
# a hard-linked pack) is not forced to disk by the batch. A child process fsyncs at once
# (its deferrals would not reach the parent that publishes). What a crash can leave is what
# it left before: a generation CURRENT names is durable whole; one it does not name is
# removed. folder -> (pid of its writer, paths whose fsync waits)
_UNSYNCED: dict[str, tuple[int, set[str]]] = {}


# The files this process wrote into a generation it will publish, with the xxh3 of the
# bytes it wrote (taken from memory as it wrote them: the manifest's hashing read each file
# back, ~5-10 ms of an edit's last step): folder -> {name in it: (its stat key then: size,
# mtime, ctime, inode; xxh3 hex)}. `publish` hands the manifest those whose file's stat key
# is still that one (renamed over, linked, written again: hashed at publish as before).
_HASHED: dict[str, dict[str, tuple[list[int], str]]] = {}


def note_written(path: Path | str, size: int, xxh3: str) -> None:
    """Record the checksum of a file just written (renamed into place) into a generation
    this process writes and will publish (`seal` reuses it); nothing for other files."""
    if _pending(path) is None:
        return
    p = os.path.abspath(path)
    for d, files in _HASHED.items():
        if p.startswith(d + os.sep):
            with contextlib.suppress(OSError):
                st = os.stat(p)
                if st.st_size == size:
                    files[p[len(d) + 1 :]] = (manifest.stat_key(st), xxh3)
            return


def _written_checksums(gen: Generation) -> dict[str, list]:
    """`note_written`'s entries of `gen` whose file is still the one written."""
    out = {}
    for name, (key, xxh3) in _HASHED.pop(os.path.abspath(gen.path), {}).items():
        with contextlib.suppress(OSError):
            if manifest.stat_key(os.stat(gen.path / name)) == key:
                out[name] = [key[0], xxh3]
    return out


def _pending(path: Path | str) -> set[str] | None:
    """The deferred fsyncs of the generation `path` lies in, when this process publishes it."""
    if not _UNSYNCED:
        return None
    p = os.path.abspath(path)
    for d, (pid, pending) in _UNSYNCED.items():
        if (p == d or p.startswith(d + os.sep)) and pid == os.getpid():
            return pending
    return None


def sync_with_publish(paths: Iterable[Path]) -> None:
    """fsync files (or folders) outside any generation that the generation this process is
    writing relies on (the facts cache: its pack and index), in `publish`'s batch before
    CURRENT names it, instead of one after another now; now when this process writes no
    generation (or several)."""
    mine = [pending for pid, pending in _UNSYNCED.values() if pid == os.getpid()]
    if len(mine) == 1:
        mine[0].update(os.path.abspath(p) for p in paths)
        return
    for p in paths:
        if os.path.isdir(p):
            fsync_dir(Path(p))
        else:
            fsync_file(Path(p))


def _deferred(path: Path | str) -> bool:
    """Whether `path` lies in a generation folder whose fsyncs `publish` makes."""
    return _pending(path) is not None


def fsync_fd(fd: int, path: Path | str) -> None:
    """fsync an open file now, or at publish when it is in a generation being written
    (`path`: the name it has once renamed)."""
    pending = _pending(path)
    if pending is None:
        os.fsync(fd)
    else:
        pending.add(os.path.abspath(path))


def fsync_file(path: Path) -> None:
    """Make a file (or folder) written without fsync durable (a copy, a file moved in unsynced)."""
    pending = _pending(path)
    if pending is not None:
        pending.add(os.path.abspath(path))
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    pending = _pending(path)
    if pending is not None:
        pending.add(os.path.abspath(path))
        return
    with contextlib.suppress(OSError):  # not every filesystem lets a directory be fsynced
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_fsync_dir = fsync_dir


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Replace `path` by `data` whole; `durable=False`: without fsync (a cache, whose loss
    in a crash costs only its work again)."""
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        if durable:
            f.flush()
            fsync_fd(f.fileno(), path)
    os.replace(tmp, path)
    if durable:
        if _UNSYNCED:  # (in a generation this process writes: its manifest's checksum now)
            note_written(path, len(data), manifest.digest(data))
        fsync_dir(path.parent)


def _sync_paths(paths: Iterable[str]) -> None:
    """fsync `paths` all at once: fsync waits for the disk outside the GIL, and the file
    system commits them together (every rename into them is done, so the order among them
    does not matter)."""
    _join_sync(_start_sync(paths))


# generation folder -> the fsyncs `sync_ahead` started for it (threads), which `publish`
# (or `discard`) waits for
_AHEAD: dict[str, tuple[list, list[OSError]]] = {}


def sync_ahead(gen: Generation) -> None:
    """Start the deferred fsyncs of what this process wrote of `gen` so far, on threads: the
    disk writes them back while the caller waits (an edit: for its database writer's commit,
    then the manifest's hashing) instead of in `publish`, which waits for them and syncs
    what was deferred since (the manifest, and each folder again). Nothing forks meanwhile:
    `publish` and `discard` end the threads."""
    key = os.path.abspath(gen.path)
    entry = _UNSYNCED.get(key)
    if entry is None or entry[0] != os.getpid() or key in _AHEAD or not entry[1]:
        return
    paths = set(entry[1])
    entry[1].clear()
    _AHEAD[key] = _start_sync(paths)


def _start_sync(paths: Iterable[str]) -> tuple[list, list[OSError]]:
    import threading

    todo = sorted(paths)
    errors: list[OSError] = []

    def sync(part: list[str]) -> None:
        for p in part:
            is_dir = os.path.isdir(p)
            try:
                fd = os.open(p, os.O_RDONLY)
            except FileNotFoundError:  # a temporary file renamed or removed meanwhile
                continue
            except OSError as e:
                if not is_dir:
                    errors.append(e)
                continue
            try:
                os.fsync(fd)
            except OSError as e:
                if not is_dir:  # not every filesystem lets a directory be fsynced
                    errors.append(e)
            finally:
                os.close(fd)

    n = min(8, len(todo))
    threads = [threading.Thread(target=sync, args=(todo[i::n],)) for i in range(n)]
    for t in threads:
        t.start()
    return threads, errors


def _join_sync(started: tuple[list, list[OSError]]) -> None:
    threads, errors = started
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def publish(idx: Path, gen: Generation, rows: dict[str, int] | None = None,
            outside: dict[str, int] | None = None, *,
            salvage: Callable[[Path], None] | None = None,
            checked: dict[str, list] | None = None, defer: bool = False,
            grown: dict[str, tuple[list[int], int]] | None = None) -> None:  # fmt: skip
    """Make `gen` the live generation and drop the older ones nobody reads any more
    (`defer`: to the trash, which the caller has removed, see `remove_stale`).

    Its manifest is written first (graph/manifest.py): `rows` are the row counts of its
    database tables (None: those of its current manifest, for a generation published again
    after an in-place change), `outside` the facts cache files it relies on; `salvage`:
    see `_try_remove_generation`; `checked`: file of `gen` -> [size, xxh3] its writer took and
    knows unchanged since (the manifest's entry, not hashed again); `grown`: files of `outside`
    this process appended to (see `manifest.seal`)."""
    try:
        db_size: int | None = os.stat(gen.db_path).st_size
    except OSError:
        db_size = None
    rows = manifest.recorded_rows(gen.path) if rows is None else rows
    try:
        live = read_current(idx)
        previous = (live.path, live.manifest) if live.path != gen.path else None
    except (NoIndex, CorruptIndex):
        previous = None
    ahead = _AHEAD.pop(os.path.abspath(gen.path), None)  # (started by `sync_ahead`)
    checked = {**_written_checksums(gen), **(checked or {})}
    try:
        digest = manifest.seal(gen.path, gen.number, rows, outside, previous, checked, grown)
    finally:
        if ahead is not None:
            _join_sync(ahead)
    writer, pending = _UNSYNCED.pop(os.path.abspath(gen.path), (None, ()))
    if writer == os.getpid():  # written by this process: durable before anything names it
        _sync_paths(pending)
    record = {"generation": gen.number, "dir": gen.path.name, "db_size": db_size,
              "manifest": digest}  # fmt: skip
    atomic_write(idx / CURRENT, json.dumps({**record, "check": _current_check(record)}).encode())
    marker = read_marker(idx)
    if marker is not None and marker.dir == gen.path.name:
        clear_marker(idx)
    remove_stale(idx, keep=gen.path.name, salvage=salvage, defer=defer)
    manifest.stamp_sealed(gen.path, outside or ())


def remove_stale(idx: Path, keep: str | None, salvage: Callable[[Path], None] | None = None,
                 defer: bool = False, keep_trash: bool = False) -> None:  # fmt: skip
    """Remove unpinned generation folders other than `keep`, the trash (unless `keep_trash`)
    and temporary files of killed writes. `defer`: the folders are renamed to the trash and
    the trash is left to `remove_trash` (an edit's spare leveller runs it in the background:
    deleting Django's generation folder was 5-8 ms of the run's wall); a kill leaves it to
    the next leveller or full build."""
    for child in idx.iterdir():
        if child.name.startswith(GEN_PREFIX) and child.name != keep:
            _try_remove_generation(child, salvage, defer)
        elif child.name.startswith(TRASH_PREFIX):
            if not (defer or keep_trash):
                shutil.rmtree(child, ignore_errors=True)
        elif child.name.startswith((CURRENT + ".tmp", WRITING + ".tmp")):
            with contextlib.suppress(OSError):
                child.unlink()


def remove_trash(idx: Path) -> None:
    """Delete the generation folders `remove_stale` renamed to the trash."""
    for child in idx.iterdir():
        if child.name.startswith(TRASH_PREFIX):
            shutil.rmtree(child, ignore_errors=True)


def stamp_live(idx: Path) -> None:
    """Stamp the live generation's files whose stamp is stale, hashing them (those that match
    its manifest only). For the spare's leveller, after `remove_trash`: unlinking the old
    folder moves the ctime of the files it shared with the live one (packs, id and key
    tables, ~35 MB on Django) after publish stamped them, and the next run (a no-op too)
    hashed them all again while git listed the files. Only the folder's files: the facts pack
    outside shares no link with it, and a run started meanwhile may be appending to it (its
    stamp taken then would not be the stat before the append, which `manifest.seal` needs to
    hash only what was appended)."""
    gen = read_current(idx)
    found = manifest.load(gen.path, gen.manifest, gen.number)
    check = manifest.verify(gen.path, found, lambda name: name.startswith(GEN_PREFIX))
    if check.verified and not check.damage:
        manifest.write_stamp(gen.path, check.verified)


def discard(gen: Generation) -> None:
    """Throw away a generation that will not be published."""
    ahead = _AHEAD.pop(os.path.abspath(gen.path), None)
    if ahead is not None:  # its threads end before the folder goes (and before any fork)
        with contextlib.suppress(OSError):
            _join_sync(ahead)
    _UNSYNCED.pop(os.path.abspath(gen.path), None)
    _HASHED.pop(os.path.abspath(gen.path), None)
    shutil.rmtree(gen.path, ignore_errors=True)
    idx = gen.path.parent
    marker = read_marker(idx)
    if marker is not None and marker.dir == gen.path.name:
        clear_marker(idx)


# ------------------------------------------------------------ the write marker
def mark_writing(idx: Path, gen: Generation) -> None:
    """Record that `gen` is being written (call before writing into it).

    Not fsynced: the marker only reports a write a killed writer left (status, and the
    message of an index not written yet), which a killed process leaves in the page cache
    as much as on disk; after a crash of the machine the leftovers are removed all the
    same (`next_generation`, `remove_stale`: no generation CURRENT does not name is kept).
    Its two syncs (file and folder, ~15-30 ms on these machines) were at the start of
    every run's serial path."""
    atomic_write(
        idx / WRITING,
        json.dumps(
            {
                "generation": gen.number,
                "dir": gen.path.name,
                "pid": os.getpid(),
                "started_at": time.time(),
            }
        ).encode(),
        durable=False,
    )


def read_marker(idx: Path) -> WriteMarker | None:
    try:
        raw = (idx / WRITING).read_bytes()
    except OSError:
        return None
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError
    except ValueError:
        return WriteMarker(None, None, None, None)  # present but garbled: still a write
    gen = data.get("generation")
    pid = data.get("pid")
    started = data.get("started_at")
    dirname = data.get("dir")
    return WriteMarker(
        gen if isinstance(gen, int) else None,
        dirname if isinstance(dirname, str) else None,
        pid if isinstance(pid, int) else None,
        float(started) if isinstance(started, (int, float)) else None,
    )


def clear_marker(idx: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (idx / WRITING).unlink()


def interrupted_write(idx: Path) -> WriteMarker | None:
    """The marker of a write that did not finish, or None.

    A marker while the lock is held is a write in progress; a marker naming the
    live generation is a write that published but was killed before tidying up.
    """
    marker = read_marker(idx)
    if marker is None or lock.lock_holder(idx) is not None:
        return None
    if marker.dir is not None:
        try:
            if read_current(idx).path.name == marker.dir:
                return None
        except (NoIndex, CorruptIndex):
            pass
    return marker


def _tidy_after_writer(idx: Path) -> None:
    """Run by the lock holder on its way out: drop the marker and every folder not live.

    That also removes what a killed writer left (its unpublished folder, or the
    previous generation if it died right after publishing), even when this run
    wrote nothing itself.
    """
    if not idx.is_dir():
        return  # `graph clean` removed it
    try:
        live: str | None = read_current(idx).path.name
    except (NoIndex, CorruptIndex):
        live = None
    clear_marker(idx)
    if live is not None:  # (the trash: its leveller's, which may be at it now)
        remove_stale(idx, keep=live, keep_trash=True)


# -------------------------------------------------------------------- the lock
# (the lock file, its holder record and stale-lock takeover: graph/lock.py)


@contextlib.contextmanager
def writer_lock(idx: Path, timeout: float = 0.0, note=None):
    """Hold the one-writer lock of an index; IndexLocked if another analyze holds it.

    `note(line)` is told when a stale lock (its holder gone) is taken over."""
    path = idx / lock.LOCK
    deadline = time.monotonic() + max(timeout, LOCK_GRACE_SECONDS)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:  # a read-only file system, a lock file we may not write
            if e.errno in storage_errors.KINDS:
                raise storage_errors.unwritable(e.errno, path) from e
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            old = lock.take_over(idx, path)
            if old is not None:
                if note is not None:
                    note(
                        f"took over the index lock of analyze pid {old.get('pid')}, "
                        "which is no longer running"
                    )
                continue
            if time.monotonic() >= deadline:
                holder = lock.lock_holder(idx)
                who = f" (pid {holder['pid']})" if holder and holder.get("pid") else ""
                raise IndexLocked(
                    f"another `graph analyze`{who} is writing the index at {idx.parent}; "
                    "wait for it to finish (or pass --wait SECONDS)"
                ) from None
            time.sleep(0.05)
            continue
        if lock.claim(idx, path, fd):
            break
        # `graph clean` removed the folder, or a takeover replaced the file, while we waited
        os.close(fd)
        ensure_index_dir(idx.parent)
    lock.HELD_LOCKS.add(fd)
    try:
        yield
        _tidy_after_writer(idx)
    except BaseException:
        with contextlib.suppress(Exception):
            _tidy_after_writer(idx)
        raise
    finally:
        lock.HELD_LOCKS.discard(fd)
        os.close(fd)


def remove_index(repo: Path) -> bool:
    """Delete `<repo>/.codeimpact` (never following a link); False if there was none."""
    idx = index_dir(repo)
    if idx.is_symlink() or idx.is_file():
        idx.unlink()
        return True
    if not idx.is_dir():
        return False
    with writer_lock(idx):
        shutil.rmtree(idx)
    return True
