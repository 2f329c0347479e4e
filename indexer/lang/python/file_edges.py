"""The edges of a Python file other than its definitions' and its call sites' (a mixin of
PythonProject; engine/project.py's `file_edges` hook): what its imports bind and run, what
the rules of whole statements make (decorators, handed closures, fixtures, `with`, loops,
writes, class creation), its classes' EXTENDS, its attribute reads' getters (reads.py) and
its references to definitions (`x = f`, `isinstance(o, C)`, a default value).
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.memo import MISSING
from codeimpact.indexer.lang.engine.rules import CONFIDENCE
from codeimpact.indexer.lang.engine.values import members
from codeimpact.indexer.lang.python.index import FileIndex

# the kinds of a symbol that run when called (engine/typed_members.py's CALLABLE_KINDS, a
# module Python's resolution imports for nothing else: ~1 ms of an edit's run with its Found)
CALLABLE_KINDS = frozenset({"function", "method", "constructor"})
# the kinds of a symbol a name read names that make a REFERENCES edge
_REFERENCED_KINDS = frozenset(("class", "function", "method"))


class FileEdges:
    """`file_edges` (the engine's hook), with the IMPORTS edge of a module a test file runs."""

    def file_edges(self, fi: FileIndex, edges: Edges) -> None:
        path, f = fi.path, fi.facts
        module_uid = self.here_uid(fi, "")
        test_file = self.is_test_path(path)
        import_confidence = CONFIDENCE["import"]
        guarded = f.extra.get("guarded_imports") if test_file else None
        module_file, srcs = self.module_file, self._srcs
        for imp in f.imports:
            if test_file:
                # A test file importing a module runs the module's top-level code: in a
                # function's body when the function runs (an app module of the suite that
                # sets itself up, `from blueprintapp import app` registering blueprints), at
                # the top of the file when the test module is collected (`from flask.cli
                # import FlaskGroup` runs flask/cli.py, which hands `_set_debug` to click as
                # an option's callback). The name an import binds is the module's edge
                # (below); this one depends on the module run, which the query follows only
                # when importing it runs what is asked about (query/running_modules.py).
                # Test files only: elsewhere the importer's own top level is what runs, and
                # a module import of it already says so. (Written in here with the module
                # run, module_run_by: two frames per import of a test file, 11K per Django.)
                runs = True
                if imp.scope:
                    sym = fi.syms.get(imp.scope)
                    runs = sym is not None and sym.kind in CALLABLE_KINDS
                elif not imp.name or imp.name == "*":
                    runs = False  # `import m`, `from m import *`: the module's edge goes to m
                elif guarded:  # (a loop, not any() over a generator)
                    at = imp.line
                    for line, _kind in guarded:
                        if line == at:
                            runs = False  # under `if TYPE_CHECKING:` (or `__main__`)
                            break
                if runs:
                    # the module whose top-level code the import runs: the module named, or
                    # the submodule a `from` import names (None outside the index)
                    if not imp.name:
                        ran = module_file.get(imp.module)
                    else:
                        base = (
                            self._relative_base(fi, imp.level, imp.module)
                            if imp.level
                            else imp.module
                        )
                        sub = f"{base}.{imp.name}" if base else imp.name
                        if imp.name != "*" and sub in module_file:
                            ran = module_file[sub]
                        else:
                            ran = module_file.get(base) if base else None
                    if ran is not None and ran != path:
                        # (here_uid's table, uid and edges.add written out)
                        src = srcs.get(imp.scope) or self.here_uid(fi, imp.scope)
                        edges.append(("IMPORTS", src, f"{ran}::", import_confidence, "import",
                                      imp.line))  # fmt: skip
            if imp.name == "*":
                base = self._import_base(fi, imp)
                target = self.module_entity(base) if base else None
            elif not imp.name and not imp.alias:
                target = self.module_entity(imp.module)  # `import a.b` depends on a.b
            else:
                r = self.import_target(fi, imp, False, 0)
                target = r[0] if r else None
            if target is None:
                continue
            k = target[0]  # (ent_uid's two commonest kinds and edges.add written out: 18K)
            if k == "sym":
                dst = f"{target[1]}::{target[2]}"
            elif k == "mod":
                dst = f"{target[1]}::"
            else:
                dst = self.ent_uid(target)
            if dst is not None and dst != module_uid:
                edges.append(("IMPORTS", module_uid, dst, import_confidence, "import", imp.line))

        self.decorator_edges(fi, edges)
        self.handed_closure_edges(fi, edges)
        self.fixture_edges(fi, edges)
        self.context_edges(fi, edges)
        self.loop_edges(fi, edges)
        self.write_edges(fi, edges)
        self.class_creation_edges(fi, edges)

        known, files = self._heritage_values, self.files
        for h in f.heritage:
            r = known.get((path, h), MISSING)
            if r is MISSING:
                r = self.eval_chain(fi, fi.parent.get(h.scope, ""), h.base, h.line)
            if r is None:
                continue
            for ent in members(r[0]):  # (a base imported in a try/except: either)
                # (_kind, ent_uid, here_uid's table and edges.add written out: 9K per Django)
                if ent[0] == "sym":
                    s = files[ent[1]].syms.get(ent[2])
                    if not (s and s.kind == "class"):
                        continue
                    dst = f"{ent[1]}::{ent[2]}"
                elif ent[0] == "ext":
                    dst = self.ent_uid(ent)
                else:
                    continue
                src = self._srcs.get(h.scope) or self.here_uid(fi, h.scope)
                edges.append(("EXTENDS", src, dst, CONFIDENCE[r[1]], r[1], h.line))

        self.read_edges(fi, edges)
        lookups = self._lookups
        for ref in f.references:
            if ref.kind == "read":
                continue  # read_edges
            target = ref.target
            if target.isidentifier():  # a name alone (most): eval_chain's lookup written out
                lk = (path, ref.scope, target)
                r = lookups.get(lk, MISSING) if lookups is not None else MISSING
                if r is MISSING:
                    r = self.lookup_name(fi, ref.scope, target, ref.line, 0, lk)
            else:
                reads: list = []
                r = self.eval_chain(fi, ref.scope, target, ref.line, 0, reads)
                for getter, rule in reads:
                    edges.call(self.here_uid(fi, ref.scope), self.ent_uid(getter), rule, ref.line)
            if r is None or r[0][0] != "sym":
                continue
            ent, reason = r
            s = self.files[ent[1]].syms.get(ent[2])  # (_kind written out: 12K per Django)
            if s and s.kind in _REFERENCED_KINDS:
                # (here_uid's table, ent_uid of a symbol and edges.add written out)
                src = self._srcs.get(ref.scope) or self.here_uid(fi, ref.scope)
                dst = f"{ent[1]}::{ent[2]}"
                if src != dst:
                    edges.append(("REFERENCES", src, dst, CONFIDENCE[reason], reason, ref.line))
