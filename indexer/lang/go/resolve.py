"""Go name resolution: packages from go.mod, package-level scope, receivers, embedding.

A package is the files of one folder with one package clause; all its files
share one scope, so `helper()` in a.go finds b.go's `helper` (reason `scope`).
An import path maps to a folder through the nearest `go.mod` above it
(`module example.com/app` + the folder below the go.mod); folders under
`vendor/` take the path below the last `vendor`, and without a go.mod the path
below a `src/` folder (GOPATH layout). Any other import is external
(`<external>::net/http`, members `<external>::net/http.Client.Do`).

IMPORTS run from a file to the files of the imported package that define what
it uses of it (`util.Get` -> the file of `Get`; a blank import -> the files with
`init`), or to the external package.

qualified_name: `<import path>.<local>` (`example.com/app/util.Store.Get`); a
file's module symbol is named by its package's import path (`_test` appended
for an external test package).

Methods are `Type.Method` and belong to the type wherever they are declared;
CONTAINS runs from the type when the type is in the same file, otherwise from
the file's module symbol, because edges are owned by the file of their source.

Calls: receivers (`self`), params, locals and fields with evident types
(declared, `&T{}` / `T{}` literals, `new(T)`, declared results of calls, type
assertions, elements of `[]T` values: `local-type`), methods promoted through
embedded types (`inheritance`). A value returned by an external call is
external: calls on it stay unresolved, never `unique-name`.
Interface method calls resolve to the interface's method and fan out
(`dispatch`) to the methods of every repository type whose method set has all
of the interface's methods. That test is name-based: names and arities
(parameter and result counts) must match, types are not compared, pointer and
value receivers are not told apart. IMPLEMENTS edges use the same test, and
only for interfaces whose whole method set is in the repository. Build
constraints are not evaluated: the files of every GOOS/GOARCH belong to the
package. Conversions `T(x)` are not calls: they count as builtin call sites and
leave a REFERENCES edge to the type.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.static import (
    TYPE_KINDS,
    FileIndex,
    StaticProject,
)
from codeimpact.indexer.lang.go.entrypoints import TABLE as ENTRY_POINTS
from codeimpact.indexer.lang.go.syntax import BUILTIN_FUNCS, BUILTIN_TYPES
from codeimpact.indexer.resolved import external_uid, strip_dup

_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.M)
_VERSION_ELEM = re.compile(r"^v\d+$")
_BUILTIN_VALUES = frozenset({"nil", "true", "false", "iota"})
_BUILTINS = BUILTIN_FUNCS | BUILTIN_TYPES | _BUILTIN_VALUES

# Method names so widespread that "the only repository method with this name" says nothing.
_COMMON_METHODS = frozenset(
    """String Error Close Read Write Len Less Swap Get Set Add Run Do Next Value Key Err Done Lock
    Unlock RLock RUnlock Reset Init Start Stop Wait Open Name Type Kind Size Bytes Copy Delete
    Update List Load Store Send Recv Flush Sync Seek Stat Apply Call Exec Query Scan Parse Format
    Marshal Unmarshal MarshalJSON UnmarshalJSON MarshalText UnmarshalText Validate Encode Decode
    Handle ServeHTTP Execute Context Header WriteString ReadFrom WriteTo Print Printf Println
    Sprintf Errorf Fatal Fatalf Log Logf Info Infof Debug Debugf Warn Warnf Helper Cleanup Skip
    Equal Contains Index Join Split Trim Has Remove Push Pop Clone Int Bool Float64 Int64 Uint64
    Float String Unwrap Is As Fprintf Fields Values Keys Path Base Dir Abs Now Since Sleep
    Background WithValue WithCancel Cancel Deadline Fail FailNow Parallel""".split()
)


def module_paths(configs: dict[str, str]) -> list[tuple[str, str]]:
    """(folder of the go.mod, module path), deepest folder first."""
    out = []
    for path, text in configs.items():
        p = PurePosixPath(path)
        if p.name != "go.mod":
            continue
        m = _MODULE_LINE.search(text)
        if m:
            folder = str(p.parent)
            out.append(("" if folder == "." else folder, m.group(1)))
    out.sort(key=lambda t: -len(t[0]))
    return out


def external_package_name(path: str) -> str:
    """The name an import binds when the package is not ours, guessed from its path.

    `gopkg.in/yaml.v3` -> yaml, `github.com/x/y/v2` -> y, `github.com/mattn/go-isatty` -> isatty.
    """
    parts = path.split("/")
    last = parts[-1]
    if _VERSION_ELEM.match(last) and len(parts) > 1:
        last = parts[-2]
    last = re.sub(r"\.v\d+$", "", last)
    if last.startswith("go-"):
        last = last[3:]
    if last.endswith("-go"):
        last = last[:-3]
    return last.replace("-", "_").replace(".", "_")


class GoProject(StaticProject):
    language = "go"
    common_methods = _COMMON_METHODS
    entry_table = ENTRY_POINTS

    def __init__(self, files: dict[str, FileFacts], is_test_path, configs=None):
        super().__init__(files, is_test_path, configs)
        self.modules = module_paths(self.configs)
        self.pkg_of: dict[str, tuple[str, str]] = {}
        self.pkg_files: dict[tuple[str, str], list[str]] = {}
        folder_pkgs: dict[str, dict[str, list[str]]] = {}
        for path, fi in self.files.items():
            folder = str(PurePosixPath(path).parent)
            folder = "" if folder == "." else folder
            key = (folder, fi.extra.get("package", ""))
            self.pkg_of[path] = key
            self.pkg_files.setdefault(key, []).append(path)
            folder_pkgs.setdefault(folder, {}).setdefault(key[1], []).append(path)
        self.import_path: dict[tuple[str, str], str] = {}
        self.by_import: dict[str, tuple[str, str]] = {}
        for folder, pkgs in folder_pkgs.items():
            ip = self._folder_import_path(folder)
            main = self._main_package(folder, pkgs)
            for name in pkgs:
                self.import_path[(folder, name)] = ip if name == main else f"{ip}_test"
            if main is not None:
                self.by_import.setdefault(ip, (folder, main))
        # package scope: name -> definitions, from every file of the package
        self.scope_names: dict[tuple[str, str], dict[str, list[tuple[str, str]]]] = {}
        for path, fi in self.files.items():
            names = self.scope_names.setdefault(self.pkg_of[path], {})
            for s in fi.facts.symbols:
                if s.local and "." not in s.local and "#" not in s.local:
                    names.setdefault(s.name, []).append((path, s.local))
        for path, fi in self.files.items():
            for s in fi.facts.symbols:
                if "." not in s.local:
                    continue
                parent = fi.parent[s.local]
                ps = fi.syms.get(parent)
                if ps is not None and ps.kind in TYPE_KINDS:
                    self.add_member((path, parent), s.name, (path, s.local))
                elif s.kind == "method":  # receiver type declared in another file
                    owner = self.pkg_type(self.pkg_of[path], parent)
                    if owner is not None:
                        self.add_member(owner, s.name, (path, s.local))
        self.index_owners()
        self._imports: dict[str, tuple[dict, list]] = {}
        self._bound_names: dict[str, dict[str, str]] = {}  # path -> import path -> bound name
        self._impl: dict[tuple[str, str], list[tuple[str, str]]] | None = None
        self._impl_by: dict[tuple[str, str], list[tuple[str, str]]] = {}

    # ------------------------------------------------------------------ packages
    def _folder_import_path(self, folder: str) -> str:
        parts = folder.split("/") if folder else []
        if "vendor" in parts:
            i = len(parts) - 1 - parts[::-1].index("vendor")
            return "/".join(parts[i + 1 :])
        for moddir, modpath in self.modules:
            if moddir == "" or folder == moddir or folder.startswith(moddir + "/"):
                rest = folder[len(moddir) :].lstrip("/")
                return f"{modpath}/{rest}" if rest else modpath
        if "src" in parts:
            i = len(parts) - 1 - parts[::-1].index("src")
            return "/".join(parts[i + 1 :])
        return folder

    def _main_package(self, folder: str, pkgs: dict[str, list[str]]) -> str | None:
        """The package an import of this folder means: not an external test package."""
        names = [n for n in pkgs if not n.endswith("_test")] or list(pkgs)
        last = folder.rpartition("/")[2]

        def weight(n):
            return (sum(not p.endswith("_test.go") for p in pkgs[n]), n == last, n)

        return max(names, key=weight) if names else None

    def pkg_type(self, key, name: str) -> tuple[str, str] | None:
        for p, local in self.scope_names.get(key, {}).get(name, ()):
            if self.files[p].syms[local].kind in TYPE_KINDS:
                return (p, local)
        return None

    def file_imports(self, fi: FileIndex) -> tuple[dict, list]:
        """(bound name -> package entity, [dot-imported package entities]) of one file."""
        hit = self._imports.get(fi.path)
        if hit is not None:
            return hit
        bound: dict = {}
        dots: list = []
        for imp in fi.facts.imports:
            key = self.by_import.get(imp.module)
            ent = ("pkg", key) if key is not None else ("xpkg", imp.module)
            if imp.alias == ".":
                dots.append(ent)
            elif imp.alias == "_":
                continue
            elif imp.alias:
                bound[imp.alias] = ent
            else:
                name = key[1] if key is not None else external_package_name(imp.module)
                bound[name] = ent
            if imp.alias not in (".", "_"):
                self._bound_names.setdefault(fi.path, {})[imp.module] = imp.alias or name
        self._imports[fi.path] = (bound, dots)
        return bound, dots

    # ------------------------------------------------------------------ hooks
    def qualified(self, fi: FileIndex, local: str) -> str:
        ip = self.import_path.get(self.pkg_of[fi.path], "")
        if not local:
            return ip
        return f"{ip}.{strip_dup(local)}" if ip else strip_dup(local)

    def module_symbol_name(self, fi: FileIndex) -> str:
        return PurePosixPath(fi.path).stem

    def container(self, fi: FileIndex, local: str) -> str:
        parent = fi.parent.get(local, "")
        return parent if parent in fi.syms else ""

    def type_scope(self, fi: FileIndex, local: str) -> str:
        return self.container(fi, local)

    def receiver(self, fi: FileIndex, scope: str):
        owner = self.pkg_type(self.pkg_of[fi.path], scope.partition(".")[0])
        key = self.canonical(owner) if owner is not None else None
        if key is None or key[0] == "x":
            return None
        return ("inst", *key), "self"

    def lookup_head(self, fi, scope, name, line, mode, depth):
        if scope:
            entry = self.scoped_entry(fi, scope, name, line)
            if entry is not None:
                return self.local_value(fi, scope, entry, depth)
            if fi.extra.get("recv", {}).get(scope) == name:
                return self.receiver(fi, scope)
            local = self._local_type(fi, scope, name)
            if local is not None:
                return ("sym", fi.path, local), "scope"
        defs = self.scope_names.get(self.pkg_of[fi.path], {}).get(name)
        if defs:
            return ("sym", *defs[0]), "scope"
        bound, dots = self.file_imports(fi)
        if name in bound:
            return bound[name], "import"
        for ent in dots:
            if ent[0] == "pkg":
                defs = self.scope_names.get(ent[1], {}).get(name)
                if defs:
                    return ("sym", *defs[0]), "import"
        if name in _BUILTINS:
            return ("builtin", name), "scope"
        external = [e for e in dots if e[0] == "xpkg"]
        if len(external) == 1:  # the only place left that can define it
            return ("xsym", f"{external[0][1]}.{name}"), "import"
        return None

    @staticmethod
    def _local_type(fi: FileIndex, scope: str, name: str) -> str | None:
        """A type `name` declared inside a function around `scope` (innermost first)."""
        for s in fi.outward(scope):
            local = f"{s}.{name}"
            if s and local in fi.syms and fi.syms[local].kind in TYPE_KINDS:
                return local
        return None

    def _is_tparam(self, fi: FileIndex, scope: str, name: str) -> bool:
        tparams = fi.extra.get("tparams", {})
        s = scope
        while True:
            if name in tparams.get(s, ()):
                return True
            if not s:
                return False
            s = fi.parent.get(s, s.rpartition(".")[0])

    def resolve_type(self, fi, scope, chain, depth=0):
        key = ("type", fi.path, scope, chain)
        table = self.memo.table
        if key in table:
            return table[key]
        r = self._resolve_type(fi, scope, chain)
        table[key] = r
        return r

    def _resolve_type(self, fi, scope, chain):
        head, _, rest = chain.partition(".")
        if rest:
            bound, _dots = self.file_imports(fi)
            ent = bound.get(head)
            if ent is None:
                return None
            if ent[0] == "xpkg":
                return ("xsym", f"{ent[1]}.{rest}"), "import"
            t = self.pkg_type(ent[1], rest)
            return (("sym", *t), "import") if t is not None else None
        if self._is_tparam(fi, scope, head):
            return None
        local = self._local_type(fi, scope, head)
        if local is not None:
            return ("sym", fi.path, local), "scope"
        t = self.pkg_type(self.pkg_of[fi.path], head)
        if t is not None:
            return ("sym", *t), "scope"
        if head in BUILTIN_TYPES:
            return ("builtin", head), "scope"
        _bound, dots = self.file_imports(fi)
        for ent in dots:
            if ent[0] == "pkg":
                t = self.pkg_type(ent[1], head)
                if t is not None:
                    return ("sym", *t), "import"
        external = [e for e in dots if e[0] == "xpkg"]
        if len(external) == 1:
            return ("xsym", f"{external[0][1]}.{head}"), "import"
        return None

    def canonical(self, tkey, depth=0):
        """Follow `type A = B` to B; ("x", dotted) when B is external, None when builtin."""
        table = self.memo.table
        key = ("canonical", tkey)
        if key in table:
            return table[key]
        table[key] = tkey  # a cycle of aliases ends here
        fi = self.files[tkey[0]]
        target = fi.extra.get("aliases", {}).get(tkey[1])
        res = tkey
        if target and depth < 16:
            r = self.resolve_type(fi, self.container(fi, tkey[1]), target)
            if r is None or r[0][0] == "builtin":
                res = None
            elif r[0][0] == "xsym":
                res = ("x", r[0][1])
            elif r[0][0] == "sym":
                res = self.canonical((r[0][1], r[0][2]), depth + 1)
        table[key] = res
        return res

    def attr_pkg(self, ent, name, call, reason):
        defs = self.scope_names.get(ent[1], {}).get(name)
        return (("sym", *defs[0]), reason) if defs else None

    def supertypes(self, tkey):
        fi = self.files[tkey[0]]
        out = []
        for h in fi.facts.heritage:
            if h.scope == tkey[1]:
                r = self.resolve_type(fi, self.container(fi, h.scope), h.base)
                if r is not None:
                    out.append((r[0], "extends", h.line))
        return tuple(out)

    def type_call(self, fi, src, ent, reason, call, edges, out):
        out.calls_builtin += 1
        dst = f"{ent[1]}::{ent[2]}"
        if dst != src:
            edges.add("REFERENCES", src, dst, reason, call.line)

    def import_edges(self, fi, edges: Edges) -> None:
        """module -> the files of the imported package that define what this file uses of it.

        Keyed by the names written here (`util.Get` -> the file defining `Get`), so an
        incremental run that changes which file defines a name re-resolves this file.
        A blank import uses the package's `init` functions.
        """
        src = f"{fi.path}::"
        self.file_imports(fi)
        used = self._used_members(fi)
        by_module = self._bound_names.get(fi.path, {})
        for imp in fi.facts.imports:
            key = self.by_import.get(imp.module)
            if key is None:
                edges.add("IMPORTS", src, external_uid(imp.module), "import", imp.line)
                continue
            if imp.alias == "_":
                names = {"init"}
            elif imp.alias == ".":
                names = used.get("", set())
            else:
                names = used.get(by_module.get(imp.module, ""), set())
            scope = self.scope_names.get(key, {})
            targets = {p for n in names for p, _l in scope.get(n, ()) if p != fi.path}
            if imp.alias == "_":
                targets = {
                    p for p in self.pkg_files[key] if "init" in self.files[p].syms and p != fi.path
                }
            for p in sorted(targets):
                if not p.endswith("_test.go") or self.is_test_path(fi.path):
                    edges.add("IMPORTS", src, f"{p}::", "import", imp.line)

    @staticmethod
    def _used_members(fi) -> dict[str, set[str]]:
        """head -> the names used after it (`util.Get()` -> util: {Get}); "" -> the heads."""
        f = fi.facts
        chains = [c.callee for c in f.calls]
        chains += [r.target for r in f.references]
        chains += [b.value for b in f.bindings]
        chains += [a for c in f.calls for _k, a in c.args]
        out: dict[str, set[str]] = {"": set()}
        for ch in chains:
            parts = ch.split(".", 2)
            head = parts[0].rstrip("()[]{}")
            out[""].add(head)
            if len(parts) > 1:
                out.setdefault(head, set()).add(parts[1].rstrip("()[]{}"))
        return out

    def module_names(self) -> dict[str, str]:
        """path -> what its resolution depends on that no name written in it says.

        The package's import path, a digest of the structural interface table (IMPLEMENTS
        edges and dispatch targets follow from method sets anywhere in the repository) and
        one of the embedding hierarchy: a change of either re-resolves every Go file.
        """
        impl = self._implementations()
        h = hashlib.sha256()
        for iface in sorted(impl):
            h.update(repr((iface, sorted(impl[iface]))).encode())
        digest = f"{h.hexdigest()[:16]}|{self.hierarchy_digest()}"
        return {
            p: f"{self.import_path.get(self.pkg_of[p], '')}|{self.pkg_of[p][1]}|{digest}"
            for p in self.files
        }

    # ------------------------------------------------------------------ interfaces
    def method_names(self, tkey, _seen=None) -> frozenset | None:
        """(name, arity) of a type's method set, promoted ones included; None if partly unknown.

        Only an interface's set can be unknown (it embeds an external interface); a struct
        that embeds an external type has at least the names we see, which is all the
        implementation test needs.
        """
        table = self.memo.table
        key = ("method set", tkey)
        if key in table:
            return table[key]
        seen = _seen or set()
        seen.add(tkey)
        is_iface = self.sym(tkey).kind == "interface"
        names = {
            (n, tuple(self.files[t[0]].extra.get("arity", {}).get(t[1], ())))
            for n, ts in self.members.get(tkey, {}).items()
            for t in ts
            if self.sym(t).kind == "method"
        }
        unknown = False
        for s, _k, _l in self.super_keys(tkey):
            if s[0] == "x" or s in seen:
                unknown = unknown or s[0] == "x"
                continue
            sub = self.method_names(s, seen)
            if sub is None:
                unknown = True
            else:
                names |= sub
        res = None if unknown and is_iface else frozenset(names)
        table[key] = res
        return res

    def _implementations(self) -> dict:
        if self._impl is not None:
            return self._impl
        ifaces, concrete = [], []
        for path, fi in self.files.items():
            for s in fi.facts.symbols:
                if s.kind == "interface":
                    ifaces.append((path, s.local))
                elif s.kind in TYPE_KINDS and self.canonical((path, s.local)) == (path, s.local):
                    concrete.append((path, s.local))
        by_name: dict[str, list] = {}
        for t in concrete:
            for n in self.method_names(t) or ():
                by_name.setdefault(n, []).append(t)
        self._impl = {}
        for iface in ifaces:
            names = self.method_names(iface)
            if not names:
                continue
            rarest = min(names, key=lambda n: len(by_name.get(n, ())))
            impls = [t for t in by_name.get(rarest, ()) if names <= self.method_names(t)]
            self._impl[iface] = impls
            for t in impls:
                self._impl_by.setdefault(t, []).append(iface)
        return self._impl

    def overrides(self, target, owner, receiver):
        # the implementations of the receiver's interface (of the embedded interface that
        # declares the method, when a struct promotes it)
        iface = next(
            (t for t in (receiver, owner) if t is not None and self.sym(t).kind == "interface"),
            None,
        )
        if iface is None:
            return []
        name = self.sym(target).name
        out = []
        for t in self._implementations().get(iface, ()):
            found = self.find_member(t, name, "method")
            if found is not None:
                out.extend(x for x in found.targets if x != target)
        return out

    def extra_edges(self, fi, edges: Edges) -> None:
        """A type IMPLEMENTS each interface whose method set it has (names and arities)."""
        self._implementations()
        for s in fi.facts.symbols:
            for iface in self._impl_by.get((fi.path, s.local), ()):
                edges.add("IMPLEMENTS", f"{fi.path}::{s.local}", f"{iface[0]}::{iface[1]}",
                          "dispatch", s.start_line)  # fmt: skip
