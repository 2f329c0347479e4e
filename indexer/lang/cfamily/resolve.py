"""C name resolution on the typed engine: includes, file scope, external linkage.

What a name in file F means, in the order a C compiler and linker see it:
1. a parameter or local of the enclosing function (a call through a function pointer held
   there has no known target: no edge);
2. a definition of F itself (a function, a `static` one included, a macro, a type, an
   enumerator, a file-level variable): `scope`;
3. a definition in a header F includes, directly or through other headers (a macro, a
   `static inline` function, a type): `import`;
4. a function or variable with external linkage that another file defines (the linker's
   scope): `import` when F or one of its headers declares it (a prototype, an `extern`),
   `unique-name` when nothing declares it (an implicit declaration, or a header we could
   not find); when several files define it (one program per folder, one file per
   platform), the one nearest to F (the longest common folder) if it is the only nearest,
   at `unique-name`, else no edge;
5. the C library (stdlib.py): a builtin call;
6. declared by a prototype F reaches but defined nowhere in the repository (a library's
   header, `kfree` in a kernel subsystem indexed alone): `<external>::kfree`, `import`.

`static` definitions of other files are never candidates. Member access (`p->x`) follows
the declared type of `p` (a parameter, a local, a field, a call's declared result, a cast)
to its struct's field; a call through a field that holds a function pointer has no edge.
A function named as a value (`.read = my_read`, `ops->cb = f`, `register(f)`) is referenced
(REFERENCES, `value-flow` for arguments): the dispatch tables of C code point at the
functions they may run.

IMPORTS run from a file to each header it includes (`<external>::stdio.h` for one outside
the repository). Qualified names are the locals (`sqlite3_open`, `point.x`): C has one
namespace for external names; a file's module symbol is named by its path.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import marshal
import posixpath
from collections.abc import Callable, Iterator, Mapping

from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lang.cfamily import name_tables, summary
from codeimpact.indexer.lang.cfamily.cpp_names import CLASS_KINDS, CppNames
from codeimpact.indexer.lang.cfamily.include_digest import include_digests
from codeimpact.indexer.lang.cfamily.includes import IncludeResolver
from codeimpact.indexer.lang.cfamily.stdlib import STDLIB_FUNCTIONS
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.lazy_index import LazyIndexes
from codeimpact.indexer.lang.engine.project import Project
from codeimpact.indexer.lang.engine.static import (
    TYPE_KINDS,
    FileIndex,
    StaticProject,
    index_facts,
)
from codeimpact.indexer.resolved import ResolvedFile, external_uid, strip_dup

GROUP = "cfamily"  # the resolver group (cfamily/__init__.py): its shared summary's name
_UNASKED = object()  # a memo miss (None is an answer)
_HEADER_SUFFIXES = name_tables.HEADER_SUFFIXES


class CProject(CppNames, StaticProject):
    language = "c"
    # an incremental run builds the name tables from the summaries of the files it does
    # not re-resolve (summary.py) and indexes only the files its lookups reach
    SUPPORTS_PRIOR = True

    def __init__(self, files: Mapping[str, FileFacts], is_test_path, configs=None,
                 prior: Prior | None = None):  # fmt: skip
        # the facts as given: a file's calls and references are read from here again when it
        # is resolved (`file_index`), and only then (the index keeps the rest)
        self._source = files
        Project.__init__(self, is_test_path)  # StaticProject's: every file indexed up front
        self.configs = configs or {}
        self.paths = sorted(files)
        self._prior = prior
        kept = summary.standing(self.paths, prior)
        # built from a closure over the facts, not a bound method: no reference cycle through
        # the project (the collector is paused: dropping the project must free every index)
        self.files: dict[str, FileIndex] = LazyIndexes(functools.partial(_slim_index, files))
        self._owner_of: dict[tuple[str, str], tuple[str, str]] | None = {}
        self._summaries = summary.Summaries(self.paths, kept, self.files)
        # a file's members are entered when a lookup first reaches one of its types
        self.members = _Members(self._summaries)
        self._includer: IncludeResolver | None = None  # (`includer`: when first asked)
        self._qualified: dict[str, list[tuple[str, str]]] | None = None
        tables = self._standing_tables()
        # whether the tables differ from the prior's (`shared_summary`)
        self._tables_changed = tables is None
        if tables is None:
            self.tables = name_tables.NameTables(paths=self.paths)
            self.top: dict[str, dict[str, list[str]]] = {}
            for path in self.paths:
                self._add_file(path)
        else:
            self.tables = tables
            # a file's top-level names when a lookup first reaches it (from its summary)
            # (a closure over the summaries, not a bound method: no cycle through the project)
            self.top = LazyIndexes(functools.partial(_top_of, self._summaries))
            known = set(self.paths)
            for path in sorted(p for p in prior.dirty if p in known):
                self._refresh(path)
        t = self.tables
        self.includes = t.includes
        self._protos = t.protos
        self.protos_by_name = t.protos_by_name
        self.defs_by_name = t.defs_by_name
        self.linked = t.linked
        self.global_types = t.global_types
        # the tables' methods, and C++'s out-of-class definitions (`index_cpp`) over them:
        # the tables keep the methods as the files' definitions give them, for the next run
        self.methods_by_name = _Over(t.methods_by_name)
        self._cpp_paths = t.cpp_paths
        self._qualified = t.qualified  # (patched with the rest)
        self.namespaces: set[str] = {n for names in t.namespaces_of.values() for n in names}
        self._closure: dict[str, tuple[str, ...]] = {}
        self._heads: dict[str, tuple[str, ...]] = {}  # file -> the files it includes found
        self._rank: dict[str, dict[str, int]] = {}
        # the name lookups of the file being resolved: a kernel file asks the same name ~3.5
        # times, each a sort over the headers defining it (`file_index` starts a file's)
        self._asked: dict[tuple, object] = {}
        self._asked_for = ""
        self._walk: _Walk | None = None  # (`walk_on`: a partition worker's)
        self.index_cpp()
        # which type declares a method: asked only for a C++ call on an instance (C structs
        # have no methods), so built when first asked
        self._owner_of = None

    @property
    def includer(self) -> IncludeResolver:
        """Where includes lead: built when a file's includes are resolved (a body edit
        resolves none: the tables hold every file's includes resolved)."""
        if self._includer is None:
            self._includer = IncludeResolver.of(self.paths, self.configs)
        return self._includer

    def _add_file(self, path: str, ordered: bool = False) -> None:
        """The file's entries in the name tables (from its summary when it stands)."""
        language, includes, protos = self._summaries.head(path)
        resolved = [(self.includer.resolve(path, w, system), w, ln) for w, system, ln in includes]
        self.top[path] = self.tables.add(path, language, resolved, protos,
                                         self._summaries.definitions(path), ordered)  # fmt: skip

    def _standing_tables(self) -> name_tables.NameTables | None:
        """The previous run's name tables when they can be patched: the same files (an
        include resolves against the file set), and a previous summary of every file
        summarised again (it says what the file gave the tables)."""
        prior = self._prior
        if prior is None or prior.shared is None:
            return None
        tables = name_tables.NameTables.decode(prior.shared(GROUP))
        if tables is None or tables.paths != self.paths:
            return None
        for path in prior.dirty:
            old = prior.summaries.get(path)
            if not isinstance(old, tuple) or len(old) != summary.FIELDS:
                return None
        return tables

    def _refresh(self, path: str) -> None:
        """Bring a re-summarised file's entries in the tables to what it gives now."""
        old = self._prior.summaries[path]
        if old == self._summaries[path]:
            return  # re-resolved for a name it uses: it gives the tables what it gave
        defs = list(summary.definitions(old))
        self.tables.drop(path, old[2], [d[1] for d in defs], [d[0] for d in defs])
        self._add_file(path, ordered=True)
        self._tables_changed = True

    def shared_summary(self) -> tuple | None:
        """The name tables, kept beside the generation for the next run (name_tables.py);
        None when they are the prior's, unchanged (a statement added to a body changes no
        summary)."""
        if not self._tables_changed:
            return None
        return self.tables.encode()

    def shared_summary_pieces(self) -> Iterator[bytes] | None:
        """`shared_summary()` as marshal bytes, piece by piece (a full build stages it so)."""
        return self.tables.pieces() if self._tables_changed else None

    def encoded_summaries(self, before: Mapping[str, bytes] | None) -> dict[str, bytes]:
        """path -> its summary as marshal bytes. A file that was not summarised again keeps
        the bytes `before` holds (the previous run's: its facts did not change, and a
        summary is a function of them)."""
        dirty = self._prior.dirty if self._prior is not None else None
        out: dict[str, bytes] = {}
        for p in self.paths:
            blob = (
                before.get(p)
                if before is not None and dirty is not None and p not in dirty
                else None
            )
            out[p] = blob if blob is not None else marshal.dumps(self._summaries[p])
        return out

    @property
    def qualified_defs(self) -> dict[str, list[tuple[str, str]]]:
        """dotted name -> every definition so named, in path order: read by C++ lookups only,
        so built when one first asks (never for a tree of C alone)."""
        if self._qualified is None:
            q: dict[str, list[tuple[str, str]]] = {}
            for path in self.paths:
                for local, _name, _kind, _exported in self._summaries.definitions(path):
                    q.setdefault(strip_dup(local), []).append((path, local))
            self._qualified = self.tables.qualified = q  # kept with the tables from now on
            self._tables_changed = True
        return self._qualified

    def summaries(self) -> Mapping[str, tuple]:
        """Per file, what `Prior` hands the next run (summary.py)."""
        return self._summaries

    # ------------------------------------------------------------------ memory
    def file_index(self, path: str) -> FileIndex:
        """The file's index with its whole facts, for resolving it."""
        self._asked = {}
        self._asked_for = path
        if self._walk is not None:
            self._walk.mark = len(self.memo.table)
        return dataclasses.replace(self.files[path], facts=self._source[path])

    def _memo(self, path: str, key: tuple, answer: Callable, *args):
        """`answer(*args)` once per lookup of the file being resolved (the tables do not
        change while it is); lookups for any other file are not kept."""
        if path != self._asked_for:
            return answer(*args)
        asked = self._asked
        found = asked.get(key, _UNASKED)
        if found is _UNASKED:
            asked[key] = found = answer(*args)
        return found

    def release(self, path: str) -> None:
        """The whole facts `file_index` decoded, and the file's include closure and ranks (a
        thousand headers for a kernel file: ~8 KB a file, 440 MB for the kernel's 55,000;
        only resolving the file reads them, module names do not), are not needed once the
        file is resolved."""
        if self._walk is not None:
            self._walk.after(self, path)
        self._rank.pop(path, None)
        self._closure.pop(path, None)
        forget = getattr(self._source, "forget", None)
        if forget is not None:
            forget(path)

    def walk_on(self) -> None:
        """From now on, what the files resolved since left behind is dropped (`_Walk`): a
        partition worker of a full build (indexer/resolve_parts.py) resolves a run of files
        in path order, whose lookups reach the headers of one folder after another."""
        self._walk = _Walk(self)

    # ------------------------------------------------------------------ includes
    def closure(self, path: str) -> tuple[str, ...]:
        """The headers a file includes, directly or through others, in include order."""
        hit = self._closure.get(path)
        if hit is not None:
            return hit
        seen = {path}
        order: list[str] = []
        stack = [path]
        heads = self._heads
        while stack:  # depth-first in include order, each header once
            p = stack.pop()
            if p != path:
                order.append(p)
            found = heads.get(p)
            if found is None:  # a header's includes are walked for every file reaching it
                found = heads[p] = tuple(
                    h for h, _w, _l in self.includes.get(p, ()) if h is not None
                )
            nxt = [h for h in found if h not in seen]
            seen.update(nxt)
            stack.extend(reversed(nxt))
        res = tuple(order)
        self._closure[path] = res
        return res

    def rank(self, path: str) -> dict[str, int]:
        """The file (0) and the headers it reaches -> their place in include order; a source
        file that another includes (a unity build's parts: better-sqlite3's
        `#include "util/macros.cpp"`) also sees what its includers see, after its own."""
        hit = self._rank.get(path)
        if hit is None:
            self._rank[path] = hit = {path: 0}  # a cycle of includers ends here
            for i, h in enumerate(self.closure(path), 1):
                hit[h] = i
            if not path.endswith(_HEADER_SUFFIXES):
                for includer in self.includers().get(path, ()):
                    for h in self.rank(includer):
                        hit.setdefault(h, len(hit))
        return hit

    def includers(self) -> dict[str, list[str]]:
        """Source files (not headers) -> the files that include them (kept with the tables:
        finding them read every file's includes)."""
        return self.tables.includers

    def declared(self, path: str, name: str) -> bool:
        """Whether the file or a header it reaches declares `name` with external linkage."""
        return self._memo(path, ("declared", name), self._declared, path, name)

    def _declared(self, path: str, name: str) -> bool:
        rank = self.rank(path)
        return any(p in rank for p in self.protos_by_name.get(name, ()))

    # ------------------------------------------------------------------ hooks
    def qualified(self, fi: FileIndex, local: str) -> str:
        if not local:
            return fi.path
        if fi.facts.language == "cpp":
            return strip_dup(local).replace(".", "::")
        return strip_dup(local)

    def row_language(self, fi: FileIndex) -> str:
        return fi.facts.language  # one project for C and C++

    def module_symbol_name(self, fi: FileIndex) -> str:
        return posixpath.basename(fi.path)

    def container(self, fi: FileIndex, local: str) -> str:
        parent = fi.parent.get(local, "")
        return parent if parent in fi.syms else ""

    def type_scope(self, fi: FileIndex, local: str) -> str:
        return ""

    def _visible(self, fi: FileIndex, name: str, kinds=None):
        """(entity, reason) of a definition of `name` in the file or its headers (the first
        in include order)."""
        return self._memo(fi.path, ("visible", name, kinds), self._first_visible, fi, name, kinds)

    def _first_visible(self, fi: FileIndex, name: str, kinds):
        paths = self.defs_by_name.get(name)
        if not paths:
            return None
        rank = self.rank(fi.path)
        for path in sorted((p for p in paths if p in rank), key=rank.__getitem__):
            syms = self.files[path].syms
            found = [x for x in self.top[path][name] if kinds is None or syms[x].kind in kinds]
            if found:
                # a function and a macro of one name are two `#if` branches (SQLite's no-op
                # macros when built without threads): the function is the code that runs
                local = next((x for x in found if syms[x].kind == "function"), found[0])
                return ("sym", path, local), "scope" if path == fi.path else "import"
        return None

    def _linked(self, fi: FileIndex, name: str):
        """(entity, reason) of the definition with external linkage another file holds."""
        return self._memo(fi.path, ("linked", name), self._nearest_linked, fi, name)

    def _nearest_linked(self, fi: FileIndex, name: str):
        cands = [c for c in self.linked.get(name, ()) if c[0] != fi.path]
        if not cands:
            return None
        declared = self.declared(fi.path, name)
        if len(cands) == 1:
            return ("sym", *cands[0]), "import" if declared else "unique-name"
        here = fi.path.split("/")

        def common(p: str) -> int:
            n = 0
            for a, b in zip(here, p.split("/")):
                if a != b:
                    break
                n += 1
            return n

        best = max(common(c[0]) for c in cands)
        nearest = [c for c in cands if common(c[0]) == best]
        return (("sym", *nearest[0]), "unique-name") if len(nearest) == 1 else None

    def lookup_head(self, fi, scope, name, line, mode, depth):
        if scope:
            entry = self.scoped_entry(fi, scope, name, line)
            if entry is None and "." in scope:  # a nested function sees its parent's locals
                entry = self.scoped_entry(fi, scope.rpartition(".")[0], name, line)
            if entry is not None:
                return self.local_value(fi, scope, entry, depth)
        if fi.facts.language == "cpp":
            r = self.cpp_head(fi, scope, name, mode)
            if r is not None:
                return r
        r = self._visible(fi, name, TYPE_KINDS if mode == "type" else None)
        if r is not None:
            return r
        if mode != "type":
            r = self._linked(fi, name)
            if r is not None:
                return r
            if name in STDLIB_FUNCTIONS:
                return ("builtin", name), "scope"
            if self.declared(fi.path, name):  # a prototype of a library we do not index
                return ("xsym", name), "import"
        return None

    def resolve_type(self, fi, scope, chain, depth=0):
        key = ("type", fi.path, scope, chain)
        table = self.memo.table
        if key not in table:
            r = self._cpp_type(fi, scope, chain) if fi.facts.language == "cpp" else None
            if r is None and "." not in chain:
                r = self._visible(fi, chain, TYPE_KINDS)
            if r is None:
                cands = self.global_types.get(chain, ())
                # a type named by no header we found (a forward declaration's, mostly)
                r = (("sym", *cands[0]), "unique-name") if len(cands) == 1 else None
            table[key] = r
        return table[key]

    def _cpp_type(self, fi, scope, chain):
        """A C++ type name: under each enclosing namespace, or outside (`std::string`)."""
        for p in self.prefixes(fi, scope):
            r = self.qualified_pick(fi, f"{p}.{chain}" if p else chain, TYPE_KINDS)
            if r is not None:
                return r
        head = chain.partition(".")[0]
        if "." in chain and not any(d == head or d.endswith("." + head) for d in self.namespaces):
            if not self.qualified_defs.get(head):
                return ("xsym", chain), "import"  # a namespace of a library: std::vector
        return None

    def type_call(self, fi, src, ent, reason, call, edges, out) -> None:
        if fi.facts.language == "cpp":
            self.constructor_call(fi, src, ent, reason, call, edges)
        else:
            out.calls_builtin += 1

    def canonical(self, tkey, depth=0):
        """Follow `typedef struct foo foo_t` to `foo`; None when it names no repository type."""
        table = self.memo.table
        key = ("canonical", tkey)
        if key in table:
            return table[key]
        table[key] = tkey  # a cycle of typedefs ends here
        fi = self.files[tkey[0]]
        target = fi.extra.get("aliases", {}).get(tkey[1])
        res = tkey
        if target and depth < 16:
            r = self.resolve_type(fi, "", target)
            if r is None or r[0][0] not in ("sym", "xsym"):
                res = None
            elif r[0][0] == "xsym":  # `typedef std::string name_t`: a library's type
                res = ("x", r[0][1])
            else:
                res = self.canonical((r[0][1], r[0][2]), depth + 1)
        table[key] = res
        return res

    def call_result(self, ent, depth, index=0):
        if ent[0] == "sym" and self.kind(ent) == "macro":
            return ("unknown", "")
        return super().call_result(ent, depth, index)

    def resolve_call(self, fi, index, call, edges: Edges, out: ResolvedFile) -> None:
        if "." not in call.callee and call.callee.isidentifier():
            r = self.lookup_head(fi, call.scope, call.callee, call.line, "call", 0)
            if r is not None and r[0][0] == "sym" and self.kind(r[0]) == "macro":
                edges.call(f"{fi.path}::{call.scope}", f"{r[0][1]}::{r[0][2]}", r[1], call.line)
                return
        super().resolve_call(fi, index, call, edges, out)

    def import_edges(self, fi: FileIndex, edges: Edges) -> None:
        src = f"{fi.path}::"
        for target, written, line in self.includes.get(fi.path, ()):
            dst = f"{target}::" if target is not None else external_uid(written)
            if dst != src:
                edges.add("IMPORTS", src, dst, "import", line)

    def module_names(self) -> dict[str, str]:
        """path -> what its resolution depends on that no name written in it says: the
        headers it reaches (their paths, includes and what they declare), so a header that
        starts or stops including another, or declaring a prototype, re-resolves its
        includers (include_digest.py: one pass over the include graph, not one per closure)."""
        kept = self._kept_module_names()
        if kept is not None:
            return kept
        reached = {
            p: [h for h, _w, _l in self.includes.get(p, ()) if h is not None] for p in self.paths
        }

        def own(p: str) -> str:
            protos = repr(self._protos[p])
            return f"{p}:{hashlib.sha256(protos.encode()).hexdigest()[:8]}:{'|'.join(reached[p])}"

        return include_digests(self.paths, reached.__getitem__, own)

    def _kept_module_names(self) -> dict[str, str] | None:
        """The previous run's module names when nothing they are made of changed: the same
        files (an include resolves against the file set) and every re-summarised file with
        the language, includes and prototypes it had (a name digests, per file reached, its
        resolved includes in order and its prototypes; the other files' bytes are unchanged).
        A kernel edit hashed 55,000 files' includes again to find the same names."""
        prior = self._prior
        if prior is None or not prior.modules:
            return None
        before = next((m for m in (prior.modules.get("c"), prior.modules.get("cpp"))
                       if isinstance(m, dict)), None)  # fmt: skip
        if (
            before is None
            or len(before) != len(self.paths)
            or not all(p in before for p in self.paths)
        ):
            return None
        for path in prior.dirty:
            if path not in before:
                continue
            old = prior.summaries.get(path)
            if not isinstance(old, tuple) or len(old) < 3:
                return None
            language, includes, protos = self._summaries.head(path)
            if (
                old[0] != language
                or [tuple(i[:2]) for i in old[1]] != [tuple(i[:2]) for i in includes]
                or tuple(old[2]) != tuple(protos)
            ):
                return None
        return dict(before)


