"""Python classes' hierarchies (a mixin of PythonProject): a class's repository bases, its
C3 MRO, the methods `super()` reaches, its descendants and their overrides of a method.
Split from values.py, which reads them for members and calls."""

from __future__ import annotations

from codeimpact.indexer.lang.engine.hierarchy import c3, descendants
from codeimpact.indexer.lang.engine.memo import BUSY, MISSING, memoized
from codeimpact.indexer.lang.engine.values import members
from codeimpact.indexer.lang.python.index import NO_NAMES, FileIndex


class Hierarchy:
    """Bases, MROs, descendants and overrides of the project's classes."""

    # ------------------------------------------------------------------ classes
    def bases(self, path: str, local: str) -> list[tuple[str, str]]:
        return list(self._bases_info(path, local)[0])

    # (path, heritage fact) -> what its base evaluates to, kept by `_bases_info` when no cut
    # was met: the file's EXTENDS edges read it (file_edges.py) instead of evaluating
    # every base chain twice (a full build summarises every class before it resolves a file)
    _heritage_values: dict
    # an incremental run's previous summaries (path -> summary) and the paths summarised
    # again, whose previous summaries do not stand (resolve.py); None: a full build
    _standing_summaries: object = None
    _fresh_paths: frozenset = frozenset()

    @memoized('("bases", path, local)', "((), False)")
    def _bases_info(self, path: str, local: str) -> tuple[tuple[tuple[str, str], ...], bool]:
        """(the repository classes among a class's bases, whether a base is outside the
        repository or unresolved); read at its callers (no one-line accessor: a frame each,
        30K per Django)."""
        standing = self._standing_summaries
        if standing is not None and path not in self._fresh_paths:
            # a file not summarised again: its previous summary's answer when it was clean
            # (the same in any order of lookups)
            for c in standing[path][2]:
                if c[0] == local:
                    if c[4]:
                        return c[1], c[2]
                    break
        fi = self.files[path]
        out = []
        unknown = False
        scope = fi.parent.get(local, "")
        memo, known = self.memo, self._heritage_values
        for h in self._heritage_of(fi, local):
            cuts = memo.cuts
            r = self.eval_chain(fi, scope, h.base, h.line, 0)
            if memo.cuts == cuts:  # (an answer met with no cut: the same in any order)
                known[(path, h)] = r
            for ent in members(r[0]) if r is not None else (None,):  # (alternatives: each)
                if ent is not None and ent[0] == "sym" and self._kind(ent) == "class":
                    k = (ent[1], ent[2])
                    if k != (path, local):
                        out.append(k)
                elif h.base not in ("object", "Generic", "t.Generic", "typing.Generic"):
                    unknown = True
        return tuple(out), unknown

    # (file index, class -> its heritage facts) of the file whose bases were read last: a
    # summary reads every class's of a file in a row (one scan of the file's facts per
    # class was 467K tests per Django build, 66K in one file)
    _heritage_last: tuple | None = None

    def _heritage_of(self, fi: FileIndex, local: str) -> list:
        last = self._heritage_last
        if last is None or last[0] is not fi:
            by_class: dict = {}
            for h in fi.facts.heritage:
                by_class.setdefault(h.scope, []).append(h)
            last = self._heritage_last = (fi, by_class)
        return last[1].get(local, ())

    def mro(self, path: str, local: str) -> tuple[tuple[str, str], ...]:
        """C3 over the bases we can resolve (engine/hierarchy.py); kept in the memo under
        ("mro", path, local), the class alone on a cycle of bases (the protocol written out,
        as in class_member: 8K frames per Django)."""
        memo = self.memo
        key = ("mro", path, local)
        table = memo.table
        hit = table.get(key, MISSING)
        if hit is not MISSING:
            if hit is BUSY:
                memo.cuts += 1
                return ((path, local),)
            return hit
        table[key] = BUSY
        cuts = memo.cuts
        try:
            info = table.get(("bases", path, local))  # (a frame per hit, most: the build
            if info is None or info is BUSY:  # summarised every class)
                info = self._bases_info(path, local)
            out = c3((path, local), info[0], self._mro_of)
        except BaseException:
            table.pop(key, None)
            raise
        if memo.cuts == cuts:
            table[key] = out
        else:
            del table[key]
        return out

    def _mro_of(self, base: tuple[str, str]) -> tuple[tuple[str, str], ...]:
        return self.mro(base[0], base[1])

    def super_members(self, path: str, cls: str, name: str) -> list[tuple[str, str]]:
        """The definitions `super().name` in class `cls` reaches in the MRO of each subclass
        of `cls` (the MRO after `cls`), in a stable order."""
        if (path, cls) not in self.subclasses:
            return []
        files = self.files
        found = []
        table = self.memo.table
        tails = table.get(("super tails", path, cls))
        if tails is None or tails is BUSY:
            tails = self._super_tails(path, cls)
        for tail in tails:
            # (first_member written out: a lambda made per subclass, 14K per Django)
            for p, c in tail:
                m = files[p].members.get(c, NO_NAMES).get(name)
                if m is not None:
                    if (p, m) not in found:
                        found.append((p, m))
                    break
        return found

    @memoized('("super tails", path, cls)', "()")
    def _super_tails(self, path: str, cls: str) -> tuple:
        """The MROs after `cls` of the subclasses of `cls`, each once, in the order of the
        first subclass that has it: what `super()` in `cls` may reach, for every name
        (super_members). A base of many classes has a few: Django's Model 2.8K subclasses,
        and a walk of each MRO per name asked was 2.6% of resolving."""
        out: dict = {}
        table = self.memo.table
        me = (path, cls)
        for sub in self.descendants(path, cls):
            order = table.get(("mro", sub[0], sub[1]))  # (see class_member)
            if order is None or order is BUSY:
                order = self.mro(sub[0], sub[1])
            if me in order:
                out.setdefault(order[order.index(me) + 1 :], None)
        return tuple(out)

    def descendants(self, path: str, cls: str) -> tuple[tuple[str, str], ...]:
        """Every subclass of `cls` in the repository, transitively, in a stable order."""
        # (the memo's table read here: a lambda made per call for `cached`, 14K per Django)
        # Kept for the run, as `_descendant_set`: see there.
        key = ("descendants", path, cls)
        table = self.memo.table
        out = table.get(key)
        if out is None:
            out = table[key] = tuple(sorted(descendants((path, cls), self.subclasses.get)))
        return out

    def overrides(self, path: str, cls: str, name: str) -> list[tuple[str, str]]:
        """Definitions of method `name` in the subclasses of `cls`, transitively."""
        if (path, cls) not in self.subclasses:
            return []
        key = ("overrides", path, cls, name)
        table = self.memo.file_table  # (another file asked for 124 of Django's 1.5K)
        out = table.get(key)
        if out is None:
            # the classes defining a method `name` among the descendants: a base of many
            # classes (a test case, a model) is asked for many names, and a name has few
            # definitions (one walk of the descendants' members per name cost one process
            # of Django ~4% of resolving); sorted, as `descendants` is
            out = []
            files = self.files
            for p, c in sorted(self._method_classes(name) & self._descendant_set(path, cls)):
                fi = files[p]
                m = fi.members.get(c, NO_NAMES).get(name)
                if m is not None and fi.syms[m].kind == "method":
                    out.append((p, m))
            table[key] = out
        return out

    def _method_classes(self, name: str) -> frozenset:
        """(path, class) of the classes whose body defines a method `name` (the project's
        methods by name: the same in a full and an incremental run)."""
        key = ("method classes", name)
        table = self.memo.table
        out = table.get(key)
        if out is None:
            out = table[key] = frozenset(
                (p, local.rpartition(".")[0]) for p, local in self.methods_by_name.get(name, ())
            )
        return out

    def _descendant_set(self, path: str, cls: str) -> frozenset:
        # (from the walk itself: most classes asked for their overrides are never asked
        # for `descendants`, whose sort is then not made)
        # (the memo's table read here: a lambda made per call for `cached`, 29K per Django)
        # Kept for the run, not per file: the classes asked are the bases of many (Model,
        # Field, TestCase), asked in file after file, each a walk of up to thousands of
        # classes (the subclass table's, the same in any order: no cut); ~1 MB of sets for
        # a process resolving all of Django, 0.4% of its resolution's instructions
        key = ("descendant set", path, cls)
        table = self.memo.table
        out = table.get(key)
        if out is None:
            out = table[key] = frozenset(descendants((path, cls), self.subclasses.get))
        return out
