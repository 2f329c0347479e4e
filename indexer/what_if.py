"""Who would still depend on symbols the index no longer holds: the indexed tree, resolved
as if those symbols were still defined where they were. Read-only: nothing is written.

A symbol deleted (or moved away) before the index was built has no node, so no
edge points at it. Its dependents are what a reviewer needs most, since the ones
whose source still names it are now broken. Old generations are deleted when a
new one is published, so the graph as it was is gone too; instead, the old side's
symbols (and the declarations that export them) are put back into the facts of
their file (or their whole old file where it no longer exists), and the files that
could bind to them are resolved again
with the index's own resolvers, against the facts the index was built from (its
facts cache). An edge from one of those files into a put-back symbol is a
dependent, found by the same rules (and with the same confidence) as any edge.

Which files could bind to them: the argument of plan.py. A lookup starts from a
name written in the file, so only files that use one of the put-back symbols'
names (or their old module's name), or an alias of one, can have an edge into them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import marshal
from pathlib import Path

from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.discover import discover
from codeimpact.indexer.facts_cache import FactsCache, facts_key
from codeimpact.indexer.files_state import load_files_state
from codeimpact.indexer.lang import DECLARED, LANGUAGES, group_of, language_for
from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.plan import PACKAGE_FILES
from codeimpact.indexer.reading import content_hash, extract_source, read_source
from codeimpact.indexer.resolved import Edge
from codeimpact.indexer.state import load_graph_state


@dataclasses.dataclass(frozen=True)
class GoneFile:
    """The old side of one file whose symbols `gone` (dotted locals) the index lacks."""

    path: str  # the file's old path (the uids' prefix)
    facts: FileFacts  # its old content's facts
    gone: frozenset[str]


def _module_words(path: str) -> set[str]:
    """The names an import of the file at `path` writes: its stem, and its folder for a
    package's init file."""
    parts = path.rsplit("/", 2)
    stem = parts[-1].split(".", 1)[0]
    return {stem, parts[-2]} if stem in PACKAGE_FILES and len(parts) > 1 else {stem}


def aliases_in(facts: FileFacts, names: set[str]) -> set[str]:
    """The names a file binds to one of `names` as a plain alias (`from m import y as z`,
    `z = y`, `z = m.y`), never to a call's result: a user of an alias never writes the
    original, and an edge through it goes to the original.

    Narrower than plan.reachers_of, which also follows every value that merely reads a
    name (`def f(): return y(...)`): whether a file must be re-resolved is plan's
    question; here it is which files can have an edge into `y`."""
    out = {
        i.alias
        for i in facts.imports
        if i.alias and (i.name or i.module.rpartition(".")[2]) in names
    }
    out |= {
        b.name
        for b in facts.bindings
        if not b.is_call and "." not in b.name and b.value.rpartition(".")[2] in names
    }
    return out - names


def merged(now: FileFacts, old: FileFacts, back: list) -> FileFacts:
    """A file's indexed facts with symbols of its old side (`back`) put back, and the old
    side's language-specific declarations (a list under `extra`: TypeScript's exports, Rust's
    `mod` lines, ...) that the file no longer makes: a resolver may bind a name through those
    rather than through the symbol table. Scalars of `extra` stay as they are now."""
    have = {s.local for s in now.symbols}
    symbols = [*now.symbols, *(s for s in back if s.local not in have)]
    extra = dict(now.extra)
    for key, before in old.extra.items():
        current = extra.get(key)
        if isinstance(before, list) and isinstance(current, list):
            extra[key] = [*current, *(x for x in before if x not in current)]
        elif key not in extra:
            extra[key] = before
    return dataclasses.replace(now, symbols=symbols, extra=extra)


class _Tree:
    """The indexed tree as its generation recorded it: which files it holds, their
    facts (from the facts cache, or the file while it has the indexed bytes), the
    lookup keys and summaries of the last resolution. Open while in its `with`."""

    def __init__(self, repo: Path, gen_dir: Path):
        self.repo = repo
        self.files_state = load_files_state(gen_dir)
        self.graph_state = load_graph_state(gen_dir)
        self.cache: FactsCache | None = None
        if self.ok:
            self.cache = FactsCache(gen_dir.parent, self.files_state.identity, gen_dir)
            self.present = {
                p: fs
                for p, fs in self.files_state.files.items()
                if not fs.status.startswith("skipped:")
            }
            self.lang_of = {p: fs.language for p, fs in self.present.items()}

    @property
    def ok(self) -> bool:
        """The generation keeps the state to resolve with (not an old index)."""
        return self.files_state is not None and self.graph_state is not None

    def __enter__(self) -> _Tree:
        return self

    def __exit__(self, *exc) -> None:
        if self.cache is not None:
            self.cache.close()

    def indexed(self, path: str) -> FileFacts:
        """The facts the index was built from (cached by content; else the file, when it
        still has that content; else none)."""
        fs = self.present[path]
        blob = self.cache.get(facts_key(fs.language, fs.content_hash))
        if blob is None:
            read = read_source(str(self.repo), path, max(fs.size, 1))
            if read.data is not None and content_hash(read.data) == fs.content_hash:
                blob = extract_source(fs.language, read.data)
        if blob is not None:
            with contextlib.suppress(ValueError, EOFError, TypeError, IndexError):
                return FileFacts.from_bytes(blob)
        return FileFacts(fs.language)

    def keys(self, paths) -> dict[str, frozenset[str]]:
        """The names each indexed file uses (its lookup keys)."""
        return {
            p: k[0] for p in paths if p in self.present and (k := self.graph_state.lookup_keys(p))
        }

    def resolve(
        self,
        replaced: dict[str, FileFacts],
        users: set[str],
        targets: set[str],
        config: IndexConfig | None,
    ) -> list[Edge]:
        """The edges from `users` into `targets`, the tree resolved with the facts of
        `replaced` in place of what the index holds for those paths."""
        lang_of = self.lang_of
        groups = {group_of(lang_of[p]) for p in replaced}
        paths = sorted(p for p in {*self.present, *replaced} if group_of(lang_of[p]) in groups)
        facts = LazyFacts(paths, lambda p: replaced[p] if p in replaced else self.indexed(p))
        summaries = {p: marshal.loads(b) for p, b in self.graph_state.summaries.items()}
        prior = Prior(summaries, set(replaced))
        configs: dict[str, str] = {}
        if any(DECLARED[lang_of[p]].config_files for p in replaced):
            discover(self.repo, config or IndexConfig(), configs)  # go.mod, tsconfig.json, ...
        projects: dict[str, object] = {}
        for group in sorted(groups):
            members = [p for p in paths if group_of(lang_of[p]) == group]
            spec = LANGUAGES[lang_of[members[0]]]
            project = spec.make_project(facts.subset(members), configs, prior)
            projects.update((lang_of[p], project) for p in members)
        edges: list[Edge] = []
        for path in sorted(u for u in users if u in lang_of and lang_of[u] in projects):
            resolved = projects[lang_of[path]].resolve_file(path)
            edges += [
                e
                for e in resolved.edges
                if e.dst in targets and e.src not in targets and e.rel != "CONTAINS"
            ]
        return edges


