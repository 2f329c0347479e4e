"""Rust: qualified names and extraction alone (real tree-sitter, real crates in temp git
repos, a real Kùzu index); crates, bindings and incremental runs are in
test_lang_rust_crates.py. The definitions, the module tree and the edges of use paths and
of calls are the annotated fixtures tests/lang/rust/*.rs (tests/test_lang_fixtures.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from codeimpact.indexer.lang.rust.extract import extract, is_test_path
from conftest import symbols
from lang import harness

LANG = Path(__file__).resolve().parent / "lang"

# the project of an annotated fixture, without its assertion lines
USES = harness.project_files(LANG / "rust" / "use_paths.rs")


def test_external_members_keep_rusts_separators(make_repo, index_repo):
    """The edges of USES are the annotated fixture tests/lang/rust/use_paths.rs."""
    repo = make_repo(USES)
    index_repo(repo)
    syms = symbols(repo)
    assert syms["<external>::std::fmt::Formatter::write_str"][:2] == (
        "external",
        "std::fmt::Formatter::write_str",
    )


# ---------------------------------------------------------------- extraction alone
def _syms(source: str) -> dict:
    facts = extract(textwrap.dedent(source).encode())
    return {s.local: (s.kind, s.is_test, s.exported) for s in facts.symbols}


def test_impl_methods_are_named_after_their_type_and_collisions_get_a_suffix():
    facts = extract(
        textwrap.dedent(
            """
            use std::fmt;
            struct S;
            impl fmt::Display for S {
                fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }
            }
            impl fmt::Debug for S {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
            }
            impl<T: Clone> From<T> for Vec<S> {
                fn from(_t: T) -> Self { Vec::new() }
            }
            mod inner {
                pub(crate) fn f() { fn nested() {} }
                impl super::S { pub fn g(&self) {} }
            }
            extern "C" { fn c_call(x: i32); }
            const LIMIT: u32 = 3;
            """
        ).encode()
    )
    assert [(s.local, s.kind, s.exported) for s in facts.symbols] == [
        ("", "module", True),
        ("S", "struct", False),
        ("S.fmt", "method", True),  # trait impl methods are as visible as the trait
        ("S.fmt#2", "method", True),
        ("Vec.from", "method", True),
        ("inner", "module", False),
        ("inner.f", "function", True),
        ("inner.f.nested", "function", False),
        ("inner.S.g", "method", True),
        ("c_call", "function", False),
        ("LIMIT", "variable", False),
    ]
    impls = facts.extra["impls"]
    assert [(i[0], i[1], i[2], i[3]) for i in impls] == [
        ("", "S", "fmt::Display", "S"),
        ("", "S", "fmt::Debug", "S"),
        ("", "Vec", "From", "Vec"),
        ("inner", "super::S", "", "inner.S"),
    ]
    assert facts.extra["method_impl"] == {"S.fmt": 0, "S.fmt#2": 1, "Vec.from": 2, "inner.S.g": 3}
    # `f: &mut fmt::Formatter<'_>`: references and lifetimes are see-through
    assert dict(facts.symbols[3].params) == {"self": "Self", "f": "fmt::Formatter"}
    assert facts.extra["ret"]["S.fmt"] == "?"  # fmt::Result has no type argument


def test_tests_by_attribute_and_cfg_test_modules():
    assert _syms(
        """
        fn lib() {}
        #[test]
        fn standalone() {}
        #[tokio::test]
        async fn async_one() {}
        #[cfg(not(test))]
        fn prod_only() {}
        #[cfg(test)]
        mod tests {
            use super::*;
            fn helper() {}
            #[test]
            fn it_works() { helper(); }
        }
        """
    ) == {
        "": ("module", False, True),
        "lib": ("function", False, False),
        "standalone": ("function", True, False),
        "async_one": ("function", True, False),
        "prod_only": ("function", False, False),
        "tests": ("module", True, False),
        "tests.helper": ("function", True, False),
        "tests.it_works": ("function", True, False),
    }
    assert is_test_path("tests/integration.rs")
    assert is_test_path("crates/x/tests/common/mod.rs")
    assert is_test_path("src/parser/tests.rs")
    assert not is_test_path("src/testing_utils.rs")
    assert not is_test_path("src/lib.rs")


def test_items_inside_cfg_wrapper_macros_are_seen_as_written():
    facts = extract(
        textwrap.dedent(
            """
            cfg_rt! {
                pub mod runtime;
                cfg_net! {
                    pub fn connect() {}
                }
            }
            impl Handle {
                cfg_time! { pub fn sleep(&self) {} }
            }
            ast_struct!(pub struct NotAnItem #full { x: u8 });
            """
        )
        .lstrip("\n")
        .encode()
    )
    assert [(s.local, s.kind, s.start_line) for s in facts.symbols] == [
        ("", "module", 1),
        ("connect", "function", 4),  # lines and bytes as written
        ("Handle.sleep", "method", 8),
    ]
    assert facts.extra["mods"] == [("", "runtime", 2, "", False)]
    assert facts.status == "ok"


def test_a_syntax_error_gives_partial_facts():
    facts = extract(b"fn ok() {}\nfn broken( {\n}\nstruct After;\n")
    assert facts.status == "partial"
    assert facts.error.startswith("syntax error at line")
    assert "ok" in {s.local for s in facts.symbols}
