"""TypeScript / JavaScript modules as their importers see them (a mixin of TsProject): what
a specifier names, what a module exports (ES `export`, `export default`, `export =`,
CommonJS `module.exports` / `exports.x`, re-exports and `export *`, through the engine's
export walk, engine/imports.py) and what an import binds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codeimpact.indexer.lang.engine.imports import (
    MODULE,
    OUTSIDE,
    UNBOUND,
    exported,
    via_import,
)

if TYPE_CHECKING:
    from codeimpact.indexer.lang.typescript.resolve import _FileIndex

Entity = tuple  # ("sym", path, local) ("inst", path, local) ("mod", path) ("ext", dotted)
MAX_DEPTH = 24  # lookups deeper than this are cut (and not memoised)


class Exports:
    """Modules, exports and imports of a TsProject (files, modules, memo, eval_chain,
    getattr and deref are the project's)."""

    # ------------------------------------------------------------------ modules
    def _target(self, fi: _FileIndex, spec: str):
        return self.modules.resolve(fi.path, spec)

    def module_value(self, path: str, depth: int) -> tuple[Entity, str]:
        """What `require(path)` / `import * as ns` gives: `module.exports =`, or the namespace."""
        if "=" in self.files[path].exports:
            r = self.export_lookup(path, "=", depth + 1)
            if r is not None:
                return r
        return ("mod", path), "import"

    # ------------------------------------------------------------------ memo
    def _cut(self):
        """A lookup stopped short (too deep): what depends on it is not memoised."""
        self.memo.cut()

    def export_lookup(self, path: str, name: str, depth: int = 0):
        """The definition a module exports under `name` (through re-export chains), or None
        (the engine's walk, engine/imports.py; memoised: a barrel of `export *` would
        otherwise be searched per use)."""
        if depth > MAX_DEPTH:
            return self._cut()
        return exported(self, ("exports", path, name), path, name, depth)

    # the engine's export walk: its hooks
    def exported(self, path: str, name: str, depth: int):
        return self.export_lookup(path, name, depth)

    def own_binding(self, path: str, name: str, depth: int):
        """`export`, `export default`, `export =`, `exports.x`, `export {x} from`: a name the
        module exports itself is answered here, resolved or not."""
        fi = self.files[path]
        e = fi.exports.get(name)
        if e is None:
            return UNBOUND
        if e[0] == "local":
            if e[1] in fi.unbound:
                return ("sym", path, e[1]), "scope"
            return self.eval_chain(fi, "", e[1], None, depth + 1, deref_last=False)
        t = self._target(fi, e[1])
        if t.kind == "external":
            return ("ext", t.path if e[0] == "ns" else f"{t.path}.{e[2]}"), "import"
        if t.kind != "file":
            return None
        if e[0] == "ns":
            return self.module_value(t.path, depth + 1)
        return self._imported(t.path, e[2], depth + 1)

    def reexports(self, path: str, name: str):
        # `export *` never re-exports a module's default export
        return self.files[path].stars if name != "default" else ()

    def reexport_target(self, path: str, spec: str, name: str, depth: int):
        t = self._target(self.files[path], spec)
        if t.kind == "file" and t.path != path:
            return MODULE, t.path
        if t.kind == "external":
            return OUTSIDE, t.path
        return None

    @staticmethod
    def via_reexport(found):
        return found  # as the source module exports it: importers apply the import step

    def _imported(self, path: str, name: str, depth: int):
        """`import {name}` / `import name` (name "default") from a repository module."""
        r = self.export_lookup(path, name, depth + 1)
        if r is not None:
            return via_import(r)
        if "=" in self.files[path].exports:
            # CommonJS interop: the default import is module.exports, named ones its members
            v = self.export_lookup(path, "=", depth + 1)
            if v is not None:
                if name == "default":
                    return via_import(v)
                m = self.getattr(self.deref(v[0], v[1], depth + 1), name, depth + 1)
                if m is not None:
                    return via_import(m)
        if name == "default":
            return ("mod", path), "import"
        return None

    def import_target(self, fi: _FileIndex, imp, depth: int = 0):
        t = self._target(fi, imp.module)
        if t.kind == "external":
            dotted = t.path if imp.name in ("", "default") else f"{t.path}.{imp.name}"
            return ("ext", dotted), "import"
        if t.kind != "file":
            return None
        if imp.name == "":
            return via_import(self.module_value(t.path, depth + 1))
        return self._imported(t.path, imp.name, depth + 1)
