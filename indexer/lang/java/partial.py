"""Types declared in parts (C# `partial class`, Ruby's reopened classes and modules): a mixin
of the Java model's resolver. The parts of one qualified name are one type: the first part
(by path) stands for all (`canonical`), with the members and the bases of every part."""

from __future__ import annotations

from codeimpact.indexer.resolved import strip_dup


class PartialTypes:
    """Needs JavaProject's tables (files, package_of, members); call merge_parts() once
    they are built."""

    def is_part(self, fi, s) -> bool:
        """Whether a type definition is one part of a type declared in parts."""
        raise NotImplementedError

    def merge_parts(self) -> None:
        """A partial class is one class: its first part (by path) stands for every part,
        with the members and the bases of all."""
        parts: dict[str, list[tuple[str, str]]] = {}
        for path, fi in self.files.items():
            pkg = self.package_of[path]
            for s in fi.facts.symbols:
                if self.is_part(fi, s):
                    # `Cart#2`: the same type reopened in its own file (a Swift extension)
                    parts.setdefault(f"{pkg}.{strip_dup(s.local)}", []).append((path, s.local))
        self.parts: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for keys in parts.values():
            if len(keys) < 2:
                continue
            keys.sort()
            union: dict[str, list] = {}
            for k in keys:
                for name, targets in self.members.get(k, {}).items():
                    have = union.setdefault(name, [])
                    have.extend(t for t in targets if t not in have)
            self.members[keys[0]] = union
            self.parts[keys[0]] = keys
            for k in keys[1:]:
                self.parts[k] = keys
        self.index_owners()

    def find_member(self, tkey, name, want, argc=None, supers_only=False):
        """Members of any part are the type's: a lookup from a part starts at the first."""
        return super().find_member(self.canonical(tkey), name, want, argc, supers_only)

    def canonical(self, tkey, depth=0):
        keys = self.parts.get(tkey)
        return keys[0] if keys else tkey

    def supertypes(self, tkey):
        out: list = []
        for k in self.parts.get(tkey, [tkey]):
            out.extend(super().supertypes(k))
        return tuple(out)
