"""The edges one file's resolution makes, each built from its rule (rules.CONFIDENCE)."""

from __future__ import annotations

from collections.abc import Iterable

from codeimpact.indexer.lang.engine.rules import CONFIDENCE
from codeimpact.indexer.resolved import Edge

# An edge is held as the plain tuple of Edge's fields until the file's edges are
# deduplicated: resolved.dedupe_edges makes the ones kept Edge (in C). Made here as an Edge,
# each of the ~250K edges of Django's resolution was an Edge made through tuple.__new__ (an
# argument tuple and a tuple of the fields besides it) and freed as a tuple subtype, and 1
# in 7 was dropped by the dedupe. The fields they are written for, checked once.
if Edge._fields != ("rel", "src", "dst", "confidence", "reason", "line"):
    raise ImportError(f"engine/edges.py builds edges of fields it does not know: {Edge._fields}")


class Edges(list):
    """A list of edges, as the plain tuples of Edge's fields (resolved.dedupe_edges makes
    the kept ones Edge); every edge is added with the rule that found its target, and takes
    that rule's confidence (one place builds them)."""

    def add(self, rel: str, src: str, dst: str, reason: str, line: int) -> None:
        self.append((rel, src, dst, CONFIDENCE[reason], reason, line))

    def call(self, src: str, dst: str, reason: str, line: int) -> None:
        self.append(("CALLS", src, dst, CONFIDENCE[reason], reason, line))

    def dispatch(self, src: str, targets: Iterable[str], line: int) -> None:
        """Calls to each implementation that may run instead of the one resolved."""
        conf = CONFIDENCE["dispatch"]
        append = self.append
        for dst in targets:  # (a loop, not a generator: a function made per call)
            append(("CALLS", src, dst, conf, "dispatch", line))
