"""An open index: the read-only database, its meta and (lazily) its CSR snapshot.

Every question is asked of an `Index`; the CLI, the MCP server and the Python
API are thin layers over it.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codeimpact.graph.errors import BadInput, StaleIndex
from codeimpact.graph.manifest import Damaged
from codeimpact.graph.store import Reader
from codeimpact.query.cypher import DEFAULT_LIMIT, DEFAULT_TIMEOUT_S, CypherResult, run_cypher

__all__ = ["CypherResult", "Index", "SymbolInfo"]


@dataclass
class SymbolInfo:
    uid: str
    id: int
    kind: str
    name: str
    qualified_name: str
    file: str
    start_line: int
    end_line: int
    signature: str
    is_test: bool

    @classmethod
    def from_row(cls, row: list) -> SymbolInfo:
        return cls(*row)


SYMBOL_COLUMNS = (
    "s.uid, s.id, s.kind, s.name, s.qualified_name, s.file, s.start_line, s.end_line, "
    "s.signature, s.is_test"
)


class Index:
    """A read-only view of one repository's index."""

    def __init__(self, repo: Path, reader: Reader):
        self.repo = repo
        self.reader = reader
        self._snapshot = None
        self.tree_watch = None  # query.freshness.TreeWatch: the cheap freshness check, kept
        self._graph_lock = threading.Lock()
        self.watch_lock = threading.Lock()  # makes tree_watch once

    @classmethod
    def open(cls, path: str | os.PathLike = ".", require_fresh: bool = False) -> Index:
        """Open the index of the repository at `path`; StaleIndex if `require_fresh` and it is not."""
        repo = Path(path)
        if not repo.is_dir():
            raise BadInput(f"not a directory: {repo}")
        repo = repo.resolve()
        index = cls(repo, Reader(repo))
        if require_fresh:
            from codeimpact.query.freshness import freshness

            state = freshness(index)
            if state.fresh is False:
                index.close()
                raise StaleIndex("the index is stale: " + "; ".join(state.reasons))
        return index

    @property
    def meta(self) -> dict:
        return self.reader.meta

    @property
    def generation(self) -> int:
        return self.reader.gen.number

    def recheck(self) -> None:
        """Damaged if the files queries read changed since this index was opened (a
        long-lived server asks before each call: damage written meanwhile is refused)."""
        self.reader.recheck()

    def close(self) -> None:
        if self.tree_watch is not None:
            self.tree_watch.close()
            self.tree_watch = None
        self.reader.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ lookups
    def cypher(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        limit: int | None = DEFAULT_LIMIT,
        max_bytes: int | None = None,
        timeout: float | None = DEFAULT_TIMEOUT_S,
    ) -> CypherResult:
        """Run one read-only Cypher query (BadInput if it is anything more: see
        `query/cypher_guard.py`); values are passed as `params`, never spliced in.

        At most `limit` rows (0 or None: all), about `max_bytes` of rows as JSON (None:
        no byte cap), `timeout` seconds (0 or None: no limit); a cut result has
        `truncated` set and `total` the rows the query had."""
        return run_cypher(
            self.reader.conn,
            query,
            params,
            limit=limit,
            max_bytes=max_bytes,
            timeout_s=timeout,
        )

    def query(self, query: str, params: dict[str, Any] | None = None) -> CypherResult:
        """One of codeimpact's own parameterised reading queries: every row, unchecked.
        Never pass it text from a user: that is `cypher`."""
        try:
            columns, rows = self.reader.query(query, params or {})
        except RuntimeError as e:
            raise BadInput(f"cypher: {str(e).splitlines()[0]}") from e
        return CypherResult(columns, [list(r) for r in rows], total=len(rows))

    def search(self, name: str, kind: str | None = None, limit: int = 50) -> list[SymbolInfo]:
        """Symbols whose name or qualified name contains `name` (case-insensitive), best first."""
        where = "(lower(s.name) CONTAINS $q OR lower(s.qualified_name) CONTAINS $q)"
        params: dict[str, Any] = {"q": name.lower(), "exact": name, "limit": limit}
        if kind:
            where += " AND s.kind = $kind"
            params["kind"] = kind
        query = (
            f"MATCH (s:Symbol) WHERE {where} "
            f"RETURN {SYMBOL_COLUMNS}, "
            "CASE WHEN s.name = $exact THEN 0 WHEN s.qualified_name = $exact THEN 0 "
            "WHEN lower(s.name) = $q THEN 1 ELSE 2 END AS rank "
            "ORDER BY rank, size(s.qualified_name), s.uid LIMIT $limit"
        )
        _, rows = self.reader.query(query, params)
        return [SymbolInfo.from_row(r[:10]) for r in rows]

    # ------------------------------------------------------------------ traversal questions
    # Implemented in query/graphview.py, target.py, impact.py, deps.py, context.py, trace.py.
    # `limit` caps the listed items (counts stay complete; 0 or None: no cap);
    # `check_freshness=False` skips the per-call `git status` behind the freshness block.
    @property
    def graph(self):
        """The snapshot + symbol table the traversals read, loaded on first use (once, even
        when several threads ask at the same time)."""
        view = self.__dict__.get("_graph_view")
        if view is None:
            with self._graph_lock:
                view = self.__dict__.get("_graph_view")
                if view is None:
                    from codeimpact.query.graphview import load_view

                    try:
                        view = self.__dict__["_graph_view"] = load_view(self)
                    except RuntimeError as e:  # Kùzu failing on a database that passed its checks
                        raise Damaged(
                            self.repo,
                            [(f"{self.reader.gen.path.name}/graph.kz", str(e).splitlines()[0])],
                        ) from e
        return view

    @property
    def observed(self):
        """The imported coverage links over this generation (`query/observed.py`), None
        when none were imported; read again when a new import replaced them."""
        path = self.__dict__.get("_observed_path")
        if path is None:
            from codeimpact.graph import layout
            from codeimpact.graph.observed import observed_path

            path = self.__dict__["_observed_path"] = str(observed_path(layout.index_dir(self.repo)))
        try:
            st = os.stat(path)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        held = self.__dict__.get("_observed")
        if held is None or held[0] != stamp:
            from codeimpact.query.observed import load_observed

            held = self.__dict__["_observed"] = (stamp, load_observed(self))
        return held[1]

    def resolve(self, target: str):
        """The one symbol `target` names (uid, qualified name, name, path or path:LINE)."""
        from codeimpact.query.target import resolve_target

        return resolve_target(self.graph.symbols, target, self.repo)

    def impact(
        self,
        target: str,
        direction: str = "upstream",
        depth: int = 3,
        relation: str | list[str] | None = None,
        min_confidence: float = 0.0,
        include_tests: bool = False,
        limit: int | None = 50,
        check_freshness: bool = True,
    ):
        from codeimpact.query.impact import impact

        return impact(
            self,
            target,
            direction,
            depth,
            relation,
            min_confidence,
            include_tests,
            limit,
            check_freshness,
        )

    def blast_radius(
        self,
        targets: list[str],
        direction: str = "upstream",
        depth: int = 3,
        relation: str | list[str] | None = None,
        min_confidence: float = 0.0,
        include_tests: bool = False,
        limit: int | None = 50,
        check_freshness: bool = True,
    ):
        from codeimpact.query.impact import blast_radius

        return blast_radius(
            self,
            targets,
            direction,
            depth,
            relation,
            min_confidence,
            include_tests,
            limit,
            check_freshness,
        )

    def deps(
        self,
        target: str,
        relation: str | list[str] | None = None,
        min_confidence: float = 0.0,
        limit: int | None = 50,
        check_freshness: bool = True,
    ):
        from codeimpact.query.deps import deps

        return deps(self, target, relation, min_confidence, limit, check_freshness)

    def context(self, target: str, limit: int | None = 50, check_freshness: bool = True):
        from codeimpact.query.context import context

        return context(self, target, limit, check_freshness)

    def trace(
        self,
        source: str,
        target: str,
        relation: str | list[str] | None = None,
        min_confidence: float = 0.0,
        check_freshness: bool = True,
    ):
        from codeimpact.query.trace import trace

        return trace(self, source, target, relation, min_confidence, check_freshness)

    def cycles(
        self,
        include_tests: bool = False,
        include_deferred: bool = False,
        limit: int | None = 50,
        check_freshness: bool = True,
        *,
        include_guarded: bool = False,
    ):
        from codeimpact.query.trace import cycles

        return cycles(
            self,
            include_tests,
            include_deferred,
            limit,
            check_freshness,
            include_guarded=include_guarded,
        )

    # ------------------------------------------------------------------ planners and reviewers
    # Implemented in query/changes.py, provenance.py, gate.py, review.py (git via gitdiff.py).
    def detect_changes(
        self,
        scope: str = "unstaged",
        base: str | None = None,
        depth: int = 3,
        min_confidence: float = 0.0,
    ):
        """The git diff of `scope` mapped to changed symbols, with their blast radius."""
        from codeimpact.query.changes import detect_changes

        return detect_changes(self, scope, base, depth, min_confidence)

    def provenance(self, paths: list[str]):
        """A record of HEAD, the dirty working tree and the symbols of `paths`."""
        from codeimpact.query.provenance import provenance

        return provenance(self, list(paths))

    def drift(self, record: dict):
        """What changed since a provenance record (a dict, as `provenance` JSON loads)."""
        from codeimpact.query.provenance import drift

        return drift(self.repo, record, self)

    def gate(
        self,
        require_fresh: bool = False,
        require_clean: bool = False,
        allow: list[str] | tuple[str, ...] = (),
        files: list[str] | tuple[str, ...] = (),
    ):
        """Cheap pre-checks: fresh index, clean tree, named files allowed, present, indexed."""
        from codeimpact.query.gate import gate

        return gate(
            self.repo,
            require_fresh=require_fresh,
            require_clean=require_clean,
            allow=allow,
            files=files,
            index=self,
        )

    def review(self, base: str | None = None, depth: int = 3, *, limit: int | None = None):
        """HEAD's branch against its merge base with `base` (default: the default branch);
        `limit` cuts every list, with `<list>_total` beside it (None: no cut)."""
        from codeimpact.query.review import review

        return review(self, base, depth, limit=limit)