def edges_into(
    repo: Path, gen_dir: Path, gone_files: list[GoneFile], config: IndexConfig | None = None
) -> list[Edge] | None:
    """The edges from indexed symbols into the gone symbols, were those defined as on their
    old side; None when the generation keeps no state to resolve with (an old index).
    `config`: the index's (its ignore rules find the project files resolvers read)."""
    with _Tree(repo, gen_dir) as tree:
        if not tree.ok:
            return None
        put_back: dict[str, FileFacts] = {}
        targets: set[str] = set()
        names: set[str] = set()
        for g in gone_files:
            spec = language_for(g.path)
            if spec is None or not g.gone:
                continue
            back = [s for s in g.facts.symbols if s.local in g.gone]
            targets.update(f"{g.path}::{s.local}" for s in back)
            names.update(s.name for s in back if s.name)
            if g.path in tree.present:
                put_back[g.path] = merged(tree.indexed(g.path), g.facts, back)
            else:  # the whole file is gone (deleted, renamed): its old self comes back
                tree.lang_of[g.path] = spec.name
                put_back[g.path] = g.facts
                names |= _module_words(g.path)
        if not put_back:
            return []
        groups = {group_of(tree.lang_of[p]) for p in put_back}
        keys = tree.keys(p for p in tree.present if group_of(tree.lang_of[p]) in groups)
        users = {p for p in put_back if p in tree.present}  # its own other symbols

        def facts_of(path: str) -> FileFacts:
            return put_back[path] if path in put_back else tree.indexed(path)

        while True:  # the files naming them, then those naming an alias bound there, ...
            found = {p for p, used in keys.items() if p not in users and not used.isdisjoint(names)}
            users |= found
            aliases = set().union(*(aliases_in(facts_of(p), names) for p in found))
            if not aliases:
                break
            names |= aliases
        return tree.resolve(put_back, users, targets, config)


@dataclasses.dataclass(frozen=True)
class Removal:
    """A symbol of the index that the new side no longer has where it was."""

    uid: str  # its indexed uid
    old_path: str  # the indexed file that defines it
    local: str
    new_path: str | None  # that file on the new side (renamed or not); None: gone


def edges_from(
    repo: Path,
    gen_dir: Path,
    new_sides: dict[str, FileFacts],
    removed: list[Removal],
    users: set[str],
    config: IndexConfig | None = None,
) -> list[Edge] | None:
    """Whether code the change edited still names symbols it removed: the edges from
    `users` (paths) into the `removed` symbols, with the files of `new_sides` (path ->
    facts of its content now) in place of what the index holds, each removed symbol put
    back into its file's new side (a caller that followed a rename binds to it there),
    the rest of the tree as indexed. Edge targets are the removed symbols' indexed uids.
    None when the generation keeps no state to resolve with."""
    with _Tree(repo, gen_dir) as tree:
        if not tree.ok:
            return None
        replaced: dict[str, FileFacts] = {}
        for path, facts in new_sides.items():
            spec = language_for(path)
            if spec is not None and (path in tree.present or spec.name == facts.language):
                tree.lang_of.setdefault(path, spec.name)
                replaced[path] = facts
        targets = {r.uid for r in removed}
        same: dict[str, str] = {}  # a put-back symbol's uid at its new path -> indexed uid
        by_new: dict[tuple[str, str], set[str]] = {}
        for r in removed:
            if r.new_path in replaced and r.old_path in tree.present:
                by_new.setdefault((r.new_path, r.old_path), set()).add(r.local)
                same[f"{r.new_path}::{r.local}"] = r.uid
        for (new_path, old_path), locals_ in by_new.items():
            old = tree.indexed(old_path)
            back = [s for s in old.symbols if s.local in locals_]
            replaced[new_path] = merged(replaced[new_path], old, back)
        users = {u for u in users if u in replaced or u in tree.present}
        if not users or not replaced:
            return []
        edges = tree.resolve(replaced, users, targets | set(same), config)
        return [e._replace(dst=same.get(e.dst, e.dst)) for e in edges]
