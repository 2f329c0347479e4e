"""Observed test -> function links (imported coverage), kept beside the generations.

`graph coverage import` records which functions each test was seen to execute. The
links live in `<repo>/.codeimpact/observed/links.bin`, outside every generation
folder: an analyze (incremental, full or `--force`) publishes a new generation and
leaves them as they are, because they are evidence from a test run that no
re-index can recreate. Each query checks them against the graph it answers from
(a link whose function's file changed since the observation is stale), so keeping
them across generations never makes an answer silently wrong. `graph clean` and
`graph coverage clear` remove them.

The file is one header line, `codeimpact-observed/1 <sha256 of the rest>\\n`, then
zlib-compressed JSON. A file whose checksum or structure does not hold is damaged:
reading it raises CorruptIndex (queries refuse, they never answer from it) with the
commands that fix it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codeimpact.graph.errors import CorruptIndex
from codeimpact.graph.layout import atomic_write

OBSERVED_DIR = "observed"
LINKS_FILE = "links.bin"
FORMAT = "codeimpact-observed/1"


@dataclass(frozen=True)
class ObservedTest:
    uid: str  # the test's symbol (for an inherited test method: where its code is)
    run_id: str  # what the test runner accepts (`tests/t.py::TestC::test_x`)
    file: str  # the file of `uid`
    context: str  # one coverage context that named this test (the first, as recorded)


@dataclass(frozen=True)
class Observation:
    """Everything one `graph coverage import` recorded."""

    imported_at: float  # seconds since the epoch
    data_file: str  # the coverage data file read (absolute)
    data_mtime: float  # its modification time: when the coverage run wrote it
    commit: str | None  # HEAD when imported: the commit the tests ran at, as far as is known
    indexed_commit: str | None  # the commit of the index the lines were mapped with
    generation: int  # that index's generation
    context_kind: str  # "pytest" (--cov-context=test), "test_function" or "mixed"
    file_hashes: dict[str, str]  # path -> content hash at the observation (mapped files, tests)
    tests: list[ObservedTest]
    functions: list[str]  # uids of the functions some test executed
    links: list[list[int]]  # per test (same order): indexes into `functions`, ascending
    skipped_files: dict[str, str] = field(
        default_factory=dict
    )  # path -> why its lines weren't used
    summary: dict[str, Any] = field(default_factory=dict)  # the import's counts, as reported


def observed_path(idx: Path) -> Path:
    return idx / OBSERVED_DIR / LINKS_FILE


def _damaged(idx: Path, what: str) -> CorruptIndex:
    return CorruptIndex(
        f"the observed coverage at {idx / OBSERVED_DIR} is damaged ({what}): run "
        f"`graph coverage import DATA_FILE --repo {idx.parent}` again, or "
        f"`graph coverage clear --repo {idx.parent}`"
    )


def encode(obs: Observation) -> bytes:
    body = zlib.compress(json.dumps(asdict(obs), separators=(",", ":"), sort_keys=True).encode(), 6)
    return f"{FORMAT} {hashlib.sha256(body).hexdigest()}\n".encode() + body


def write_observed(idx: Path, obs: Observation) -> Path:
    """Replace the observed links atomically (a reader sees the old file or the new one)."""
    path = observed_path(idx)
    path.parent.mkdir(exist_ok=True)
    atomic_write(path, encode(obs))
    return path


def remove_observed(idx: Path) -> bool:
    """Forget the observed links; False when there were none."""
    folder = idx / OBSERVED_DIR
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
        return True
    if not folder.is_dir():
        return False
    shutil.rmtree(folder)
    return True


def read_observed(idx: Path) -> Observation | None:
    """The observed links, None when none were imported; CorruptIndex when damaged."""
    path = observed_path(idx)
    if (idx / OBSERVED_DIR).is_symlink():
        raise _damaged(idx, "the folder is a link")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise _damaged(idx, f"{LINKS_FILE}: {e.strerror or e}") from e
    header, sep, body = raw.partition(b"\n")
    parts = header.split(b" ")
    if not sep or len(parts) != 2 or parts[0] != FORMAT.encode():
        raise _damaged(idx, f"{LINKS_FILE} is not in the {FORMAT} format")
    if hashlib.sha256(body).hexdigest().encode() != parts[1]:
        raise _damaged(idx, f"{LINKS_FILE} fails its checksum")
    try:
        data = json.loads(zlib.decompress(body))
        return _observation(data)
    except (ValueError, TypeError, KeyError, AttributeError, zlib.error) as e:
        raise _damaged(idx, f"{LINKS_FILE} holds no valid links") from e


def _check(ok: bool) -> None:
    if not ok:
        raise ValueError("malformed observation")


def _observation(data: dict) -> Observation:
    """Decode and check every field: the links index into lists the file itself holds."""
    tests = [ObservedTest(**t) for t in data["tests"]]
    for t in tests:
        _check(all(isinstance(v, str) for v in (t.uid, t.run_id, t.file, t.context)))
    functions = data["functions"]
    links = data["links"]
    hashes = data["file_hashes"]
    _check(isinstance(functions, list) and all(isinstance(u, str) for u in functions))
    _check(isinstance(links, list) and len(links) == len(tests))
    n = len(functions)
    for row in links:
        _check(isinstance(row, list) and all(isinstance(k, int) and 0 <= k < n for k in row))
    _check(isinstance(hashes, dict) and all(isinstance(v, str) for v in hashes.values()))
    skipped = data["skipped_files"]
    _check(isinstance(skipped, dict) and all(isinstance(v, str) for v in skipped.values()))
    for key, types in (
        ("imported_at", (int, float)),
        ("data_mtime", (int, float)),
        ("data_file", (str,)),
        ("commit", (str, type(None))),
        ("indexed_commit", (str, type(None))),
        ("generation", (int,)),
        ("context_kind", (str,)),
        ("summary", (dict,)),
    ):
        _check(isinstance(data[key], types))
    return Observation(
        imported_at=float(data["imported_at"]),
        data_file=data["data_file"],
        data_mtime=float(data["data_mtime"]),
        commit=data["commit"],
        indexed_commit=data["indexed_commit"],
        generation=data["generation"],
        context_kind=data["context_kind"],
        file_hashes=dict(hashes),
        tests=tests,
        functions=list(functions),
        links=[list(row) for row in links],
        skipped_files=dict(skipped),
        summary=dict(data["summary"]),
    )


def file_of(uid: str) -> str:
    """The file part of a uid (`pkg/a.py::f` -> `pkg/a.py`)."""
    return uid.partition("::")[0]