class _Walk:
    """What a partition worker drops as it walks its files (`CProject.walk_on`): each
    file's memo entries keyed by its path (nothing else asks for them) and its index, once
    resolved; every SWEEP files, the indexes of the files no file of the last WINDOW
    included (directly or not) go cold, and those still cold at the next sweep are dropped
    (a lookup reaching a cold one takes it back: the files whose external definitions
    many others call are reached by no include). A dropped index is built again from the
    facts if a later lookup reaches it, and the memo keeps no result that depends on the
    order of lookups (engine/memo.py): the outputs are those of a whole project. On the
    kernel a worker resolving half of the tree held 2.5 GB without it, ~1.5 GB with it."""

    SWEEP = 256
    WINDOW = 2048

    def __init__(self, project: CProject) -> None:
        self.n = 0  # files resolved
        self.mark = 0  # the memo's size when the file being resolved started
        self.seen: dict[str, int] = {}  # path -> when a file last reached it
        self.cold: list[dict] = [{}, {}]  # (indexes, top names) gone cold at the last sweep
        self.keep = frozenset(project._cpp_paths)  # index_cpp's: read by every C++ lookup
        for i, table in enumerate((project.files, project.top)):
            if isinstance(table, LazyIndexes):
                table._build = functools.partial(self._back, table._build, i)

    def _back(self, build: Callable, i: int, path: str):
        found = self.cold[i].pop(path, None)
        if found is None:
            return build(path)
        self.seen[path] = self.n
        return found

    def after(self, project: CProject, path: str) -> None:
        self.n = n = self.n + 1
        seen = self.seen
        seen[path] = n
        for h in project._closure.get(path, ()):
            seen[h] = n
        if not path.endswith(_HEADER_SUFFIXES):
            table = project.memo.table
            new = len(table) - self.mark
            if new > 0:
                keys = reversed(table)
                own = []
                for _ in range(new):  # the entries added while it was resolved
                    k = next(keys)
                    if path in k or (len(k) > 1 and type(k[1]) is tuple and path in k[1]):
                        own.append(k)
                for k in own:
                    del table[k]
            project.files.pop(path, None)
        if n % self.SWEEP == 0:
            for i, table in enumerate((project.files, project.top)):
                if not isinstance(table, LazyIndexes):
                    continue
                old = [p for p in table if n - seen.setdefault(p, n) > self.WINDOW]
                self.cold[i] = {p: table.pop(p) for p in old if p not in self.keep}


