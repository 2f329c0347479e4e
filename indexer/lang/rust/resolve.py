"""Rust name resolution across files: `use` paths, impls, traits and typed receivers.

The crates and module tree come from crates.py.

qualified_name is `<crate>::<module path>::<item>` with the crate's own name
(`regex_syntax::ast::parse::Parser::new`); methods are named after the type
they are implemented for, wherever the impl block is. External paths keep
Rust's separators: `<external>::serde::Serialize`.

Names are looked up as Rust does: items, `use`s and globs of the enclosing
function bodies, then the enclosing module (never its parent), then the
crates of the project and the external/std ones, then the prelude (builtin).
Privacy is not checked: code that compiles only names what it may see.
Receivers are typed by `self`, declared parameter, `let` and field types,
struct literals and the declared return types of the functions called; `?`
and `unwrap` open `Option`/`Result`. A call of a trait method (through
`dyn Trait`, `impl Trait`, a bounded generic or `Self` in a default method)
points at the trait's declaration and fans out to every implementation
(`dispatch`). Every edge names its rule (engine/rules.py); a chain takes
its weakest.

Call sites that are counted as builtin: prelude constructors and types
(`Some`, `Ok`, `Vec::new`, `Box::new`), standard macros, and methods of
standard traits and types on receivers that are not repository types or that
a repository type gets by derive (`clone`, `len`, `iter`, ...). Other macros
(`log::info!`, a crate's own `macro_rules!`) are unresolved sites named
`name!`: what they expand to is not seen.

Edge ownership: a file owns the edges its facts produce. That is the edges
that start at its symbols, and also those of its impl blocks: CONTAINS
(type -> method) and IMPLEMENTS (type -> trait) come from the file with the
impl, even when the type is defined in another file. So editing an impl
re-resolves only its own file, and the impl's header names (recorded as
ReferenceFacts of kind "impl", which make no edge) tie it to the type's file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codeimpact.indexer.lang.api import FileFacts, ImportFact, SymbolFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.project import Project, unique_definition
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.rust.crates import module_tree
from codeimpact.indexer.lang.rust.extract import EXPR_MACROS, MACROS, words
from codeimpact.indexer.resolved import ResolvedFile, Unresolved, external_uid, strip_dup

_STD_CRATES = words("std core alloc proc_macro test")
PRIMITIVES = words("bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 ! ()")
# The prelude and the primitive types: names that need no `use`.
PRELUDE = PRIMITIVES | words(
    """Some None Ok Err Option Result Box Vec String ToString ToOwned Clone Copy Default Drop
    Eq PartialEq Ord PartialOrd Fn FnMut FnOnce From Into TryFrom TryInto AsRef AsMut
    Iterator IntoIterator DoubleEndedIterator ExactSizeIterator Extend FromIterator Send Sync
    Sized Unpin drop Self"""
)
STD_MACROS = EXPR_MACROS | words(
    """concat stringify include include_str include_bytes env option_env cfg file line column
    module_path compile_error thread_local try concat_idents is_x86_feature_detected
    const_format_args global_asm asm addr_of addr_of_mut"""
)
# Methods of standard types and traits: on a receiver we cannot type, or on a repository
# type that does not define them (derive, blanket impls), they are no evidence of a call
# into the repository.
STD_METHODS = words(
    """default clone clone_from to_owned to_string into from try_into try_from as_ref as_mut
    borrow borrow_mut deref deref_mut drop eq ne cmp partial_cmp lt le gt ge max min clamp hash
    fmt write_str write_fmt write_char write_all flush read read_to_string read_exact
    read_to_end read_line lines bytes chars char_indices len is_empty iter iter_mut into_iter
    next next_back map map_err map_or map_or_else and_then or_else ok ok_or ok_or_else err
    unwrap unwrap_or unwrap_or_else unwrap_or_default expect expect_err unwrap_err
    unwrap_unchecked is_some is_none is_ok is_err is_some_and is_ok_and as_deref as_deref_mut
    take replace get get_mut get_or_insert get_or_insert_with insert remove contains
    contains_key push push_str pop extend append clear truncate retain drain split_off
    sort sort_by sort_by_key sort_unstable sort_unstable_by sort_unstable_by_key dedup
    reverse first last first_mut last_mut split_at split_first split_last chunks windows
    join concat starts_with ends_with find rfind split splitn rsplit rsplitn trim trim_start
    trim_end trim_matches strip_prefix strip_suffix parse to_lowercase to_uppercase
    to_ascii_lowercase to_ascii_uppercase eq_ignore_ascii_case is_ascii as_str as_bytes
    as_slice as_mut_slice as_ptr as_mut_ptr to_vec into_boxed_slice capacity reserve
    with_capacity shrink_to_fit resize filter filter_map flat_map flatten fold for_each
    try_for_each try_fold collect count sum product any all position rposition enumerate zip
    chain cloned copied rev skip skip_while take_while step_by peekable peek fuse inspect
    last nth min_by max_by min_by_key max_by_key partition unzip cycle entry or_insert
    or_insert_with or_default and_modify keys values values_mut key value lock try_lock
    read write send recv try_recv spawn await poll as_mut_ptr swap checked_add checked_sub
    checked_mul checked_div saturating_add saturating_sub wrapping_add wrapping_sub
    wrapping_mul overflowing_add pow abs signum is_positive is_negative to_le_bytes
    to_be_bytes from_le_bytes from_be_bytes leading_zeros trailing_zeros count_ones
    is_alphabetic is_alphanumeric is_numeric is_whitespace is_digit to_digit is_ascii_digit
    is_ascii_alphabetic is_ascii_whitespace encode_utf8 len_utf8 as_os_str to_str
    to_string_lossy display exists is_file is_dir file_name extension parent join_path
    unwrap_or_else_default type_id by_ref copy_from_slice fill binary_search get_unchecked
    set replace_range into_inner inner inner_mut into_owned is_borrowed is_owned upgrade
    downgrade strong_count finish debug_struct debug_tuple debug_list debug_map field
    entries alternate pad write_vectored path metadata as_raw_fd into_raw_fd from_raw_fd
    as_raw_socket sync_all sync_data set_len try_clone local_addr peer_addr set_nonblocking
    shutdown set_permissions canonicalize to_path_buf as_path file_stem"""
)
# Prelude traits by their std path: what `impl Default for S` implements. (Only heritage
# uses these; a call of a prelude trait's method stays a builtin call.)
_PRELUDE_TRAITS = {
    name: f"std::{module}::{name}"
    for module, names in (
        ("clone", "Clone"),
        ("default", "Default"),
        ("ops", "Drop Fn FnMut FnOnce"),
        ("cmp", "PartialEq Eq PartialOrd Ord"),
        ("convert", "From Into TryFrom TryInto AsRef AsMut"),
        ("marker", "Copy Send Sync Sized Unpin"),
        ("iter", "Iterator IntoIterator DoubleEndedIterator ExactSizeIterator Extend FromIterator"),
        ("string", "ToString"),
        ("borrow", "ToOwned"),
    )
    for name in names.split()
}
_UNWRAP = words("unwrap expect unwrap_or unwrap_or_else unwrap_or_default unwrap_unchecked")
# Methods that hand back the receiver's own type (or the pointee through a smart pointer).
_SAME = words("clone borrow borrow_mut as_ref as_mut deref deref_mut to_owned by_ref")
_LOCKS = words("lock try_lock")

_PATH = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_CHAIN_TOKEN = re.compile(r"::|\.|\(\)|\[\]|\?|[^:.()?\[\]]+")
# Container methods that hand out an element (wrapped: they may find none).
_ELEMENT = words("get get_mut first first_mut last last_mut pop pop_front pop_back front back peek")

Entity = tuple  # see module docstring of the entity kinds in _entities_doc
_entities_doc = """
  ("mod", path, local)            a module: a file ("") or an inline `mod`
  ("sym", path, local)            a definition in the repository
  ("variant", path, enum, name)   an enum variant
  ("many", ((path, local), ...))  several methods of that name (several impls)
  ("ext", "serde::Serialize")     outside the repository
  ("builtin", name)               the prelude, primitives, std methods
