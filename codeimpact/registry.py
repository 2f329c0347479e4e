"""The user's registry of analyzed repositories: `graph list`, `graph forget`, `graph mcp --all`.

One JSON file, `$XDG_DATA_HOME/codeimpact/registry.json` (else
`~/.local/share/codeimpact/registry.json`), to which every `graph analyze` without
`--index-only` records its repository: path, indexed commit, when, languages (files
per language) and counts. `--index-only` never touches it (planners and CI build an
index and nothing else). Every change is made under an exclusive lock
(`registry.lock` beside it) and written atomically (a temporary file renamed over
the old one), so two analyzes at once never lose an entry, and a crash leaves the
old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from codeimpact.graph.errors import BadInput

REGISTRY_SCHEMA = "codeimpact.registry/1"
LIST_SCHEMA = "codeimpact.list/1"
FILE_NAME = "registry.json"


def data_home(environ: dict | None = None) -> Path:
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):  # the spec: a relative value is to be ignored
        return Path(xdg)
    return Path(env.get("HOME") or Path.home()) / ".local" / "share"


@dataclass
class RepoEntry:
    path: str  # absolute, resolved
    indexed_commit: str | None
    indexed_at: str | None  # ISO 8601, UTC
    languages: dict[str, int] = field(default_factory=dict)  # language -> indexed files
    files: int = 0
    symbols: int = 0
    # the index generation the entry describes (None: recorded before it was kept); not in
    # `graph list`: an unchanged analyze keeps the entry that names its generation
    generation: int | None = None

    @classmethod
    def from_json(cls, raw: object) -> RepoEntry | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
            return None
        langs = raw.get("languages")
        return cls(
            path=raw["path"],
            indexed_commit=raw.get("indexed_commit"),
            indexed_at=raw.get("indexed_at"),
            languages={str(k): int(v) for k, v in langs.items()} if isinstance(langs, dict) else {},
            files=int(raw.get("files") or 0),
            symbols=int(raw.get("symbols") or 0),
            generation=raw["generation"] if isinstance(raw.get("generation"), int) else None,
        )


class Registry:
    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def default(cls) -> Registry:
        return cls(data_home() / "codeimpact" / FILE_NAME)

    def entries(self) -> list[RepoEntry]:
        """The registered repositories, by path (BadInput when the file is damaged)."""
        return self._read()

    def record(self, entry: RepoEntry) -> None:
        """Add `entry`, or replace the one with its path."""
        with self._locked():
            kept = [e for e in self._read() if e.path != entry.path]
            self._write(sorted([*kept, entry], key=lambda e: e.path))

    def forget(self, path: str) -> bool:
        """Remove the entry of `path`; False when it was not registered."""
        with self._locked():
            entries = self._read()
            kept = [e for e in entries if e.path != path]
            if len(kept) == len(entries):
                return False
            self._write(kept)
            return True

    # ------------------------------------------------------------------ storage
    def _read(self) -> list[RepoEntry]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as e:
            raise BadInput(f"cannot read the registry {self.path}: {e.strerror or e}") from None
        try:
            raw = json.loads(text)
            repos = raw["repos"] if isinstance(raw, dict) else None
            if not isinstance(repos, list):
                raise ValueError("no list of repos")
        except (ValueError, KeyError) as e:
            raise BadInput(
                f"the registry {self.path} is damaged ({e}): fix or remove it; `graph analyze` "
                "records each repository again"
            ) from None
        return sorted(
            (e for e in map(RepoEntry.from_json, repos) if e is not None), key=lambda e: e.path
        )

    def _write(self, entries: list[RepoEntry]) -> None:
        data = {"schema": REGISTRY_SCHEMA, "repos": [asdict(e) for e in entries]}
        folder = self.path.parent
        fd, tmp = tempfile.mkstemp(prefix=".registry-", suffix=".json", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=2)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(folder / "registry.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise BadInput(f"cannot write the registry in {folder}: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # another analyze's update takes milliseconds
            yield
        finally:
            os.close(fd)


# ---------------------------------------------------------------------- the facts
def entry_of(index) -> RepoEntry:
    """What the registry records of an open index."""
    meta = index.meta
    _, rows = index.reader.query("MATCH (f:File) RETURN f.language, count(*)")
    languages = {str(lang): int(n) for lang, n in sorted(rows) if lang}
    stats = meta.get("stats") if isinstance(meta.get("stats"), dict) else {}
    indexed_at = meta.get("indexed_at")
    return RepoEntry(
        path=str(index.repo),
        indexed_commit=meta.get("indexed_commit"),
        indexed_at=_iso(indexed_at) if isinstance(indexed_at, (int, float)) else None,
        languages=languages,
        files=int(stats.get("files") or sum(languages.values())),
        symbols=int(stats.get("symbols") or 0),
        generation=index.generation,
    )


def _iso(ts: float) -> str:
    when = dt.datetime.fromtimestamp(ts, dt.timezone.utc)
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


def record_repo(repo: Path, registry: Registry | None = None) -> RepoEntry:
    """Register the repository whose index was just written, as its index says."""
    from codeimpact.query.index import Index

    with Index.open(repo) as index:
        entry = entry_of(index)
    (registry or Registry.default()).record(entry)
    return entry


def record_run(report, registry: Registry | None = None) -> RepoEntry:
    """Register the repository an analyze run (`report`, indexer/report.py) just indexed,
    from what the run knows: opening the database for it cost every `graph analyze` ~60 ms
    of Kùzu start-up and queries (a third of an edit's run). An unchanged run did not read
    when its generation was written: the entry of that generation stands, else the index
    is opened as before."""
    registry = registry or Registry.default()
    path = str(Path(report.repo).resolve())
    entry = RepoEntry(
        path=path,
        indexed_commit=report.indexed_commit,
        indexed_at=_iso(report.indexed_at) if report.indexed_at is not None else None,
        languages=dict(report.languages),
        files=report.files,
        symbols=report.symbols,
        generation=report.generation,
    )
    if report.indexed_at is not None:
        registry.record(entry)
        return entry
    for known in registry.entries():
        if known.path == path:
            if replace(known, indexed_at=None) == entry:
                return known
            break
    return record_repo(Path(path), registry)


def listing(registry: Registry | None = None) -> dict:
    """What `graph list --json` prints: every registered repository and whether its index
    is fresh now (the cheap check; `reasons` say why not, or why it could not be read)."""
    from codeimpact.graph.errors import CodeImpactError
    from codeimpact.query.freshness import freshness
    from codeimpact.query.index import Index

    repos = []
    for entry in (registry or Registry.default()).entries():
        fresh: bool | None
        try:
            with Index.open(entry.path) as index:
                state = freshness(index)
                fresh, reasons = state.fresh, state.reasons
        except CodeImpactError as e:
            fresh, reasons = False, [str(e).splitlines()[0]]
        e = asdict(entry)
        del e["generation"]
        repos.append(
            {
                "path": e.pop("path"),
                "indexed_commit": e.pop("indexed_commit"),
                "indexed_at": e.pop("indexed_at"),
                "fresh": fresh,
                "reasons": reasons,
                **e,  # languages, files, symbols
            }
        )
    return {"schema": LIST_SCHEMA, "repos": repos}