def _top_of(summaries: summary.Summaries, path: str) -> dict[str, list[str]]:
    """A file's top-level names -> their locals."""
    return name_tables.classify(summaries.definitions(path))[0]


def _slim_index(source: Mapping[str, FileFacts], path: str) -> FileIndex:
    """The index keeps what other files' lookups read (symbols, includes, prototypes, types,
    locals); calls and references, half of a file's facts and read only when the file itself
    is resolved, are not held: a kernel tree's facts did not fit in 6 GB."""
    facts = source[path]
    fi = index_facts(path, facts)
    fi.facts = dataclasses.replace(facts, calls=[], references=[])
    forget = getattr(source, "forget", None)
    if forget is not None:
        forget(path)  # a LazyFacts decodes it again when asked
    return fi


class _Members(dict):
    """(path, type local) -> member name -> [(path, member local)], each file's entered when
    a lookup first reaches one of its types (a kernel edit reads the members of a few
    hundred of 55,000 files). A file's own members come first, as when every file is
    entered up front: C++'s out-of-class definitions are added after (`index_cpp`)."""

    def __init__(self, summaries: summary.Summaries):
        super().__init__()
        self._summaries = summaries
        self._entered: set[str] = set()

    def _enter(self, path: str) -> None:
        if path in self._entered:
            return
        self._entered.add(path)
        defs = self._summaries.definitions(path)
        kind_of = {local: kind for local, _name, kind, _exported in defs}
        for local, name, _kind, _exported in defs:
            parent = local.rpartition(".")[0]
            if parent and kind_of.get(parent) in CLASS_KINDS:
                owner = dict.setdefault(self, (path, parent), {})
                owner.setdefault(name, []).append((path, local))

    def get(self, key, default=None):
        if key[0] != "x":
            self._enter(key[0])
        return dict.get(self, key, default)

    def setdefault(self, key, default=None):
        self._enter(key[0])
        return dict.setdefault(self, key, default)

    def items(self):
        for path in self._summaries:
            self._enter(path)
        return dict.items(self)


class _Over(Mapping):
    """A table with changes over it, the table itself untouched: `setdefault` copies a
    name's list here before the caller appends to it."""

    def __init__(self, base: Mapping):
        self._base = base
        self._own: dict = {}

    def __getitem__(self, key):
        own = self._own
        return own[key] if key in own else self._base[key]

    def get(self, key, default=None):
        own = self._own
        return own[key] if key in own else self._base.get(key, default)

    def __contains__(self, key) -> bool:
        return key in self._own or key in self._base

    def __iter__(self):
        yield from self._base
        yield from (k for k in self._own if k not in self._base)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def setdefault(self, key, default=None):
        own = self._own
        if key not in own:
            base = self._base.get(key)
            own[key] = list(base) if base is not None else default
        return own[key]
