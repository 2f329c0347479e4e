"""Rust crates and their module trees: which file is which module of which crate.

Crates come from each `Cargo.toml` (`[package] name`, `[lib] name/path`,
`[[bin]]`, and Cargo's layout: `src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
`tests/*.rs`, `examples/*.rs`, `benches/*.rs`, `build.rs`); a `lib.rs` or
`main.rs` with no manifest is a crate root too. The tree follows `mod x;`
declarations: `x.rs` or `x/mod.rs` beside a crate root or a `mod.rs`, `a/x.rs`
under a non-mod-rs `a.rs`, inline `mod m { mod x; }` adding `m/`, and
`#[path = "..."]`. A file that no declaration reaches is placed by its folders
under the nearest `src/`, in the crate of the nearest manifest above it.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from codeimpact.indexer.lang.api import FileFacts

try:  # Python 3.11+
    import tomllib
except ImportError:  # pragma: no cover - 3.10
    tomllib = None


@dataclass
class ModuleInfo:
    """Where a file sits: its crate, its module path in that crate, how it was declared."""

    crate: str = "crate"
    root: str = ""  # the crate root file ("" when unknown)
    segs: tuple = ()  # module path below the crate root
    mod_rs: bool = True  # children live beside it (crate roots, mod.rs, #[path] files)
    is_test: bool = False  # declared under #[cfg(test)], or an inner #![cfg(test)]
    parent: tuple | None = None  # (path, scope) of its `mod` declaration
    placed: bool = False
    mods: dict[str, dict[str, str]] = field(default_factory=dict)  # scope -> name -> child file


@dataclass
class ModuleTree:
    modules: dict[str, ModuleInfo]  # path -> where it sits
    libs: dict[str, str]  # library crate name -> its root file


def crate_ident(name: str) -> str:
    return name.replace("-", "_")


def module_tree(files: dict[str, FileFacts], configs: dict[str, str]) -> ModuleTree:
    """Crate roots from the manifests, then the module tree from `mod` declarations."""
    mods = {p: ModuleInfo() for p in files}
    roots: list[tuple[str, str]] = []  # (root file, crate name)
    libs: dict[str, str] = {}
    lib_of_dir: dict[str, str] = {}
    for cfg_path, text in sorted(configs.items()):
        if posixpath.basename(cfg_path) == "Cargo.toml":
            _package_roots(posixpath.dirname(cfg_path), _manifest(text), files, roots, libs,
                           lib_of_dir)  # fmt: skip
    for root, crate in roots:
        _place_tree(files, mods, root, crate)
    for p in files:  # manifest-less crate roots
        if not mods[p].placed and posixpath.basename(p) in ("lib.rs", "main.rs"):
            _place_tree(files, mods, p, _nearest_crate(p, lib_of_dir))
    for p in files:
        if not mods[p].placed:
            _place_orphan(files, mods[p], p, _nearest_crate(p, lib_of_dir), libs)
    return ModuleTree(mods, libs)


def _package_roots(d, man, files, roots, libs, lib_of_dir) -> None:
    pkg = man.get("package") if isinstance(man.get("package"), dict) else None
    if pkg is None or not isinstance(pkg.get("name"), str):
        return  # a virtual workspace manifest: its members have their own
    name = crate_ident(pkg["name"])
    lib = man.get("lib") if isinstance(man.get("lib"), dict) else {}
    lib_name = crate_ident(lib.get("name") or name)
    lib_path = posixpath.normpath(posixpath.join(d, lib.get("path") or "src/lib.rs"))
    lib_of_dir[d] = lib_name
    if lib_path in files:
        roots.append((lib_path, lib_name))
        libs.setdefault(lib_name, lib_path)
    for b in man.get("bin") or []:
        if isinstance(b, dict) and isinstance(b.get("path"), str):
            p = posixpath.normpath(posixpath.join(d, b["path"]))
            if p in files:
                roots.append((p, crate_ident(b.get("name") or name)))
    main = posixpath.join(d, "src/main.rs")
    if main in files:
        roots.append((main, name))
    for p in files:
        if d and not p.startswith(d + "/"):
            continue
        crate = _target_crate(p[len(d) + 1 :] if d else p)
        if crate:
            roots.append((p, crate))


def _place_tree(files, mods: dict[str, ModuleInfo], root: str, crate: str) -> None:
    info = mods[root]
    if info.placed:
        return
    info.placed, info.crate, info.root, info.segs, info.mod_rs = True, crate, root, (), True
    info.is_test = bool(files[root].extra.get("file_test"))
    stack = [root]
    while stack:
        cur = stack.pop()
        ci = mods[cur]
        test_scopes = {s.local for s in files[cur].symbols if s.is_test}
        for scope, name, _line, path_attr, decl_test in files[cur].extra.get("mods", ()):
            child = _child_file(cur, ci.mod_rs, scope, name, path_attr, files)
            if child is None:
                continue
            ci.mods.setdefault(scope, {})[name] = child
            cf = mods[child]
            if cf.placed:
                continue
            inline = _inline_names(scope)
            cf.placed, cf.crate, cf.root = True, ci.crate, ci.root
            cf.segs = ci.segs + tuple(inline) + (name,)
            cf.mod_rs = bool(path_attr) or posixpath.basename(child) == "mod.rs"
            cf.is_test = (
                ci.is_test
                or decl_test
                or any(s in test_scopes for s in _ancestors(scope))
                or bool(files[child].extra.get("file_test"))
            )
            cf.parent = (cur, scope)
            stack.append(child)


def _child_file(cur: str, mod_rs: bool, scope: str, name: str, path_attr: str, files):
    here = posixpath.dirname(cur)
    base = here if mod_rs else posixpath.join(here, _stem(cur))
    inline = _inline_names(scope)
    base = posixpath.join(base, *inline) if inline else base
    if path_attr:
        start = here if not scope else base
        cands = [posixpath.normpath(posixpath.join(start, path_attr))]
    else:
        cands = [posixpath.join(base, f"{name}.rs"), posixpath.join(base, name, "mod.rs")]
    return next((c for c in cands if c in files), None)


def _place_orphan(files, info: ModuleInfo, path: str, crate: str, libs) -> None:
    parts = path.split("/")
    rest = parts
    if "src" in parts[:-1]:
        i = len(parts) - 1 - parts[::-1].index("src")
        rest = parts[i + 1 :]
    segs = [*rest[:-1], _stem(path)]
    if segs[-1] == "mod":
        segs.pop()
    info.placed, info.crate, info.root, info.segs = True, crate, libs.get(crate, ""), tuple(segs)
    info.mod_rs = posixpath.basename(path) == "mod.rs"
    info.is_test = bool(files[path].extra.get("file_test"))


def _nearest_crate(path: str, lib_of_dir: dict[str, str]) -> str:
    d = posixpath.dirname(path)
    while True:
        if d in lib_of_dir:
            return lib_of_dir[d]
        if not d:
            break
        d = posixpath.dirname(d)
    parts = path.split("/")
    if "src" in parts[:-1]:
        i = len(parts) - 1 - parts[::-1].index("src")
        if i > 0:
            return crate_ident(parts[i - 1])
    return "crate"


def _target_crate(rel: str) -> str | None:
    """The crate name of a Cargo auto-discovered target root (package-relative path)."""
    parts = rel.split("/")
    if parts[0] in ("tests", "examples", "benches"):
        parts = ["src", "bin", *parts[1:]]
    if parts[:2] != ["src", "bin"]:
        return "build_script_build" if rel == "build.rs" else None
    if len(parts) == 3 and parts[2].endswith(".rs"):
        return crate_ident(parts[2][:-3])
    if len(parts) == 4 and parts[3] == "main.rs":
        return crate_ident(parts[2])
    return None


def _manifest(text: str) -> dict:
    if tomllib is not None:
        try:
            return tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError):
            pass
    # a minimal reader for a manifest tomllib refuses (or no tomllib): headers, name/path keys
    out: dict = {}
    section: dict = out
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        m = re.fullmatch(r"\[\[?([\w.-]+)\]\]?", line)
        if m:
            section = {}
            if line.startswith("[["):
                out.setdefault(m.group(1), []).append(section)
            else:
                out[m.group(1)] = section
            continue
        m = re.fullmatch(r"(name|path)\s*=\s*\"([^\"]*)\"", line)
        if m:
            section[m.group(1)] = m.group(2)
    return out


def _inline_names(scope: str) -> list[str]:
    """The inline modules a `mod x;` is written in (`a.b` -> [a, b], `#2` suffixes dropped)."""
    return [p.split("#", 1)[0] for p in scope.split(".")] if scope else []


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def _ancestors(local: str):
    while local:
        yield local
        local = local.rpartition(".")[0]
