"""The edges one file's resolution makes, each built from its rule (rules.CONFIDENCE)."""

from __future__ import annotations

from collections.abc import Iterable

from codeimpact.indexer.lang.engine.rules import CONFIDENCE
from codeimpact.indexer.resolved import Edge

# An Edge made from its fields as a tuple of that type: the named tuple's own __new__ is a
# Python function, one more frame for each of the ~350K edges of Django's resolution. It
# checks the number of fields, which this does not: the fields it is written for, checked once.
_new = tuple.__new__
if Edge._fields != ("rel", "src", "dst", "confidence", "reason", "line"):
    raise ImportError(f"engine/edges.py builds edges of fields it does not know: {Edge._fields}")


class Edges(list):
    """A list of Edge; every edge is added with the rule that found its target, and takes
    that rule's confidence (one place builds them)."""

    def add(self, rel: str, src: str, dst: str, reason: str, line: int) -> None:
        self.append(_new(Edge, (rel, src, dst, CONFIDENCE[reason], reason, line)))

    def call(self, src: str, dst: str, reason: str, line: int) -> None:
        self.append(_new(Edge, ("CALLS", src, dst, CONFIDENCE[reason], reason, line)))

    def dispatch(self, src: str, targets: Iterable[str], line: int) -> None:
        """Calls to each implementation that may run instead of the one resolved."""
        conf = CONFIDENCE["dispatch"]
        append = self.append
        for dst in targets:  # (a loop, not a generator: a function made per call)
            append(_new(Edge, ("CALLS", src, dst, conf, "dispatch", line)))