Values (what an expression evaluates to):
  ("inst", path, local)           a value of a repository struct/enum/union
  ("dyn", ((path, trait), ...))   a value known by the repository traits it implements
  ("ext", dotted) / ("builtin", name) / ("wrap", value or None)  Option/Result of a value
  ("seq", value or None)          a container of values (Vec, slice, map values)
"""

_TYPE_KINDS = ("struct", "enum", "trait", "type_alias")
_MAX_DEPTH = 24


def _head(local: str) -> str:
    return local.rpartition(".")[0]


@dataclass
class _Impl:
    path: str
    index: int
    scope: str
    self_path: str
    trait_path: str
    prefix: str
    line: int
    methods: dict[str, list[str]] = field(default_factory=dict)  # name -> locals
    type_key: tuple | None = None  # (path, local) of the self type in the repository
    trait: Entity | None = None  # ("sym", path, trait) or ("ext", ...)
    reason: str = "scope"


@dataclass
class _Scope:
    items: dict[str, str] = field(default_factory=dict)  # name -> local
    uses: dict[str, list[ImportFact]] = field(default_factory=dict)
    globs: list[ImportFact] = field(default_factory=list)
    mods: dict[str, str] = field(default_factory=dict)  # `mod x;` -> file path


@dataclass
class _File:
    path: str
    facts: FileFacts
    crate: str = "crate"
    root: str = ""  # the crate root file
    segs: tuple = ()
    is_test: bool = False
    parent: tuple | None = None  # (path, local) of the declaring module
    syms: dict[str, SymbolFact] = field(default_factory=dict)
    scopes: dict[str, _Scope] = field(default_factory=dict)
    impl_of: dict[str, int] = field(default_factory=dict)  # method local -> impl index
    params: dict[str, dict[str, str]] = field(default_factory=dict)
    bindings: dict[str, dict[str, list]] = field(default_factory=dict)

    def scope(self, local: str) -> _Scope:
        s = self.scopes.get(local)
        if s is None:
            s = self.scopes[local] = _Scope()
        return s


class RustProject(Project):
    """Resolution context for all Rust files of one index."""

    language = "rust"

    def __init__(
        self, files: dict[str, FileFacts], is_test_path, configs: dict[str, str] | None = None
    ):
        super().__init__(is_test_path)
        self.files: dict[str, _File] = {p: _File(p, f) for p, f in sorted(files.items())}
        for fi in self.files.values():
            self._index_file(fi)
        tree = module_tree(files, configs or {})
        self.libs: dict[str, str] = tree.libs  # library crate name -> root file
        for p, fi in self.files.items():
            m = tree.modules[p]
            fi.crate, fi.root, fi.segs, fi.is_test, fi.parent = (
                m.crate,
                m.root,
                m.segs,
                m.is_test,
                m.parent,
            )
            for scope, children in m.mods.items():
                fi.scope(scope).mods.update(children)
        self._impls: dict[tuple[str, int], _Impl] = {}
        self.type_impls: dict[tuple, list[_Impl]] = {}
        self.trait_impls: dict[tuple, list[_Impl]] = {}
        self.methods_by_name: dict[str, list[tuple[str, str]]] = {}
        self._index_impls()
        # `macro_rules!` of the project: calls in their arguments are the caller's
        self.macro_names = {m for fi in self.files.values() for m in fi.bindings.get(MACROS, ())}

    # ------------------------------------------------------------ per-file index
    def _index_file(self, fi: _File) -> None:
        f = fi.facts
        fi.impl_of = dict(f.extra.get("method_impl", {}))
        for s in f.symbols:
            fi.syms[s.local] = s
            if s.kind in ("function", "method"):
                fi.params[s.local] = {n: t for n, t in s.params if n != "_"}
            if s.local and s.local not in fi.impl_of:  # methods are no names of a scope
                fi.scope(_head(s.local)).items.setdefault(s.name, s.local)
        for imp in f.imports:
            sc = fi.scope(imp.scope)
            if imp.name == "*":
                sc.globs.append(imp)
            elif imp.alias != "_":
                sc.uses.setdefault(imp.alias or imp.name, []).append(imp)
        for b in f.bindings:
            fi.bindings.setdefault(b.scope, {}).setdefault(b.name, []).append(b)
        for per in fi.bindings.values():
            for lst in per.values():
                lst.sort(key=lambda b: b.line)

    # ------------------------------------------------------------ impls
    def _index_impls(self) -> None:
        for path, fi in self.files.items():
            impls = fi.facts.extra.get("impls", ())
            for i, (scope, self_path, trait_path, prefix, line, _test) in enumerate(impls):
                self._impls[(path, i)] = _Impl(path, i, scope, self_path, trait_path, prefix, line)
            for local, i in fi.impl_of.items():
                imp = self._impls.get((path, i))
                if imp is not None:
                    imp.methods.setdefault(fi.syms[local].name, []).append(local)
            for local, s in fi.syms.items():
                if s.kind == "method":
                    self.methods_by_name.setdefault(s.name, []).append((path, local))
        for imp in self._impls.values():
            fi = self.files[imp.path]
            reason = "scope"
            if imp.self_path:
                r = self.resolve_path(fi, imp.scope, imp.self_path.split("::"))
                if r is not None:
                    ent, reason = r
                    ent = self._follow_alias(ent)
                    if ent[0] == "sym" and self._kind(ent) in ("struct", "enum", "trait"):
                        imp.type_key = (ent[1], ent[2])
                        self.type_impls.setdefault(imp.type_key, []).append(imp)
            if imp.trait_path:
                r = self.resolve_path(fi, imp.scope, imp.trait_path.split("::"))
                if r is not None:
                    imp.trait, treason = _std_trait(r[0]), r[1]
                    reason = weakest(reason, treason)
                    if imp.trait[0] == "sym" and self._kind(imp.trait) == "trait":
                        self.trait_impls.setdefault((imp.trait[1], imp.trait[2]), []).append(imp)
            imp.reason = reason

    def module_names(self) -> dict[str, str]:
        """path -> its module path (and test flag): what `mod` lines and manifests decide."""
        return {
            p: self.module_qname(fi) + (" [test]" if fi.is_test else "")
            for p, fi in self.files.items()
        }

    # ------------------------------------------------------------ small lookups
    def _kind(self, ent: Entity) -> str | None:
        if ent[0] != "sym":
            return None
        s = self.files[ent[1]].syms.get(ent[2])
        return s.kind if s is not None else None

    def _container(self, fi: _File, local: str) -> str:
        """The lexical scope a definition is written in (an impl's methods: the impl's)."""
        i = fi.impl_of.get(local)
        if i is not None:
            imp = self._impls.get((fi.path, i))
            return imp.scope if imp is not None else _head(local)
        return _head(local)

    def _module_of(self, fi: _File, scope: str) -> str:
        """The local of the innermost module (file "" or inline) around a scope."""
        s = scope
        while s:
            sym = fi.syms.get(s)
            if sym is not None and sym.kind == "module":
                return s
            s = self._container(fi, s)
        return ""

    def _parent_module(self, fi: _File, mlocal: str) -> tuple[_File, str] | None:
        if mlocal:
            return fi, self._module_of(fi, self._container(fi, mlocal))
        if fi.parent is None:
            return None
        p, local = fi.parent
        return self.files[p], self._module_of(self.files[p], local)

    def _impl_around(self, fi: _File, scope: str) -> _Impl | None:
        s = scope
        while s:
            i = fi.impl_of.get(s)
            if i is not None:
                return self._impls.get((fi.path, i))
            s = self._container(fi, s)
        return None

    def _trait_around(self, fi: _File, scope: str) -> str | None:
        s = scope
        while s:
            sym = fi.syms.get(s)
            if sym is not None and sym.kind == "trait":
                return s
            if s in fi.impl_of:
                return None
            s = self._container(fi, s)
        return None

    def _self_type(self, fi: _File, scope: str) -> Entity | None:
        """What `Self` names in a scope: the impl's type, or the trait in a trait's body."""
        imp = self._impl_around(fi, scope)
        if imp is not None:
            return ("sym", *imp.type_key) if imp.type_key else None
        t = self._trait_around(fi, scope)
        return ("sym", fi.path, t) if t is not None else None

    def _follow_alias(self, ent: Entity, depth: int = 0) -> Entity:
        while ent[0] == "sym" and self._kind(ent) == "type_alias" and depth < 8:
            fi = self.files[ent[1]]
            enc = fi.facts.extra.get("alias", {}).get(ent[2], "")
            if not enc or enc.startswith(("?", "dyn ", "[")) or enc in PRIMITIVES:
                return ent
            r = self.resolve_path(fi, self._container(fi, ent[2]), enc.split("::"))
            if r is None or r[0] == ent:
                return ent
            ent = r[0]
            depth += 1
        return ent

    # ------------------------------------------------------------ paths
    def resolve_path(self, fi: _File, scope: str, segs: list[str], depth: int = 0):
        """A path as written in `scope` -> (entity, reason) or None."""
        if depth > _MAX_DEPTH or not segs or not segs[0]:
            return None
        first = segs[0]
        r = self._path_head(fi, scope, first, depth, multi=len(segs) > 1)
        if r is None:
            return None
        ent, reason = r
        for seg in segs[1:]:
            r = self.member(ent, seg, reason, depth + 1)
            if r is None:
                return None
            ent, reason = r
        return ent, reason

    def _path_head(self, fi: _File, scope: str, first: str, depth: int, multi: bool):
        if first == "crate":
            return self._crate_root(fi), "scope"
        if first == "self":
            return ("mod", fi.path, self._module_of(fi, scope)), "scope"
        if first == "super":
            pm = self._parent_module(fi, self._module_of(fi, scope))
            return (("mod", pm[0].path, pm[1]), "scope") if pm else None
        if first == "Self":
            st = self._self_type(fi, scope)
            return (st, "self") if st is not None else None
        gen = self._generic(fi, scope, first)
        if gen is not None:  # `T::f()` for `T: Trait` calls the trait's f
            traits = self._dyn_traits(fi, scope, gen, depth)
            if traits:
                return ("sym", *traits[0]), "local-type"
            return ("builtin", first), "scope"
        r = self.lookup(fi, scope, first, depth)
        if r is not None:
            return r
        return self._outside(first, multi)

    def _outside(self, first: str, multi: bool):
        """A first path segment no scope binds: a project crate, std, another crate, prelude."""
        if first in self.libs:
            return ("mod", self.libs[first], ""), "import"
        if first in _STD_CRATES:
            return ("ext", first), "import"
        if first in PRELUDE:
            return ("builtin", first), "scope"
        if multi and first[:1].islower():  # an external crate, by the 2018 extern prelude
            return ("ext", first), "import"
        return None

    def _crate_root(self, fi: _File) -> Entity:
        return ("mod", fi.root or fi.path, "")

    def _generic(self, fi: _File, scope: str, name: str) -> str | None:
        gens = fi.facts.extra.get("generics", {})
        s = scope
        while s:
            g = gens.get(s)
            if g is not None and name in g:
                return g[name]
            s = self._container(fi, s)
        return None

    def lookup(self, fi: _File, scope: str, name: str, depth: int = 0):
        """A single name: enclosing function bodies, then the enclosing module."""
        s = scope
        while True:
            sym = fi.syms.get(s)
            if s == "" or (sym is not None and sym.kind == "module"):
                return self.module_member(fi.path, s, name, depth + 1)
            if sym is None or sym.kind in ("function", "method"):
                r = self._scope_member(fi, s, name, depth + 1)
                if r is not None:
                    return r
            s = self._container(fi, s)

    def _scope_member(self, fi: _File, s: str, name: str, depth: int):
        sc = fi.scopes.get(s)
        if sc is None:
            return None
        local = sc.items.get(name)
        if local is not None:
            sym = fi.syms[local]
            kind = "mod" if sym.kind == "module" else "sym"
            return (kind, fi.path, local), "scope"
        child = sc.mods.get(name)
        if child is not None:
            return ("mod", child, ""), "scope"
        for imp in sc.uses.get(name, ()):
            r = self.import_target(fi, imp, depth + 1)
            if r is not None:
                return r[0], weakest(r[1], "import") if r[1] != "scope" else "import"
        for imp in sc.globs:
            r = self._glob_member(fi, imp, name, depth + 1)
            if r is not None:
                return r
        return None

    def _memoized(self, key, depth: int, compute):
        """Memoised lookups through `use`s and globs, which may form cycles (a lookup that
        meets itself gets None); past the depth bound, nothing is looked up."""
        if depth > _MAX_DEPTH:
            return None
        return self.memo.get(key, compute)

    def module_member(self, path: str, mlocal: str, name: str, depth: int = 0):
        return self._memoized(
            ("m", path, mlocal, name),
            depth,
            lambda: self._scope_member(self.files[path], mlocal, name, depth + 1),
        )

    def _glob_member(self, fi: _File, imp: ImportFact, name: str, depth: int):
        base = self.resolve_path(fi, imp.scope, imp.module.split("::"), depth + 1)
        if base is None:
            return None
        ent, _ = base
        ent = self._follow_alias(ent)
        if ent[0] == "mod":
            if (ent[1], ent[2]) == (fi.path, imp.scope):
                return None
            r = self.module_member(ent[1], ent[2], name, depth + 1)
            return (r[0], "import") if r is not None else None
        if ent[0] == "sym" and self._kind(ent) == "enum":
            r = self.member(ent, name, "import", depth + 1)
            return r if r is not None and r[0][0] == "variant" else None
        return None

    def import_target(self, fi: _File, imp: ImportFact, depth: int = 0):
        """What a `use` leaf (or `extern crate`) binds."""
        segs = [*imp.module.split("::"), imp.name] if imp.module else [imp.name]
        if imp.name == "*":
            segs = imp.module.split("::")
        return self._memoized(
            ("i", fi.path, imp), depth, lambda: self._use_path(fi, imp, segs, depth + 1)
        )

    def _use_path(self, fi: _File, imp: ImportFact, segs: list[str], depth: int):
        first = segs[0]
        if first in ("crate", "self", "super"):
            return self.resolve_path(fi, imp.scope, segs, depth)
        # `use foo;` / `extern crate foo;` name a crate; a longer path starts at a name
        # of this scope (2018 uniform paths), else at a crate
        r = self.lookup(fi, imp.scope, first, depth) if len(segs) > 1 else None
        if r is None:
            r = self._outside(first, True)
        if r is None:
            return None
        ent, reason = r
        reason = "import" if reason == "scope" else reason
        for seg in segs[1:]:
            r = self.member(ent, seg, reason, depth + 1)
            if r is None:
                return None
            ent, reason = r
        return ent, reason

    # ------------------------------------------------------------ members
    def member(self, ent: Entity, name: str, reason: str, depth: int = 0):
        """`ent::name` -> (entity, reason) or None."""
        if depth > _MAX_DEPTH:
            return None
        k = ent[0]
        if k == "mod" and name in ("super", "self"):  # `super::super::x`
            fi = self.files[ent[1]]
            pm = self._parent_module(fi, ent[2]) if name == "super" else (fi, ent[2])
            return (("mod", pm[0].path, pm[1]), reason) if pm else None
        if k == "mod":
            r = self.module_member(ent[1], ent[2], name, depth + 1)
            return (r[0], weakest(reason, r[1])) if r is not None else None
        if k == "ext":
            return ("ext", f"{ent[1]}::{name}"), reason
        if k == "builtin":
            return ("builtin", f"{ent[1]}::{name}"), reason
        if k != "sym":
            return None
        ent = self._follow_alias(ent)
        kind = self._kind(ent)
        if kind == "enum":
            fi = self.files[ent[1]]
            if name in fi.facts.extra.get("variants", {}).get(ent[2], ()):
                return ("variant", ent[1], ent[2], name), reason
        if kind == "trait":
            m = self.trait_method((ent[1], ent[2]), name)
            if m is not None:
                return ("sym", *m[0]), weakest(reason, m[1])
            return None
        if kind in ("struct", "enum"):
            found, how = self.methods_of((ent[1], ent[2]), name)
            if len(found) == 1:
                return ("sym", *found[0]), weakest(reason, how)
            if found:
                return ("many", tuple(found)), "dispatch"
            if name in STD_METHODS:
                return ("builtin", name), reason
        return None

    def methods_of(self, key: tuple, name: str) -> tuple[list, str]:
        """Methods `name` of a type: its impls' own, else a default of a trait it implements."""
        own = [
            (imp.path, local)
            for imp in self.type_impls.get(key, ())
            for local in imp.methods.get(name, ())
        ]
        if own:
            return own, "scope"
        seen = []
        for imp in self.type_impls.get(key, ()):
            if imp.trait is not None and imp.trait[0] == "sym":
                m = self.trait_method((imp.trait[1], imp.trait[2]), name)
                if m is not None and m[0] not in seen:
                    seen.append(m[0])
        return seen, "inheritance"

    def trait_method(self, trait: tuple, name: str, depth: int = 0):
        """((path, local), reason) of a method declared by a trait or one of its supertraits."""
        fi = self.files[trait[0]]
        local = f"{trait[1]}.{name}"
        s = fi.syms.get(local)
        if s is not None and s.kind == "method":
            return (trait[0], local), "scope"
        if depth > 8:
            return None
        for sup in self.supertraits(trait):
            r = self.trait_method(sup, name, depth + 1)
            if r is not None:
                return r[0], "inheritance"
        return None

    def supertraits(self, trait: tuple) -> list[tuple]:
        key = ("sup", trait)
        table = self.memo.table
        if key in table:
            return table[key]
        table[key] = []
        fi = self.files[trait[0]]
        out = []
        for h in fi.facts.heritage:
            if h.scope == trait[1]:
                r = self.resolve_path(fi, self._container(fi, h.scope), h.base.split("::"))
                if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "trait":
                    out.append((r[0][1], r[0][2]))
        table[key] = out
        return out

    def implementations(self, trait_method: tuple) -> list[tuple[str, str]]:
        """The methods that implement a trait's method, in every impl of the trait."""
        path, local = trait_method
        trait, name = _head(local), self.files[path].syms[local].name
        return [
            (imp.path, m)
            for imp in self.trait_impls.get((path, trait), ())
            for m in imp.methods.get(name, ())
        ]

    def _is_trait_method(self, ent: Entity) -> bool:
        if ent[0] != "sym" or self._kind(ent) != "method":
            return False
        fi = self.files[ent[1]]
        return ent[2] not in fi.impl_of and self._kind(("sym", ent[1], _head(ent[2]))) == "trait"

    # ------------------------------------------------------------ values
    def _dyn_traits(self, fi: _File, scope: str, enc: str, depth: int) -> list[tuple]:
        out = []
        for p in enc[4:].split("+") if enc.startswith("dyn ") else ():
            r = self.resolve_path(fi, scope, p.split("::"), depth + 1)
            if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "trait":
                out.append((r[0][1], r[0][2]))
        return out

    def type_value(self, fi: _File, scope: str, enc: str, self_value=None, depth: int = 0):
        """The value of an encoded type written in `scope` (extract.py docstring)."""
        if not enc or depth > _MAX_DEPTH:
            return None
        if enc.startswith("?"):
            return ("wrap", self.type_value(fi, scope, enc[1:], self_value, depth + 1))
        if enc.startswith("[]"):
            return ("seq", self.type_value(fi, scope, enc[2:], self_value, depth + 1))
        if enc in PRIMITIVES:
            return ("builtin", enc)
        if enc.startswith("dyn "):
            traits = self._dyn_traits(fi, scope, enc, depth)
            if traits:
                return ("dyn", tuple(traits))
            r = self.resolve_path(fi, scope, enc[4:].split("+")[0].split("::"), depth + 1)
            return ("ext", r[0][1]) if r is not None and r[0][0] == "ext" else ("builtin", enc)
        if enc == "Self" and self_value is not None:
            return self_value
        r = self.resolve_path(fi, scope, enc.split("::"), depth + 1)
        if r is None:
            return None
        return self._as_value(r[0], depth)

    def _as_value(self, ent: Entity, depth: int = 0):
        ent = self._follow_alias(ent)
        k = ent[0]
        if k in ("ext", "builtin"):
            return ent
        if k == "variant":
            return ("inst", ent[1], ent[2])
        kind = self._kind(ent)
        if kind in ("struct", "enum"):
            return ("inst", ent[1], ent[2])
        if kind == "trait":
            return ("dyn", ((ent[1], ent[2]),))
        if kind == "type_alias":
            fi = self.files[ent[1]]
            enc = fi.facts.extra.get("alias", {}).get(ent[2], "")
            return self.type_value(fi, self._container(fi, ent[2]), enc, None, depth + 1)
        return None

    def eval_value(self, fi: _File, scope: str, chain: str, line: int, depth: int = 0):
        """(value, reason) of an expression chain, or None when its type is not evident."""
        if depth > _MAX_DEPTH or chain.startswith("?"):
            return None
        tokens = _CHAIN_TOKEN.findall(chain)
        head = [tokens[0]]
        i = 1
        while i + 1 < len(tokens) and tokens[i] == "::":
            head.append(tokens[i + 1])
            i += 2
        r = self._head_value(fi, scope, head, line, depth, calls=tokens[i : i + 1] == ["()"])
        if r is None:
            return None
        val, reason = r
        while i < len(tokens):
            tok = tokens[i]
            if tok == "()":
                if val is None or val[0] != "callable":
                    return None
                val, reason = self._call_result(val[1], reason, depth)
                i += 1
            elif tok == "?":
                val = val[1] if val is not None and val[0] == "wrap" else val
                i += 1
            elif tok == "[]":
                val = val[1] if val is not None and val[0] == "seq" else None
                i += 1
            elif tok == ".":
                name = tokens[i + 1] if i + 1 < len(tokens) else ""
                is_call = tokens[i + 2 : i + 3] == ["()"]
                if is_call:
                    val, reason = self._method_result(val, name, reason, depth)
                    i += 3
                else:
                    val = self._field(val, name, depth)
                    reason = weakest(reason, "local-type")
                    i += 2
            else:
                return None
            if val is None:
                return None
        if val is None or val[0] == "callable":
            return None
        return val, reason

    def _head_value(
        self, fi: _File, scope: str, head: list[str], line: int, depth: int, calls: bool
    ):
        """The value a chain starts from; ("callable", entity) when a call follows."""
        if len(head) == 1:
            name = head[0]
            if name == "self":
                st = self._self_type(fi, scope)
                if st is None:
                    return None
                return self._as_value(st), "self"
            b = self._binding(fi, scope, name, line)
            if b is not None:
                return self._binding_value(fi, b, depth)
            ptype = self._param(fi, scope, name)
            if ptype is not None:
                v = self.type_value(fi, scope, ptype, None, depth + 1)
                return (v, "local-type") if v is not None else None
        r = self.resolve_path(fi, scope, head, depth + 1)
        if r is None:
            return None
        ent, reason = r
        if calls:
            return ("callable", ent), reason
        if ent[0] == "sym" and self._kind(ent) == "variable":
            vfi = self.files[ent[1]]
            enc = vfi.facts.extra.get("vartypes", {}).get(ent[2], "")
            v = self.type_value(vfi, self._container(vfi, ent[2]), enc, None, depth + 1)
            return (v, weakest(reason, "local-type")) if v is not None else None
        if ent[0] == "variant" or (ent[0] == "sym" and self._kind(ent) == "struct"):
            return self._as_value(ent), reason
        return None

    def _binding(self, fi: _File, scope: str, name: str, line: int):
        cands = fi.bindings.get(scope, {}).get(name)
        if not cands:
            return None
        chosen = None
        for b in cands:
            if b.line <= line:
                chosen = b
        return chosen

    def _param(self, fi: _File, scope: str, name: str) -> str | None:
        ps = fi.params.get(scope)
        return ps.get(name) if ps else None

    def _binding_value(self, fi: _File, b, depth: int):
        if b.value.startswith("type:"):
            v = self.type_value(fi, b.scope, b.value[5:], None, depth + 1)
            return (v, "local-type") if v is not None else None
        # `let x = x.parse()?` reads the x bound before this line
        head = _CHAIN_TOKEN.match(b.value)
        line = b.line - 1 if head is not None and head.group(0) == b.name else b.line
        r = self.eval_value(fi, b.scope, b.value, line, depth + 1)
        if r is None:
            return None
        return r[0], weakest(r[1], "local-type")

    def _call_result(self, ent: Entity, reason: str, depth: int):
        """The value of calling a function, a tuple struct or variant: (value, reason)."""
        k = ent[0]
        if k == "variant":
            return ("inst", ent[1], ent[2]), weakest(reason, "local-type")
        if k != "sym":
            return None, reason
        kind = self._kind(ent)
        if kind == "struct":
            return ("inst", ent[1], ent[2]), weakest(reason, "local-type")
        if kind not in ("function", "method"):
            return None, reason
        fi = self.files[ent[1]]
        enc = fi.facts.extra.get("ret", {}).get(ent[2], "")
        owner = self._self_type(fi, ent[2])
        v = self.type_value(fi, ent[2], enc, self._as_value(owner) if owner else None, depth + 1)
        return v, weakest(reason, "local-type")

    def _method_result(self, recv, name: str, reason: str, depth: int):
        if recv is None:
            return None, reason
        if recv[0] == "wrap":
            return (recv[1] if name in _UNWRAP else None), reason
        if recv[0] == "seq":
            return (("wrap", recv[1]) if name in _ELEMENT else None), reason
        targets, how = self._method_targets(recv, name, reason)
        if targets:
            ent = targets[0]
            fi = self.files[ent[1]]
            enc = fi.facts.extra.get("ret", {}).get(ent[2], "")
            self_value = recv if recv[0] in ("inst", "dyn") else None
            v = self.type_value(fi, ent[2], enc, self_value, depth + 1)
            return v, weakest(how, "local-type")
        if recv[0] == "inst":
            if name in _SAME or name in _UNWRAP:
                return recv, reason
            if name in _LOCKS:
                return ("wrap", recv), reason
        return None, reason

    def _field(self, val, name: str, depth: int):
        if val is None or val[0] != "inst":
            return None
        fi = self.files[val[1]]
        binds = fi.bindings.get(val[2], {}).get(name)
        enc = binds[0].value[5:] if binds else ""
        return self.type_value(fi, val[2], enc, val, depth + 1) if enc else None

    def _method_targets(self, recv, name: str, reason: str):
        """Definitions a method call on a value reaches: ([("sym", p, l)...], reason)."""
        k = recv[0]
        if k == "inst":
            found, how = self.methods_of((recv[1], recv[2]), name)
            if len(found) == 1:
                return [("sym", *found[0])], weakest(reason, how)
            return [("sym", *f) for f in found], "dispatch"
        if k == "dyn":
            for t in recv[1]:
                m = self.trait_method(t, name)
                if m is not None:
                    return [("sym", *m[0])], weakest(reason, m[1])
        return [], reason

    # ------------------------------------------------------------ output
    def module_qname(self, fi: _File, mlocal: str = "") -> str:
        parts = [fi.crate, *fi.segs]
        if mlocal:
            parts.extend(strip_dup(mlocal).split("."))
        return "::".join(parts)

    def qualified(self, fi: _File, local: str) -> str:
        if not local:
            return self.module_qname(fi)
        i = fi.impl_of.get(local)
        if i is not None:
            imp = self._impls.get((fi.path, i))
            if imp is not None and imp.type_key is not None:
                tfi = self.files[imp.type_key[0]]
                return f"{self.qualified(tfi, imp.type_key[1])}::{fi.syms[local].name}"
        return f"{self.module_qname(fi)}::{'::'.join(strip_dup(local).split('.'))}"

    def ent_uid(self, ent: Entity) -> str | None:
        k = ent[0]
        if k in ("sym", "inst", "mod"):
            return self.uid(ent[1], ent[2])
        if k == "variant":
            return self.uid(ent[1], ent[2])
        if k == "ext":
            return external_uid(ent[1])
        return None

    def _parent_uid(self, fi: _File, local: str) -> str:
        i = fi.impl_of.get(local)
        if i is not None:
            imp = self._impls.get((fi.path, i))
            if imp is not None and imp.type_key is not None:
                return self.uid(*imp.type_key)
        return self.uid(fi.path, self._container(fi, local))

    def module_symbol_name(self, fi: _File) -> str:
        return fi.segs[-1] if fi.segs else fi.crate

    def row_is_test(self, fi: _File, s: SymbolFact, file_is_test: bool) -> bool:
        return file_is_test or fi.is_test or s.is_test

    def container_uid(self, fi: _File, s: SymbolFact) -> str:
        return self._parent_uid(fi, s.local)

    def file_edges(self, fi: _File, edges: Edges) -> None:
        path, f = fi.path, fi.facts
        module_uid = self.uid(path, "")
        for i in range(len(f.extra.get("impls", ()))):
            imp = self._impls[(path, i)]
            if imp.type_key is not None and imp.trait is not None and imp.trait[0] != "builtin":
                src, dst = self.uid(*imp.type_key), self.ent_uid(imp.trait)
                if dst is not None and dst != src:
                    edges.add("IMPLEMENTS", src, dst, imp.reason, imp.line)

        for imp in f.imports:
            r = self.import_target(fi, imp)
            if r is None:
                continue
            dst = self.ent_uid(r[0])
            if dst is not None and dst != module_uid:
                edges.add("IMPORTS", module_uid, dst, "import", imp.line)
        for scope, name, line, _p, _t in f.extra.get("mods", ()):
            child = fi.scopes.get(scope, _Scope()).mods.get(name)
            if child is not None:
                edges.add("IMPORTS", module_uid, self.uid(child, ""), "scope", line)

        for h in f.heritage:
            r = self.resolve_path(fi, self._container(fi, h.scope), h.base.split("::"))
            if r is None:
                continue
            ent, reason = _std_trait(r[0]), r[1]
            if ent[0] == "ext" or self._kind(ent) == "trait":
                edges.add("EXTENDS", self.uid(path, h.scope), self.ent_uid(ent), reason, h.line)

        for ref in f.references:
            if ref.kind == "impl":
                continue
            r = self.resolve_path(fi, ref.scope, ref.target.split("::"))
            if r is None or r[0][0] != "sym" or self._kind(r[0]) not in _TYPE_KINDS:
                continue
            src, dst = self.uid(path, ref.scope), self.ent_uid(r[0])
            if src != dst:
                edges.add("REFERENCES", src, dst, r[1], ref.line)

    def calls(self, fi: _File):
        for i, call in enumerate(fi.facts.calls):
            kind, _, ctx = call.kind.partition("@")
            if ctx and ctx not in self.macro_names:
                continue  # inside another crate's macro (quote!, json!): maybe not code
            yield i, call._replace(kind=kind)

    # ------------------------------------------------------------ calls
    def resolve_call(self, fi: _File, index: int, call, edges: Edges, out: ResolvedFile) -> None:
        src = self.uid(fi.path, call.scope)
        if call.kind == "macro":
            head, _, last = call.callee.rpartition("::")
            if last in STD_MACROS and head in ("", "std", "core", "alloc"):
                out.calls_builtin += 1
            else:
                out.unresolved.append(Unresolved(src, last + "!", call.line))
            return
        if call.kind == "method":
            self._method_call(fi, call, src, edges, out)
        else:
            self._path_call(fi, call, src, edges, out)
        for _pos, arg in call.args:
            r = self.resolve_path(fi, call.scope, arg.split("::"))
            if r is not None and r[0][0] == "sym" and self._kind(r[0]) in ("function", "method"):
                if not self._binding(fi, call.scope, arg, call.line) and not self._param(
                    fi, call.scope, arg
                ):
                    edges.add("REFERENCES", src, self.ent_uid(r[0]), r[1], call.line)

    def _edge(self, edges: Edges, src, ent, reason, line) -> None:
        edges.call(src, self.ent_uid(ent), reason, line)

    def _fan_out(self, edges: Edges, src, ent, line) -> None:
        if self._is_trait_method(ent):
            impls = self.implementations((ent[1], ent[2]))
            edges.dispatch(src, (self.uid(p, local) for p, local in impls), line)

    def _path_call(self, fi: _File, call, src, edges, out) -> None:
        last = call.callee.rpartition("::")[2]
        segs = call.callee.split("::")
        if call.callee == "?" or not all(segs):
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        if len(segs) == 1 and call.kind == "call":
            # a local holding a closure or a fn pointer: only `let g = f;` names a definition
            b = self._binding(fi, call.scope, last, call.line)
            if b is not None and _PATH.fullmatch(b.value):
                r = self.resolve_path(fi, call.scope, b.value.split("::"))
                if r is not None and self._kind(r[0]) in ("function", "method"):
                    self._edge(edges, src, r[0], weakest(r[1], "alias"), call.line)
                    return
            if b is not None or self._param(fi, call.scope, last):
                out.unresolved.append(Unresolved(src, last, call.line))
                return
        r = self.resolve_path(fi, call.scope, segs)
        if (
            len(segs) == 1
            and call.kind == "call"
            and last in PRELUDE
            and (r is None or r[0][0] == "mod" or self._kind(r[0]) in ("enum", "trait"))
        ):
            # `Err(e)` where a crate's own `enum Err` is in scope: types and values are
            # separate namespaces, and only the prelude's Err is a value
            r = ("builtin", last), "scope"
        if r is None:
            out.unresolved.append(Unresolved(src, last, call.line))
            return
        ent, reason = self._follow_alias(r[0]), r[1]
        k = ent[0]
        if k == "builtin":
            out.calls_builtin += 1
            return
        if k == "ext":
            self._edge(edges, src, ent, reason, call.line)
            return
        if k == "many" and segs[0] == "Self" and len(segs) == 2:
            own = self._same_impl(fi, call.scope, last)
            if own is not None:
                ent, k, reason = own, "sym", "self"
        if k == "many":
            for p, local in ent[1]:
                self._edge(edges, src, ("sym", p, local), "dispatch", call.line)
            return
        if k == "variant":
            self._edge(edges, src, ent, "constructor", call.line)
            return
        kind = self._kind(ent) if k == "sym" else None
        if call.kind == "struct":
            if kind in ("struct", "enum"):
                self._edge(edges, src, ent, "constructor", call.line)
            else:
                out.unresolved.append(Unresolved(src, last, call.line))
            return
        if kind == "struct":
            self._edge(edges, src, ent, "constructor", call.line)
        elif kind in ("function", "method"):
            self._edge(edges, src, ent, reason, call.line)
            if len(segs) > 1:  # Trait::f(), T::f(), Self::f() in a trait: any implementation
                owner = self.resolve_path(fi, call.scope, segs[:-1])
                if owner is not None and self._kind(owner[0]) == "trait":
                    self._fan_out(edges, src, ent, call.line)
        else:
            out.unresolved.append(Unresolved(src, last, call.line))

    def _method_call(self, fi: _File, call, src, edges, out) -> None:
        recv, _, name = call.callee.rpartition(".")
        r = self.eval_value(fi, call.scope, recv, call.line) if recv != "?" else None
        if r is None:
            if not self._unique_name(name, edges, src, call.line):
                if name in STD_METHODS:
                    out.calls_builtin += 1
                else:
                    out.unresolved.append(Unresolved(src, name, call.line))
            return
        val, reason = r
        k = val[0]
        if k == "ext":
            self._edge(edges, src, ("ext", f"{val[1]}::{name}"), reason, call.line)
            return
        if k in ("builtin", "wrap", "seq"):
            out.calls_builtin += 1
            return
        targets, how = self._method_targets(val, name, reason)
        if len(targets) > 1 and recv == "self":
            own = self._same_impl(fi, call.scope, name)
            if own is not None:
                targets, how = [own], "self"
        if not targets:
            if name in STD_METHODS:
                out.calls_builtin += 1
            else:
                out.unresolved.append(Unresolved(src, name, call.line))
            return
        for ent in targets:
            self._edge(edges, src, ent, how, call.line)
            if k == "dyn":
                self._fan_out(edges, src, ent, call.line)

    def _same_impl(self, fi: _File, scope: str, name: str) -> Entity | None:
        """`self.m()` / `Self::m()` where the type has several m: the one of this impl block
        (impls for `S` and `&S` both have S's methods)."""
        imp = self._impl_around(fi, scope)
        found = imp.methods.get(name) if imp is not None else None
        return ("sym", fi.path, found[0]) if found else None

    def _unique_name(self, name: str, edges: Edges, src, line) -> bool:
        found = unique_definition(self.methods_by_name, name, STD_METHODS)
        if found is None:
            return False
        edges.call(src, self.uid(*found), "unique-name", line)
        return True


def _std_trait(ent: Entity) -> Entity:
    if ent[0] == "builtin" and ent[1] in _PRELUDE_TRAITS:
        return ("ext", _PRELUDE_TRAITS[ent[1]])
    return ent
