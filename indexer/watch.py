"""`graph analyze --watch`: keep the index current as files change.

File events (watchdog: inotify on Linux) only mark the tree dirty; a single
loop waits until the events have been quiet for `debounce` seconds and then
runs one incremental analyze, so refreshes never overlap and a burst of
saves costs one refresh.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from codeimpact.graph.layout import INDEX_DIRNAME
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.pipeline import analyze
from codeimpact.indexer.report import AnalyzeReport

IGNORED_PARTS = frozenset({INDEX_DIRNAME, ".git", "__pycache__", "node_modules"})


class _Dirty(FileSystemEventHandler):
    def __init__(self, root: Path):
        self.root = root
        self.paths: set[str] = set()
        self.last = 0.0
        self.lock = threading.Lock()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = Path(raw if isinstance(raw, str) else raw.decode())
            try:
                rel = path.relative_to(self.root)
            except ValueError:
                continue
            if IGNORED_PARTS.intersection(rel.parts):
                continue
            with self.lock:
                self.paths.add(rel.as_posix())
                self.last = time.monotonic()

    def take_if_quiet(self, debounce: float) -> set[str] | None:
        with self.lock:
            if self.paths and time.monotonic() - self.last >= debounce:
                out, self.paths = self.paths, set()
                return out
        return None


def refresh_line(report: AnalyzeReport, events: int) -> str:
    if report.mode == "unchanged":
        return f"{events} events, no content changed ({report.seconds * 1000:.0f} ms)"
    changed = sum(report.changes.values()) if report.changes else report.files
    return (
        f"changed {changed}, re-parsed {report.parsed}, re-resolved {report.resolved} "
        f"({report.mode}) in {report.seconds * 1000:.0f} ms"
    )


def watch(
    repo: Path,
    config: IndexConfig,
    options: RunOptions,
    echo: Callable[[str], None],
    debounce: float = 0.3,
    stop: threading.Event | None = None,
) -> None:
    """Analyze once, then after every quiet burst of changes, until `stop` is set or Ctrl-C."""
    stop = stop or threading.Event()
    repo = repo.resolve()
    # watch first, so an edit made while the first analyze runs is not missed
    handler = _Dirty(repo)
    observer = Observer()
    observer.schedule(handler, str(repo), recursive=True)
    observer.start()
    try:
        report = analyze(repo, config, options)
        echo(report.summary())
        while not stop.is_set():
            stop.wait(0.05)
            events = handler.take_if_quiet(debounce)
            if events is None:
                continue
            report = analyze(repo, config, options)
            echo(refresh_line(report, len(events)))
    except KeyboardInterrupt:
        pass
    finally:
        observer.stop()
        observer.join(timeout=5)
