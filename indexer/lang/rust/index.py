"""The per-file index of Rust resolution and the names of Rust's prelude and standard library.

What the resolver knows without looking anything up: the prelude and primitive types, the
standard macros and methods, the entity kinds (below), and per file its items, `use`s and
globs by scope, its impl blocks, parameters and `let` bindings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codeimpact.indexer.lang.api import FileFacts, ImportFact, SymbolFact
from codeimpact.indexer.lang.rust.matching import EXPR_MACROS
from codeimpact.indexer.lang.rust.syntax import words

STD_CRATES = words("std core alloc proc_macro test")
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
PRELUDE_TRAITS = {
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
UNWRAP = words("unwrap expect unwrap_or unwrap_or_else unwrap_or_default unwrap_unchecked")
# Methods that hand back the receiver's own type (or the pointee through a smart pointer).
SAME = words("clone borrow borrow_mut as_ref as_mut deref deref_mut to_owned by_ref")
LOCKS = words("lock try_lock")

PATH = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
CHAIN_TOKEN = re.compile(r"::|\.|\(\)|\[\]|\?|[^:.()?\[\]]+")
# Container methods that hand out an element (wrapped: they may find none).
ELEMENT = words("get get_mut first first_mut last last_mut pop pop_front pop_back front back peek")

Entity = tuple  # see module docstring of the entity kinds in ENTITIES
ENTITIES = """
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

TYPE_KINDS = ("struct", "enum", "trait", "type_alias")
MAX_DEPTH = 24


def head(local: str) -> str:
    return local.rpartition(".")[0]


@dataclass
class Impl:
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
class Scope:
    items: dict[str, str] = field(default_factory=dict)  # name -> local
    uses: dict[str, list[ImportFact]] = field(default_factory=dict)
    globs: list[ImportFact] = field(default_factory=list)
    mods: dict[str, str] = field(default_factory=dict)  # `mod x;` -> file path


@dataclass
class File:
    path: str
    facts: FileFacts
    crate: str = "crate"
    root: str = ""  # the crate root file
    segs: tuple = ()
    is_test: bool = False
    parent: tuple | None = None  # (path, local) of the declaring module
    syms: dict[str, SymbolFact] = field(default_factory=dict)
    scopes: dict[str, Scope] = field(default_factory=dict)
    impl_of: dict[str, int] = field(default_factory=dict)  # method local -> impl index
    params: dict[str, dict[str, str]] = field(default_factory=dict)
    bindings: dict[str, dict[str, list]] = field(default_factory=dict)

    def scope(self, local: str) -> Scope:
        s = self.scopes.get(local)
        if s is None:
            s = self.scopes[local] = Scope()
        return s


def std_trait(ent: Entity) -> Entity:
    if ent[0] == "builtin" and ent[1] in PRELUDE_TRAITS:
        return ("ext", PRELUDE_TRAITS[ent[1]])
    return ent
