"""A full build's resolve host forked before the extraction, fed each file's facts blob as it
comes (extraction.facts_for `each`): it decodes them while the workers extract, not on the
serial stretch between the extraction's end and its first worker's fork (one core idle;
decoding was about a third of the host's build on Django). The builder sends the order
once the facts are all there (`Feed.go`); the host then builds its projects from the facts
it decoded, as the host forked after the extraction builds from the builder's LazyFacts.

Objects meant for the host are made in the host: decoded in the builder before the fork,
they were copied page by page by the host (refcounts) and again by the builder freeing
them (tree PSS 337 -> 395 MB on Django).

Decoded as they come: the files of the languages whose resolver indexes every file's facts
whole at its build (EARLY_LANGUAGES: Python's FileIndex holds them). A resolver keeping a
slim copy per file (cfamily) decodes, slims and forgets one file at a time, never all at
once: the host keeps those files' blobs (decoded when asked for, again after a `forget`),
so an early host is forked only when they are few (`worth_feeding`; Django: 112 .js files
beside 2,818 .py). A file the host was not sent is never asked for: the builder sends `go`
only when every file of the order was sent (else it cancels the host and forks one after
the extraction, as before).
"""

from __future__ import annotations

import contextlib
import marshal
import multiprocessing as mp

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lazy_facts import LazyFacts

# the languages whose resolver indexes every file's facts whole when it is built
EARLY_LANGUAGES = frozenset({"python"})
# blobs forwarded per message (Django's 2,930 blobs are 23 MB): a message is made whole
# (marshal) and freed once sent, so one under glibc's mmap threshold (128 KiB) that reuses
# the same heap chunk: larger, each was mmap'd and freed, which raises the threshold to its
# size, and the next ones stayed in the builder's heap (its PSS +4 MB, the writer's +7)
BATCH_BYTES = 1 << 16
# the sources of other languages, at most, in a tree fed to an early host (their blobs,
# kept by the host, are about their size)
OTHERS_MAX_BYTES = 8 << 20


def worth_feeding(sizes: dict[str, int]) -> bool:
    """Whether a tree of these parseable files (language -> source bytes) is resolved by an
    early host: some of EARLY_LANGUAGES, few bytes of others."""
    early = sum(n for lang, n in sizes.items() if lang in EARLY_LANGUAGES)
    others = sum(sizes.values()) - early
    return early > 0 and others <= min(OTHERS_MAX_BYTES, early // 4)


class Feed:
    """Each file's blob from the builder to the early host: `take(path, blob)` and `go(order)`
    in the builder (after `forked()`), `receive()` in the host."""

    def __init__(self) -> None:
        self._r, self._w = mp.get_context("fork").Pipe(duplex=False)
        self._batch: list[tuple[str, bytes]] = []
        self._size = 0
        self.sent: set[str] = set()
        self.broken = False  # the host is gone: the builder resolves without it

    def forked(self) -> None:
        """In the builder once the host is forked: its end only."""
        self._r.close()

    def take(self, path: str, blob: bytes) -> None:
        if self.broken:
            return
        self._batch.append((path, blob))
        self._size += len(blob)
        self.sent.add(path)
        if self._size >= BATCH_BYTES:
            self._send(self._batch)

    def go(self, order: list[str]) -> bool:
        """The order sent after the last blobs, when every file of it was sent (whether)."""
        if not self.broken and self.sent.issuperset(order):
            self._send(self._batch)
            self._send(("go", order))
        self.close()
        return not self.broken and self.sent.issuperset(order)

    def close(self) -> None:
        self._batch = []
        self._w.close()

    def _send(self, msg: object) -> None:
        try:
            self._w.send_bytes(marshal.dumps(msg))
        except OSError:  # the host died
            self.broken = True
        self._batch, self._size = [], 0

    def receive(self, language_of: dict[str, str]) -> tuple[list[str], LazyFacts]:
        """In the host: the facts sent until `go`, those of EARLY_LANGUAGES decoded as they
        come (the caller holds `lang.api.shared_values` meanwhile); (the order, its facts)."""
        self._w.close()
        decoded: dict[str, FileFacts] = {}
        kept: dict[str, bytes] = {}
        while True:
            msg = marshal.loads(self._r.recv_bytes())  # (EOFError: the builder is gone)
            if isinstance(msg, tuple):
                break
            for path, blob in msg:
                if language_of.get(path) not in EARLY_LANGUAGES:
                    kept[path] = blob
                    continue
                # (one the decoder refuses is refused again when it is asked for: an error)
                with contextlib.suppress(ValueError, EOFError, TypeError, IndexError):
                    decoded[path] = FileFacts.from_bytes(blob)
        self._r.close()
        order = msg[1]

        def load(path: str) -> FileFacts:
            blob = kept.get(path)
            if blob is None:
                raise LookupError(f"the early resolve host has no facts of {path}")
            return FileFacts.from_bytes(blob)

        facts = LazyFacts(order, load)
        facts.prime(decoded)
        return order, facts
