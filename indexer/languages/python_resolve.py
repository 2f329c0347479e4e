"""Python name resolution across files: imports, scopes, the MRO and simple value flow.

A name is looked up the way Python does it (local, enclosing functions,
module, builtins; class bodies are not enclosing scopes), then attribute
chains are followed through modules, classes (C3 MRO) and instances whose
class is evident. Every step names its rule; a chain takes its weakest rule's
confidence. What cannot be resolved is reported, never guessed at full
confidence.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath

from codeimpact.indexer.facts import FileFacts, SymbolFact
from codeimpact.indexer.languages.python import module_name
from codeimpact.indexer.resolved import (
    CONFIDENCE,
    Edge,
    ResolvedFile,
    SymbolRow,
    Unresolved,
    dedupe_edges,
    external_uid,
    weakest,
)

BUILTINS = frozenset(dir(builtins))

# Method names of builtin types: a receiver we cannot type is most likely one of
# these, so a same-named repository method is no evidence of a call.
_COMMON_METHODS = frozenset(
    name
    for typ in (list, dict, str, bytes, set, frozenset, tuple, int, float, object, bytearray)
    for name in dir(typ)
) | frozenset(
    [
        "read",
        "write",
        "close",
        "open",
        "flush",
        "seek",
        "tell",
        "readline",
        "readlines",
        "send",
        "recv",
        "get",
        "set",
        "put",
        "post",
        "delete",
        "patch",
        "head",
        "run",
        "start",
        "stop",
        "join",
        "wait",
        "acquire",
        "release",
        "lock",
        "unlock",
        "update",
        "keys",
        "values",
        "items",
        "append",
        "extend",
        "pop",
        "insert",
        "remove",
        "clear",
        "copy",
        "add",
        "discard",
        "sort",
        "reverse",
        "encode",
        "decode",
        "format",
        "split",
        "strip",
        "replace",
        "match",
        "search",
        "sub",
        "group",
        "groups",
        "info",
        "debug",
        "warning",
        "error",
        "exception",
        "critical",
        "log",
        "emit",
        "handle",
        "filter",
        "execute",
        "fetchone",
        "fetchall",
        "fetchmany",
        "commit",
        "rollback",
        "cursor",
        "connect",
        "save",
        "load",
        "dump",
        "dumps",
        "loads",
        "next",
        "iter",
        "call",
        "apply",
        "render",
        "parse",
        "compile",
        "resolve",
        "exists",
        "mkdir",
        "unlink",
        "rename",
        "stat",
        "is_dir",
        "is_file",
        "submit",
        "result",
        "cancel",
        "done",
        "shutdown",
        "register",
        "setdefault",
        "name",
        "value",
    ]
)

# Entities a name or chain can evaluate to (plain tuples: cheap and hashable):
#   ("sym", path, local)   a definition in the repository
#   ("mod", path)          a module of the repository
#   ("inst", path, local)  an instance of a repository class
#   ("ext", dotted)        something outside the repository
#   ("builtin", name)
#   ("param", path, scope, name)  a parameter whose value we do not know
Entity = tuple


@dataclass
class _FileIndex:
    path: str
    module: str
    package: str  # the package relative imports start from
    facts: FileFacts
    syms: dict[str, SymbolFact] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)
    # scope -> name -> [(line, kind, payload)] candidates in source order
    names: dict[str, dict[str, list[tuple[int, str, object]]]] = field(default_factory=dict)
    params: dict[str, dict[str, tuple[int, str]]] = field(default_factory=dict)
    returns: dict[str, list] = field(default_factory=dict)
    self_attrs: dict[str, dict[str, list]] = field(
        default_factory=dict
    )  # class -> attr -> bindings
    param_calls: dict[str, set[str]] = field(default_factory=dict)  # function -> params it calls
    star_imports: list = field(default_factory=list)
    members: dict[str, dict[str, str]] = field(default_factory=dict)  # class -> name -> local


def _strip_dup(local: str) -> str:
    return ".".join(p.split("#", 1)[0] for p in local.split(".")) if "#" in local else local


class PythonProject:
    """Resolution context for all Python files of one index."""

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs: dict[str, str] | None = None):
        self.is_test_path = is_test_path
        package_dirs = frozenset(
            str(PurePosixPath(p).parent)
            for p in files
            if PurePosixPath(p).name in ("__init__.py", "__init__.pyi")
        )
        self.files: dict[str, _FileIndex] = {}
        self.module_file: dict[str, str] = {}
        for path in sorted(files, key=lambda p: (p.endswith(".pyi"), p)):
            facts = files[path]
            mod = module_name(path, package_dirs)
            is_pkg = PurePosixPath(path).stem == "__init__"
            package = mod if is_pkg else mod.rpartition(".")[0]
            fi = _FileIndex(path, mod, package, facts)
            self._index_file(fi)
            self.files[path] = fi
            self.module_file.setdefault(mod, path)
        # method name -> definitions, for dispatch and unique-name
        self.methods_by_name: dict[str, list[tuple[str, str]]] = {}
        self.subclasses: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for path, fi in self.files.items():
            for local, s in fi.syms.items():
                if s.kind == "method":
                    self.methods_by_name.setdefault(s.name, []).append((path, local))
        for path, fi in self.files.items():
            for local, s in fi.syms.items():
                if s.kind == "class":
                    for base in self.bases(path, local):
                        self.subclasses.setdefault(base, []).append((path, local))

    # ------------------------------------------------------------------ indexing
    def _index_file(self, fi: _FileIndex) -> None:
        f = fi.facts
        for s in f.symbols:
            fi.syms[s.local] = s
            if s.local:
                head, _, _ = s.local.rpartition(".")
                fi.parent[s.local] = head
                scope_names = fi.names.setdefault(head, {})
                if s.kind != "variable":
                    scope_names.setdefault(s.name, []).append((s.start_line, "def", s.local))
                    if fi.syms.get(head) is not None and fi.syms[head].kind == "class":
                        fi.members.setdefault(head, {})[s.name] = s.local
                else:
                    scope_names.setdefault(s.name, []).append((s.start_line, "var", s.local))
            if s.kind in ("function", "method") and s.params:
                fi.params[s.local] = {
                    name.lstrip("*"): (i, ann) for i, (name, ann) in enumerate(s.params)
                }
        for imp in f.imports:
            if imp.name == "*":
                if imp.scope == "":
                    fi.star_imports.append(imp)
                continue
            if imp.name:
                bound = imp.alias or imp.name
            else:
                bound = imp.alias or imp.module.split(".", 1)[0]
            fi.names.setdefault(imp.scope, {}).setdefault(bound, []).append(
                (imp.line, "import", imp)
            )
        for b in f.bindings:
            if b.name.startswith("self."):
                cls = fi.parent.get(b.scope)
                if cls is not None and fi.syms.get(cls) and fi.syms[cls].kind == "class":
                    fi.self_attrs.setdefault(cls, {}).setdefault(b.name[5:], []).append(b)
                continue
            fi.names.setdefault(b.scope, {}).setdefault(b.name, []).append((b.line, "bind", b))
            if b.name in fi.members.get(b.scope, {}):
                pass
        for r in f.returns:
            fi.returns.setdefault(r.scope, []).append(r)
        for c in f.calls:
            ps = fi.params.get(c.scope)
            if ps and c.callee in ps:
                fi.param_calls.setdefault(c.scope, set()).add(c.callee)
        for cands in fi.names.values():
            for lst in cands.values():
                lst.sort(key=lambda t: t[0])

    # ------------------------------------------------------------------ lookups
    def module_entity(self, dotted: str) -> Entity:
        path = self.module_file.get(dotted)
        return ("mod", path) if path is not None else ("ext", dotted)

    def _relative_base(self, fi: _FileIndex, level: int, module: str) -> str:
        pkg = fi.package
        for _ in range(level - 1):
            pkg = pkg.rpartition(".")[0]
        if module:
            return f"{pkg}.{module}" if pkg else module
        return pkg

    def import_target(self, fi: _FileIndex, imp, depth: int = 0) -> tuple[Entity, str] | None:
        """What an import binds: a module, a definition (through re-exports) or an external."""
        if not imp.name:
            if imp.alias:
                return self.module_entity(imp.module), "import"
            return self.module_entity(imp.module.split(".", 1)[0]), "import"
        base = self._relative_base(fi, imp.level, imp.module) if imp.level else imp.module
        sub = f"{base}.{imp.name}" if base else imp.name
        if sub in self.module_file:
            return ("mod", self.module_file[sub]), "import"
        base_path = self.module_file.get(base)
        if base_path is None:
            if imp.level:
                return None  # a relative import into nothing we index
            return ("ext", sub), "import"
        if depth > 12:
            return None
        r = self.lookup_module_name(base_path, imp.name, depth + 1)
        if r is None:
            return None
        ent, reason = r
        return ent, weakest(reason, "import") if reason != "scope" else "import"

    def lookup_module_name(self, path: str, name: str, depth: int = 0) -> tuple[Entity, str] | None:
        fi = self.files[path]
        r = self._lookup_in_scope(fi, "", name, None, depth)
        if r is not None:
            return r
        if depth > 12:
            return None
        for imp in fi.star_imports:
            base = self._relative_base(fi, imp.level, imp.module) if imp.level else imp.module
            target = self.module_file.get(base)
            if target is not None and target != path and not name.startswith("_"):
                r = self.lookup_module_name(target, name, depth + 1)
                if r is not None:
                    return r[0], weakest(r[1], "import") if r[1] != "scope" else "import"
        return None

    def _lookup_in_scope(self, fi: _FileIndex, scope: str, name: str, line: int | None, depth: int):
        cands = fi.names.get(scope, {}).get(name)
        if cands:
            chosen = None
            if line is not None:
                for c in cands:
                    if c[0] <= line:
                        chosen = c
            if chosen is None:
                # a later binding still wins for code that runs after the module loaded
                chosen = cands[-1]
                for c in cands:
                    if c[1] != "var":
                        chosen = c
            kind = chosen[1]
            if kind == "def":
                return ("sym", fi.path, chosen[2]), "scope"
            if kind == "var":
                # a module variable; follow its binding when it aliases something
                for c in reversed(cands):
                    if c[1] == "bind":
                        kind, chosen = "bind", c
                        break
                else:
                    return ("sym", fi.path, chosen[2]), "scope"
            if kind == "import":
                if depth > 12:
                    return None
                return self.import_target(fi, chosen[2], depth + 1)
            if kind == "bind":
                b = chosen[2]
                if depth > 12:
                    return None
                r = self.eval_chain(fi, b.scope, b.value, b.line, depth + 1)
                if r is None:
                    return None
                ent, reason = r
                if b.is_call:
                    res = self.call_result(ent, depth + 1)
                    if res is None:
                        return None
                    return res, weakest(reason, "local-type")
                if ent[0] == "sym" and ent[1] == fi.path and ent[2] == b.name:
                    return None
                return ent, weakest(reason, "alias")
        ps = fi.params.get(scope)
        if ps and name in ps:
            idx, ann = ps[name]
            s = fi.syms[scope]
            cls = fi.parent.get(scope, "")
            if idx == 0 and s.kind == "method" and "staticmethod" not in s.decorators:
                if "classmethod" in s.decorators:
                    return ("sym", fi.path, cls), "self"
                return ("inst", fi.path, cls), "self"
            if ann and depth <= 12:
                r = self.eval_chain(fi, fi.parent.get(scope, ""), ann, None, depth + 1)
                if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "class":
                    return ("inst", r[0][1], r[0][2]), weakest(r[1], "local-type")
            return ("param", fi.path, scope, name), "scope"
        return None

    def lookup_name(self, fi: _FileIndex, scope: str, name: str, line: int | None, depth: int = 0):
        s = scope
        first = True
        while True:
            is_class = s != "" and fi.syms.get(s) is not None and fi.syms[s].kind == "class"
            if first or not is_class:
                r = self._lookup_in_scope(fi, s, name, line if first else None, depth)
                if r is not None:
                    return r
            if s == "":
                break
            s = fi.parent.get(s, "")
            first = False
        for imp in fi.star_imports:
            base = self._relative_base(fi, imp.level, imp.module) if imp.level else imp.module
            target = self.module_file.get(base)
            if target is not None and target != fi.path:
                r = self.lookup_module_name(target, name, depth + 1)
                if r is not None:
                    return r[0], "import"
        if name in BUILTINS:
            return ("builtin", name), "scope"
        return None

    def _kind(self, ent: Entity) -> str | None:
        if ent[0] != "sym":
            return None
        s = self.files[ent[1]].syms.get(ent[2])
        return s.kind if s else None

    def enclosing_class(self, fi: _FileIndex, scope: str) -> str | None:
        s = scope
        while s:
            sym = fi.syms.get(s)
            if sym is not None and sym.kind == "class":
                return s
            s = fi.parent.get(s, "")
        return None

    def eval_chain(self, fi: _FileIndex, scope: str, chain: str, line: int | None, depth: int = 0):
        if depth > 16 or not chain or chain.startswith("?"):
            return None
        if "()." in chain:
            head, _, attr = chain.rpartition("().")
            if head == "super":
                cls = self.enclosing_class(fi, scope)
                if cls is None:
                    return None
                for i, (p, c) in enumerate(self.mro(fi.path, cls)):
                    if i == 0:
                        continue
                    local = self.files[p].members.get(c, {}).get(attr)
                    if local is not None:
                        return ("sym", p, local), "super"
                return None
            r = self.eval_chain(fi, scope, head, line, depth + 1)
            if r is None:
                return None
            res = self.call_result(r[0], depth + 1)
            if res is None:
                return None
            return self.getattr(res, attr, weakest(r[1], "local-type"), depth + 1)
        parts = chain.split(".")
        r = self.lookup_name(fi, scope, parts[0], line, depth)
        if r is None:
            return None
        ent, reason = r
        for attr in parts[1:]:
            r = self.getattr(ent, attr, reason, depth + 1)
            if r is None:
                return None
            ent, reason = r
        return ent, reason

    def getattr(self, ent: Entity, attr: str, reason: str, depth: int):
        kind = ent[0]
        if kind == "mod":
            path = ent[1]
            fi = self.files[path]
            sub = f"{fi.module}.{attr}" if fi.module else attr
            r = self.lookup_module_name(path, attr, depth + 1)
            if r is not None:
                return r[0], weakest(reason, r[1])
            if sub in self.module_file:
                return ("mod", self.module_file[sub]), reason
            return None
        if kind == "ext":
            return ("ext", f"{ent[1]}.{attr}"), reason
        if kind in ("sym", "inst"):
            path, local = ent[1], ent[2]
            fi = self.files[path]
            sym = fi.syms.get(local)
            if sym is None:
                return None
            if sym.kind == "variable":
                r = self._lookup_in_scope(fi, fi.parent.get(local, ""), sym.name, None, depth + 1)
                if r is None or r[0] == ent:
                    return None
                return self.getattr(r[0], attr, weakest(reason, r[1]), depth + 1)
            if sym.kind != "class":
                return None
            for i, (p, c) in enumerate(self.mro(path, local)):
                m = self.files[p].members.get(c, {}).get(attr)
                if m is not None:
                    return ("sym", p, m), reason if i == 0 else weakest(reason, "inheritance")
            if kind == "inst":
                for p, c in self.mro(path, local):
                    binds = self.files[p].self_attrs.get(c, {}).get(attr)
                    if binds:
                        b = binds[0]
                        r = self.eval_chain(self.files[p], b.scope, b.value, None, depth + 1)
                        if r is None:
                            return None
                        if b.is_call:
                            res = self.call_result(r[0], depth + 1)
                            if res is None:
                                return None
                            return res, weakest(weakest(reason, r[1]), "local-type")
                        return r[0], weakest(weakest(reason, r[1]), "local-type")
            return None
        return None

    def call_result(self, ent: Entity, depth: int) -> Entity | None:
        """The value of calling `ent`: an instance for a class, what a function returns."""
        if depth > 16 or ent[0] != "sym":
            return None
        fi = self.files[ent[1]]
        sym = fi.syms.get(ent[2])
        if sym is None:
            return None
        if sym.kind == "class":
            return ("inst", ent[1], ent[2])
        if sym.kind in ("function", "method"):
            for r in fi.returns.get(ent[2], ()):
                res = self.eval_chain(fi, r.scope, r.value, None, depth + 1)
                if res is None:
                    continue
                val = res[0]
                if r.is_call:
                    val = self.call_result(val, depth + 1)
                if val is not None and val[0] == "inst":
                    return val
        return None

    def bases(self, path: str, local: str) -> list[tuple[str, str]]:
        return list(self._bases(path, local))

    @cache  # noqa: B019 - the project lives as long as its cache
    def _bases(self, path: str, local: str) -> tuple[tuple[str, str], ...]:
        fi = self.files[path]
        out = []
        scope = fi.parent.get(local, "")
        for h in fi.facts.heritage:
            if h.scope != local:
                continue
            r = self.eval_chain(fi, scope, h.base, h.line, 0)
            if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "class":
                key = (r[0][1], r[0][2])
                if key != (path, local):
                    out.append(key)
        return tuple(out)

    @cache  # noqa: B019
    def mro(self, path: str, local: str, _depth: int = 0) -> tuple[tuple[str, str], ...]:
        """C3 linearisation over the bases we can resolve; depth-first if C3 fails."""
        me = (path, local)
        if _depth > 40:
            return (me,)
        seqs = [list(self.mro(p, c, _depth + 1)) for p, c in self._bases(path, local)]
        seqs.append(list(self._bases(path, local)))
        out = [me]
        while True:
            seqs = [s for s in seqs if s]
            if not seqs:
                return tuple(out)
            for s in seqs:
                head = s[0]
                if not any(head in t[1:] for t in seqs):
                    break
            else:
                seen = set(out)
                for s in seqs:
                    for x in s:
                        if x not in seen:
                            seen.add(x)
                            out.append(x)
                return tuple(out)
            if head in out:
                return tuple(out)
            out.append(head)
            for s in seqs:
                if s and s[0] == head:
                    del s[0]

    # ------------------------------------------------------------------ output
    def uid(self, path: str, local: str) -> str:
        return f"{path}::{local}"

    def qualified(self, fi: _FileIndex, local: str) -> str:
        if not local:
            return fi.module
        return f"{fi.module}.{_strip_dup(local)}" if fi.module else _strip_dup(local)

    def ent_uid(self, ent: Entity) -> str | None:
        k = ent[0]
        if k == "sym" or k == "inst":
            return self.uid(ent[1], ent[2])
        if k == "mod":
            return self.uid(ent[1], "")
        if k == "ext":
            return external_uid(ent[1])
        return None

    def resolve_file(self, path: str) -> ResolvedFile:
        fi = self.files[path]
        f = fi.facts
        out = ResolvedFile(path)
        file_is_test = self.is_test_path(path)
        edges: list[Edge] = []
        for s in f.symbols:
            uid = self.uid(path, s.local)
            name = s.name or (
                fi.module.rpartition(".")[2] if fi.module else PurePosixPath(path).stem
            )
            out.symbols.append(
                SymbolRow(
                    uid,
                    s.kind,
                    name,
                    self.qualified(fi, s.local),
                    path,
                    s.start_line,
                    s.end_line,
                    s.start_byte,
                    s.end_byte,
                    s.signature,
                    s.exported,
                    file_is_test,
                    "python",
                )
            )
            if s.local:
                edges.append(
                    Edge(
                        "CONTAINS",
                        self.uid(path, fi.parent[s.local]),
                        uid,
                        1.0,
                        "scope",
                        s.start_line,
                    )
                )
        module_uid = self.uid(path, "")

        for imp in f.imports:
            if imp.name == "*":
                base = self._relative_base(fi, imp.level, imp.module) if imp.level else imp.module
                target = self.module_entity(base) if base else None
            else:
                r = self.import_target(fi, imp)
                target = r[0] if r else None
                if target is not None and not imp.name and not imp.alias:
                    target = self.module_entity(imp.module)
            if target is None:
                continue
            dst = self.ent_uid(target)
            if dst is not None and dst != module_uid:
                edges.append(Edge("IMPORTS", module_uid, dst, 1.0, "import", imp.line))

        for h in f.heritage:
            r = self.eval_chain(fi, fi.parent.get(h.scope, ""), h.base, h.line)
            if r is None:
                continue
            ent, reason = r
            if ent[0] == "sym" and self._kind(ent) == "class" or ent[0] == "ext":
                edges.append(
                    Edge(
                        "EXTENDS",
                        self.uid(path, h.scope),
                        self.ent_uid(ent),
                        CONFIDENCE[reason],
                        reason,
                        h.line,
                    )
                )

        for ref in f.references:
            r = self.eval_chain(fi, ref.scope, ref.target, ref.line)
            if r is None or r[0][0] != "sym":
                continue
            ent, reason = r
            if self._kind(ent) in ("class", "function", "method"):
                src = self.uid(path, ref.scope)
                dst = self.ent_uid(ent)
                if src != dst:
                    edges.append(Edge("REFERENCES", src, dst, CONFIDENCE[reason], reason, ref.line))

        for call in f.calls:
            out.calls_total += 1
            self._resolve_call(fi, call, edges, out)

        out.edges = dedupe_edges(edges)
        return out

    def _resolve_call(self, fi: _FileIndex, call, edges: list[Edge], out: ResolvedFile) -> None:
        src = self.uid(fi.path, call.scope)
        r = self.eval_chain(fi, call.scope, call.callee, call.line)
        last = call.callee.rpartition(".")[2]
        if r is None:
            if "." in call.callee and not call.callee.startswith("?"):
                if self._unique_name(last, edges, src, call.line):
                    return
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        ent, reason = r
        k = ent[0]
        if k == "builtin":
            out.calls_builtin += 1
            return
        if k == "param":
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        if k == "ext":
            edges.append(
                Edge("CALLS", src, external_uid(ent[1]), CONFIDENCE[reason], reason, call.line)
            )
            return
        if k == "mod":
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        if k == "inst":
            m = self.getattr(ent, "__call__", reason, 0)
            if m is None:
                out.unresolved.append(Unresolved(src, last, call.line))
                return
            ent, reason = m
        skind = self._kind(ent)
        if skind is None or skind == "variable":
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        dst = self.ent_uid(ent)
        edges.append(Edge("CALLS", src, dst, CONFIDENCE[reason], reason, call.line))
        if skind == "class":
            init = self.getattr(ent, "__init__", reason, 0)
            if init is not None and init[0][0] == "sym":
                edges.append(
                    Edge(
                        "CALLS",
                        src,
                        self.ent_uid(init[0]),
                        CONFIDENCE["constructor"],
                        "constructor",
                        call.line,
                    )
                )
        elif reason == "self" and call.callee.startswith(("self.", "cls.")):
            self._dispatch(fi, call, ent, edges, src)
        if call.args:
            self._value_flow(fi, call, ent, skind, edges, src)

    def _dispatch(self, fi, call, ent, edges, src) -> None:
        """self.m() may run an override of m in a subclass of the enclosing class."""
        cls = self.enclosing_class(fi, call.scope)
        if cls is None:
            return
        name = call.callee.rpartition(".")[2]
        seen = {(ent[1], ent[2])}
        stack = list(self.subclasses.get((fi.path, cls), ()))
        while stack:
            p, c = stack.pop()
            m = self.files[p].members.get(c, {}).get(name)
            if m is not None and (p, m) not in seen:
                seen.add((p, m))
                edges.append(
                    Edge(
                        "CALLS", src, self.uid(p, m), CONFIDENCE["dispatch"], "dispatch", call.line
                    )
                )
            stack.extend(self.subclasses.get((p, c), ()))

    def _unique_name(self, name: str, edges, src, line) -> bool:
        if name.startswith("__") or name in _COMMON_METHODS or len(name) < 4:
            return False
        defs = self.methods_by_name.get(name)
        if defs is None or len(defs) != 1:
            return False
        p, local = defs[0]
        edges.append(
            Edge("CALLS", src, self.uid(p, local), CONFIDENCE["unique-name"], "unique-name", line)
        )
        return True

    def _value_flow(self, fi, call, ent, skind, edges, src) -> None:
        """Functions passed as arguments: a reference from the caller, a call from the callee."""
        tfi = self.files[ent[1]]
        target_local = ent[2]
        if skind == "class":
            init = tfi.members.get(target_local, {}).get("__init__")
            if init is None:
                return
            target_local = init
        params = tfi.params.get(target_local, {})
        called = tfi.param_calls.get(target_local, set())
        tsym = tfi.syms.get(target_local)
        shift = (
            1
            if tsym is not None
            and tsym.kind == "method"
            and "staticmethod" not in tsym.decorators
            and (skind == "class" or not call.callee.split(".")[0][:1].isupper())
            else 0
        )
        by_pos = {i - shift: n for n, (i, _) in params.items()}
        for key, chain in call.args:
            r = self.eval_chain(fi, call.scope, chain, call.line)
            if r is None or r[0][0] != "sym":
                continue
            vk = self._kind(r[0])
            if vk not in ("function", "method", "class"):
                continue
            dst = self.ent_uid(r[0])
            edges.append(
                Edge("REFERENCES", src, dst, CONFIDENCE["value-flow"], "value-flow", call.line)
            )
            pname = key if isinstance(key, str) else by_pos.get(key)
            if pname is not None and pname in called:
                callee_uid = self.uid(ent[1], target_local)
                if callee_uid != dst:
                    edges.append(
                        Edge(
                            "CALLS",
                            callee_uid,
                            dst,
                            CONFIDENCE["value-flow"],
                            "value-flow",
                            call.line,
                        )
                    )
