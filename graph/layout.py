"""Where an index lives on disk and how generations replace each other.

`<repo>/.codeimpact/` holds `CURRENT` (which generation is live), one folder per
generation (`gen-000007/` with the Kùzu database and the CSR snapshot), the
facts cache and the writer lock. A writer builds generation N+1 in its own
folder and publishes it by atomically replacing `CURRENT`, so a reader never
sees a half-written graph and a killed writer leaves generation N live.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from codeimpact.graph.errors import BadInput, CorruptIndex, IndexLocked, NoIndex

INDEX_DIRNAME = ".codeimpact"
DB_FILENAME = "graph.kz"
CURRENT = "CURRENT"
WRITING = "writing.json"


@dataclass(frozen=True)
class Generation:
    number: int
    path: Path

    @property
    def db_path(self) -> Path:
        return self.path / DB_FILENAME


def index_dir(repo: Path) -> Path:
    return repo / INDEX_DIRNAME


def ensure_index_dir(repo: Path) -> Path:
    d = index_dir(repo)
    try:
        d.mkdir(exist_ok=True)
        gi = d / ".gitignore"
        if not gi.exists():
            gi.write_text("*\n")
    except OSError as e:
        raise BadInput(f"cannot write the index folder {d}: {e.strerror or e}") from e
    if not os.access(d, os.W_OK):
        raise BadInput(f"cannot write the index folder {d}: permission denied")
    return d


def generation_dirname(number: int) -> str:
    return f"gen-{number:06d}"


def read_current(idx: Path) -> Generation:
    """The live generation, or NoIndex / CorruptIndex with the command that fixes it."""
    cur = idx / CURRENT
    if not cur.exists():
        raise NoIndex(f"no index at {idx.parent}: run `graph analyze {idx.parent}`")
    try:
        data = json.loads(cur.read_text())
        number = int(data["generation"])
        path = idx / str(data["dir"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CorruptIndex(
            f"the index at {idx.parent} is unreadable ({CURRENT} is damaged): "
            f"run `graph analyze --force {idx.parent}`"
        ) from e
    if not (path / DB_FILENAME).is_file():
        raise CorruptIndex(
            f"the index at {idx.parent} is missing its database: "
            f"run `graph analyze --force {idx.parent}`"
        )
    return Generation(number, path)


def next_generation(idx: Path) -> Generation:
    try:
        number = read_current(idx).number + 1
    except (NoIndex, CorruptIndex):
        number = 1
    # never reuse a folder a killed writer left behind
    while (idx / generation_dirname(number)).exists():
        shutil.rmtree(idx / generation_dirname(number), ignore_errors=True)
        if (idx / generation_dirname(number)).exists():
            number += 1
    path = idx / generation_dirname(number)
    path.mkdir()
    return Generation(number, path)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def publish(idx: Path, gen: Generation) -> None:
    """Make `gen` the live generation and drop the older ones."""
    atomic_write(
        idx / CURRENT,
        json.dumps({"generation": gen.number, "dir": gen.path.name}).encode(),
    )
    for child in idx.iterdir():
        if child.name.startswith("gen-") and child.name != gen.path.name:
            shutil.rmtree(child, ignore_errors=True)


def discard(gen: Generation) -> None:
    shutil.rmtree(gen.path, ignore_errors=True)


@contextlib.contextmanager
def writer_lock(idx: Path, timeout: float = 0.0):
    """Hold the one-writer lock of an index; IndexLocked if another analyze holds it."""
    path = idx / "lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise IndexLocked(
                        f"another `graph analyze` is writing the index at {idx.parent}; "
                        "wait for it to finish (or pass --wait SECONDS)"
                    ) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)


def lock_is_held(idx: Path) -> bool:
    path = idx / "lock"
    if not path.exists():
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)
