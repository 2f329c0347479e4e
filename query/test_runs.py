"""Runnable test ids for the tests a question lists (the language-specific part is in
`indexer/test_ids.py`; this module gathers what it asks for from the index).

A test symbol's id depends on the kinds of the definitions around it (a method
of a class, a function in a function) and, for unittest-style cases, on the
bases of its class: both read from the in-memory symbol table and the CSR
snapshot, so an id costs a few dict lookups (a base walk once per class).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping

import numpy as np

from codeimpact.graph import csr as csrmod
from codeimpact.indexer.lang import language_for
from codeimpact.indexer.test_ids import (
    RunId,
    TestSymbol,
    read_pytest_conventions,
    run_id_of,
    select_run_ids,
)
from codeimpact.native import traversal as native
from codeimpact.query.graphview import GraphView

__all__ = ["RunIds", "RunId", "select_run_ids"]

_HERITAGE = csrmod.type_mask(["EXTENDS", "IMPLEMENTS"])
_CALLS = csrmod.EDGE_TYPES["CALLS"]


def enclosing_locals(local: str) -> list[str]:
    """`A.B.f` -> ["A", "A.B"]: the dotted locals of the definitions around it."""
    parts = local.split(".") if local else []
    return [".".join(parts[: n + 1]) for n in range(len(parts) - 1)]


class _Bases(Mapping[str, tuple[str, ...]]):
    """class local -> qualified names of its bases, transitively; read on first use."""

    def __init__(self, runs: RunIds, file: str, locals_: list[str]):
        self._runs, self._file, self._locals = runs, file, locals_

    def __getitem__(self, local: str) -> tuple[str, ...]:
        if local not in self._locals:
            raise KeyError(local)
        return self._runs.bases(f"{self._file}::{local}")

    def __iter__(self) -> Iterator[str]:
        return iter(self._locals)

    def __len__(self) -> int:
        return len(self._locals)


class RunIds:
    """Run ids of the symbols of one graph view (bases cached per class)."""

    def __init__(self, view: GraphView | None):
        self.view = view
        self._conventions: dict[str, object] = {}
        self._bases: dict[str, tuple[str, ...]] = {}
        self._by_id: dict[int, RunId] = {}
        self._in_file: dict[str, list[RunId]] = {}
        self._module_calls: dict[str, frozenset[str]] = {}

    def module_calls(self, file: str) -> frozenset[str]:
        """Qualified names of what `file`'s top-level code calls, read once per file."""
        got = self._module_calls.get(file)
        if got is None:
            got = frozenset()
            i = self.view.symbols.by_uid.get(f"{file}::") if self.view is not None else None
            if i is not None:
                c = self.view.csr("downstream")
                lo, hi = int(c.indptr[i]), int(c.indptr[i + 1])
                calls = c.indices[lo:hi][c.edge_type[lo:hi] == _CALLS]
                qn = self.view.symbols.qualified_name
                got = frozenset(qn[j] for j in calls.tolist())
            self._module_calls[file] = got
        return got

    def bases(self, uid: str) -> tuple[str, ...]:
        """Qualified names of every class `uid` extends or implements, transitively."""
        got = self._bases.get(uid)
        if got is None:
            got = ()
            i = self.view.symbols.by_uid.get(uid) if self.view is not None else None
            if i is not None:
                reach = native.bfs(
                    self.view.csr("downstream"), np.asarray([i], np.int64), type_mask=_HERITAGE
                )
                qn = self.view.symbols.qualified_name
                got = tuple(qn[j] for j in reach.nodes[1:].tolist())
            self._bases[uid] = got
        return got

    def conventions(self, language: str | None) -> object:
        """The project's own settings for a language's runner (pytest's python_files, ...),
        read once, when a test of that language first asks; None: the runner's defaults."""
        repo = getattr(self.view, "repo", None)
        if language != "python" or repo is None:
            return None
        if language not in self._conventions:
            self._conventions[language] = read_pytest_conventions(repo)
        return self._conventions[language]

    def of(
        self,
        file: str,
        local: str,
        kind: str,
        qualified_name: str = "",
        local_kinds: Mapping[str, str] | None = None,
    ) -> RunId:
        """The run id of a test symbol; the kinds around it come from `local_kinds` (a
        changed file's extracted side) or else from the index."""
        around = enclosing_locals(local)
        kinds: dict[str, str] = {}
        by_uid = self.view.symbols.by_uid if self.view is not None else {}
        for outer in around:
            k = (local_kinds or {}).get(outer)
            if k is None and f"{file}::{outer}" in by_uid:
                k = self.view.symbols.kind[by_uid[f"{file}::{outer}"]]
            if k is not None:
                kinds[outer] = k
        classes = [o for o in around if kinds.get(o) == "class"]
        if kind == "class":
            classes.append(local)
        spec = language_for(file)
        language = spec.name if spec else None
        t = TestSymbol(
            file,
            local,
            kind,
            qualified_name,
            kinds,
            _Bases(self, file, classes),
            self.conventions(language),
            self.module_calls(file),
        )
        return run_id_of(language, t)

    def of_id(self, i: int) -> RunId:
        got = self._by_id.get(i)
        if got is None:
            s = self.view.symbols
            got = self._by_id[i] = self.of(
                s.file[i], s.local_name(i), s.kind[i], s.qualified_name[i]
            )
        return got

    @functools.cached_property
    def _test_files(self) -> dict[str, list[str]]:
        """Folder (`.` the root) or file -> the files holding test symbols below it."""
        s = self.view.symbols
        out: dict[str, list[str]] = {}
        for f in sorted({s.file[i] for i in np.flatnonzero(s.is_test).tolist()} - {""}):
            parts = f.split("/")
            for k in range(len(parts)):
                out.setdefault("/".join(parts[:k]) or ".", []).append(f)
            out.setdefault(f, []).append(f)
        return out

    def inside(self, container: RunId) -> list[RunId]:
        """The run ids of the index's test symbols in the container's file or folder."""
        if self.view is None or not container.scope:
            return []
        s = self.view.symbols
        out: list[RunId] = []
        for f in self._test_files.get(container.scope.rstrip("/") or ".", []):
            if f not in self._in_file:
                self._in_file[f] = [self.of_id(i) for i in s.by_file[f] if s.is_test[i]]
            out += self._in_file[f]
        return out

    def select(self, ids: Iterable[RunId]) -> list[str]:
        """These run ids as a runner takes them, each test once, sorted (containers are
        listed as the tests the index knows inside them, where the runner's ids are finer)."""
        return select_run_ids(ids, self.inside)


def run_ids_for(index, uids: Iterable[str]) -> list[str]:
    """The runnable ids of the indexed test symbols `uids`, deduplicated and sorted."""
    runs = RunIds(index.graph)
    by_uid = index.graph.symbols.by_uid
    return runs.select(runs.of_id(by_uid[u]) for u in uids if u in by_uid)
