"""The edges one file's resolution makes, each built from its rule (rules.CONFIDENCE)."""

from __future__ import annotations

from collections.abc import Iterable

from codeimpact.indexer.lang.engine.rules import CONFIDENCE
from codeimpact.indexer.resolved import Edge


class Edges(list):
    """A list of Edge; every edge is added with the rule that found its target, and takes
    that rule's confidence (one place builds them)."""

    def add(self, rel: str, src: str, dst: str, reason: str, line: int) -> None:
        self.append(Edge(rel, src, dst, CONFIDENCE[reason], reason, line))

    def call(self, src: str, dst: str, reason: str, line: int) -> None:
        self.append(Edge("CALLS", src, dst, CONFIDENCE[reason], reason, line))

    def dispatch(self, src: str, targets: Iterable[str], line: int) -> None:
        """Calls to each implementation that may run instead of the one resolved."""
        conf = CONFIDENCE["dispatch"]
        self.extend(Edge("CALLS", src, dst, conf, "dispatch", line) for dst in targets)
