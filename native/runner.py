"""The query runner every language's extraction goes through, and whether its native path runs.

A language's queries use the shared capture vocabulary (native/vocabulary.py). The runner
compiles them once per language and returns each match as `(construct, captures)`: the
construct capture's name (`definition.class`, `reference.call`, ...) and a dict of
capture name -> Node, one node per capture, in the order QueryCursor.matches yields them.

The native path (the `_syntax` extension: native/runner.c) compiles and runs the query with
its own copy of the tree-sitter runtime, which reads the trees py-tree-sitter built. It is
used only when all of these hold, else py-tree-sitter's QueryCursor answers the same:

- the extension is built;
- it was built from the sources beside the package, when they are there (an editable
  install builds it in place: a `native/` changed and not rebuilt would silently give the
  old facts): setup.py compiles the digest of its sources into it (native/build_digest.py),
  which is compared with theirs now (hashed again only when their names, sizes or mtimes
  differ from the ones it compiled in beside it); a stale build is not used, and a one-line
  warning on stderr says to rebuild;
- the installed `tree-sitter` distribution is the version whose C runtime the extension
  vendors (native/tree_sitter/vendored.h): its Node and Tree structs are read as that
  version lays them out, so another version (pyproject allows 0.25 and 0.26) must never
  be walked;
- `tree_sitter.Node` has the object size that version has;
- the environment does not set CODEIMPACT_NATIVE=0 (a documented switch: the pure Python
  path, for a check of the native one or as a way around a bug in it).

`native_status()` says which path runs and why; the runner identity records it (an index
is built by one path or the other, never both), and `status --json` / `analyze --json`
show it.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from pathlib import Path

import tree_sitter as ts

from codeimpact.native.build_digest import source_digest, source_stamp
from codeimpact.native.record import Hashed
from codeimpact.native.vocabulary import CAPTURES, CONSTRUCTS

__all__ = [
    "NATIVE_ENV",
    "NativeStatus",
    "QueryRunner",
    "native_status",
    "native_syntax",
]

NATIVE_ENV = "CODEIMPACT_NATIVE"
"""Set to "0" to run the pure Python path (py-tree-sitter's QueryCursor, the languages'
Python rules) instead of the native one."""

_NODE_SIZE = 64  # sizeof(Node) in py-tree-sitter 0.26 (PyObject_HEAD, TSNode, two pointers)
_CONSTRUCTS = frozenset(name for name, _ in CONSTRUCTS)
_CAPTURES = frozenset(CAPTURES)
_CAPTURE = re.compile(r"@([A-Za-z_][\w.-]*)")
_COMMENT = re.compile(r";[^\n]*")


class NativeStatus(Hashed):
    """Whether the native path runs in this process, and why not when it does not."""

    used: bool
    reason: str  # "" when used
    vendored: str | None  # the tree-sitter version the extension was built against
    installed: str | None  # the tree-sitter distribution installed
    built: str | None  # the digest of the sources the extension was built from
    sources: str | None  # the digest of the sources beside the package (None: absent)
    __slots__ = ("used", "reason", "vendored", "installed", "built", "sources")

    def __init__(
        self,
        used: bool,
        reason: str,
        vendored: str | None,
        installed: str | None,
        built: str | None = None,
        sources: str | None = None,
    ) -> None:
        self.used = used
        self.reason = reason
        self.vendored = vendored
        self.installed = installed
        self.built = built
        self.sources = sources

    def as_json(self) -> dict:
        return {
            "native": self.used,
            "reason": self.reason,
            "tree_sitter_vendored": self.vendored,
            "tree_sitter_installed": self.installed,
            "native_build": self.built,
            "native_sources": self.sources,
        }


def _extension():
    try:
        from codeimpact.native import _syntax
    except ImportError:
        return None
    return _syntax


def _installed() -> str | None:
    # py-tree-sitter says its version itself; importlib.metadata (~40 ms of every run's
    # start-up to import) only for a build that does not
    version = getattr(ts, "__version__", None)
    if isinstance(version, str):
        return version
    from importlib import metadata

    try:
        return metadata.version("tree-sitter")
    except metadata.PackageNotFoundError:
        return None


def _sources(ext, built: str | None) -> str | None:
    """The digest of the sources beside the package (None: absent): the one the extension
    was built from while they keep the names, sizes and mtimes it recorded then
    (`SOURCE_STAMP`), else hashed again."""
    native = Path(__file__).parent
    stamp = getattr(ext, "SOURCE_STAMP", "") if ext is not None else ""
    if built and stamp and source_stamp(native) == stamp:
        return built
    return source_digest(native)


@cache
def native_status() -> NativeStatus:
    """Checked once per process (call `native_status.cache_clear()` after changing the
    environment)."""
    ext = _extension()
    vendored = ext.TREE_SITTER_VERSION if ext is not None else None
    built = (getattr(ext, "SOURCE_DIGEST", "") or None) if ext is not None else None
    sources = _sources(ext, built)
    installed = _installed()
    if os.environ.get(NATIVE_ENV, "") == "0":
        reason = f"disabled by {NATIVE_ENV}=0"
    elif ext is None:
        reason = "the native extension is not built"
    elif sources is not None and built != sources:
        reason = (
            f"the native extension was built from other sources ({built or 'unrecorded'}, "
            f"native/ now {sources}): rebuild it (pip install -e .)"
        )
        # the one process-wide check: said once, on stderr (stdout may be JSON)
        print(f"codeimpact: warning: {reason}; using the Python path", file=sys.stderr)
    elif installed != vendored:
        reason = f"tree-sitter {installed} is installed, the native path needs {vendored}"
    elif ts.Node.__basicsize__ != _NODE_SIZE:
        reason = "tree_sitter.Node has another layout"
    else:
        reason = ""
    return NativeStatus(not reason, reason, vendored, installed, built, sources)


def native_syntax():
    """The `_syntax` extension when the native path runs, else None."""
    return _extension() if native_status().used else None


class QueryRunner:
    """One query of one language, in the shared capture vocabulary."""

    def __init__(self, language: ts.Language, text: str, *, native: bool = True):
        ext = native_syntax() if native else None
        self.native = ext is not None
        if ext is not None:
            self._query = ext.Query(language, text)
            names = [self._query.pattern_captures(p) for p in range(self._query.pattern_count)]
            count = self._query.pattern_count
        else:
            self._query = ts.Query(language, text)
            count = self._query.pattern_count
            data = text.encode()
            names = []
            for p in range(count):
                # the pattern's captures, from its text (py-tree-sitter 0.26 raises on asking
                # the quantifier of a capture that is not in the pattern)
                piece = data[
                    self._query.start_byte_for_pattern(p) : self._query.end_byte_for_pattern(p)
                ].decode()
                found = tuple(dict.fromkeys(_CAPTURE.findall(_COMMENT.sub("", piece))))
                ids = {self._query.capture_name(c): c for c in range(self._query.capture_count)}
                if any(self._query.capture_quantifier(p, ids[n]) in ("*", "+") for n in found):
                    raise ValueError(f"pattern {p}: a capture that may hold several nodes")
                names.append(found)
        self._names = names
        self._constructs = [_construct_of(p, caps) for p, caps in enumerate(names)]
        self.pattern_count = count

    def construct(self, pattern: int) -> str:
        return self._constructs[pattern]

    def names(self, pattern: int) -> tuple[str, ...]:
        """The capture names of a pattern, in the order `tuples` gives their nodes."""
        return tuple(self._names[pattern])

    def tuples(self, root: ts.Node) -> list[tuple[int, tuple[ts.Node, ...]]]:
        """Every match under `root` as (pattern, nodes): one node per name of `names(pattern)`,
        in QueryCursor order; `matches` without a dict per match, for the extractors that
        dispatch on the pattern."""
        if self.native:
            return self._query.matches(root)
        names = self._names
        return [
            (p, tuple(caps[name][0] if name in caps else None for name in names[p]))
            for p, caps in ts.QueryCursor(self._query).matches(root)
        ]

    def matches(self, root: ts.Node) -> list[tuple[str, dict[str, ts.Node]]]:
        """Every match under `root` as (construct, {capture: node}), in QueryCursor order."""
        constructs = self._constructs
        if self.native:
            names = self._names
            return [
                (constructs[p], dict(zip(names[p], nodes)))
                for p, nodes in self._query.matches(root)
            ]
        return [
            (constructs[p], {name: nodes[0] for name, nodes in caps.items()})
            for p, caps in ts.QueryCursor(self._query).matches(root)
        ]


def _construct_of(pattern: int, names: tuple[str, ...]) -> str:
    unknown = [n for n in names if n not in _CAPTURES]
    if unknown:
        raise ValueError(f"pattern {pattern}: captures outside the vocabulary: {unknown}")
    constructs = [n for n in names if n in _CONSTRUCTS]
    if len(constructs) != 1:
        raise ValueError(f"pattern {pattern} has {len(constructs)} construct captures, not one")
    return constructs[0]
