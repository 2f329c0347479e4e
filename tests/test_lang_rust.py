"""Rust: definitions, qualified names and extraction alone (real tree-sitter, real crates in
temp git repos, a real Kùzu index); crates, bindings and incremental runs are in
test_lang_rust_crates.py. The edges of use paths and of calls are the annotated fixtures
tests/lang/rust/*.rs (tests/test_lang_fixtures.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from codeimpact.indexer.lang.rust.extract import extract, is_test_path
from conftest import edges, symbols
from lang import harness

LANG = Path(__file__).resolve().parent / "lang"

CARGO = """
[package]
name = "demo-crate"
version = "0.1.0"
"""

SHAPES = {
    "Cargo.toml": CARGO,
    "src/lib.rs": """
        pub mod shapes;
        mod util;
        pub mod net {
            pub mod http;
            pub fn connect() -> u32 {
                crate::util::helper()
            }
        }
        pub use shapes::Circle;
        """,
    "src/shapes/mod.rs": """
        mod area;
        pub struct Circle {
            pub r: f64,
        }
        pub enum Kind {
            Round,
            Square(u8),
        }
        pub trait Named {
            fn name(&self) -> String;
        }
        pub trait Shape: Named {
            fn area(&self) -> f64;
            fn describe(&self) -> String {
                self.name()
            }
        }
        pub type Radius = f64;
        impl Circle {
            pub fn new(r: Radius) -> Self {
                Circle { r }
            }
        }
        impl Named for Circle {
            fn name(&self) -> String {
                String::from("circle")
            }
        }
        """,
    "src/shapes/area.rs": """
        use super::{Circle, Shape};

        impl Shape for Circle {
            fn area(&self) -> f64 {
                3.0 * self.r * self.r
            }
        }
        """,
    "src/util.rs": """
        pub fn helper() -> u32 {
            1
        }
        """,
    "src/net/http.rs": """
        pub fn get() -> u32 {
            super::connect()
        }
        """,
}


def test_definitions_module_tree_and_qualified_names(make_repo, index_repo):
    repo = make_repo(SHAPES)
    index_repo(repo)
    assert symbols(repo) == {
        "src/lib.rs::": ("module", "demo_crate", 1, 10),
        "src/lib.rs::net": ("module", "demo_crate::net", 3, 8),
        "src/lib.rs::net.connect": ("function", "demo_crate::net::connect", 5, 7),
        "src/net/http.rs::": ("module", "demo_crate::net::http", 1, 4),
        "src/net/http.rs::get": ("function", "demo_crate::net::http::get", 1, 3),
        "src/shapes/area.rs::": ("module", "demo_crate::shapes::area", 1, 8),
        "src/shapes/area.rs::Circle.area": ("method", "demo_crate::shapes::Circle::area", 4, 6),
        "src/shapes/mod.rs::": ("module", "demo_crate::shapes", 1, 29),
        "src/shapes/mod.rs::Circle": ("struct", "demo_crate::shapes::Circle", 2, 4),
        "src/shapes/mod.rs::Circle.name": ("method", "demo_crate::shapes::Circle::name", 25, 27),
        "src/shapes/mod.rs::Circle.new": ("method", "demo_crate::shapes::Circle::new", 20, 22),
        "src/shapes/mod.rs::Kind": ("enum", "demo_crate::shapes::Kind", 5, 8),
        "src/shapes/mod.rs::Named": ("trait", "demo_crate::shapes::Named", 9, 11),
        "src/shapes/mod.rs::Named.name": ("method", "demo_crate::shapes::Named::name", 10, 10),
        "src/shapes/mod.rs::Radius": ("type_alias", "demo_crate::shapes::Radius", 18, 18),
        "src/shapes/mod.rs::Shape": ("trait", "demo_crate::shapes::Shape", 12, 17),
        "src/shapes/mod.rs::Shape.area": ("method", "demo_crate::shapes::Shape::area", 13, 13),
        "src/shapes/mod.rs::Shape.describe": (
            "method",
            "demo_crate::shapes::Shape::describe",
            14,
            16,
        ),
        "src/util.rs::": ("module", "demo_crate::util", 1, 4),
        "src/util.rs::helper": ("function", "demo_crate::util::helper", 1, 3),
    }
    # methods belong to their type, even from an impl block in another file
    assert edges(repo, "CONTAINS") == {
        ("src/lib.rs::", "src/lib.rs::net"),
        ("src/lib.rs::net", "src/lib.rs::net.connect"),
        ("src/net/http.rs::", "src/net/http.rs::get"),
        ("src/shapes/mod.rs::", "src/shapes/mod.rs::Circle"),
        ("src/shapes/mod.rs::", "src/shapes/mod.rs::Kind"),
        ("src/shapes/mod.rs::", "src/shapes/mod.rs::Named"),
        ("src/shapes/mod.rs::", "src/shapes/mod.rs::Radius"),
        ("src/shapes/mod.rs::", "src/shapes/mod.rs::Shape"),
        ("src/shapes/mod.rs::Circle", "src/shapes/area.rs::Circle.area"),
        ("src/shapes/mod.rs::Circle", "src/shapes/mod.rs::Circle.name"),
        ("src/shapes/mod.rs::Circle", "src/shapes/mod.rs::Circle.new"),
        ("src/shapes/mod.rs::Named", "src/shapes/mod.rs::Named.name"),
        ("src/shapes/mod.rs::Shape", "src/shapes/mod.rs::Shape.area"),
        ("src/shapes/mod.rs::Shape", "src/shapes/mod.rs::Shape.describe"),
        ("src/util.rs::", "src/util.rs::helper"),
    }
    # `mod x;` lines and `use` items both import; `pub use` points at the definition
    assert edges(repo, "IMPORTS") == {
        ("src/lib.rs::", "src/net/http.rs::"),
        ("src/lib.rs::", "src/shapes/mod.rs::"),
        ("src/lib.rs::", "src/shapes/mod.rs::Circle"),
        ("src/lib.rs::", "src/util.rs::"),
        ("src/shapes/area.rs::", "src/shapes/mod.rs::Circle"),
        ("src/shapes/area.rs::", "src/shapes/mod.rs::Shape"),
        ("src/shapes/mod.rs::", "src/shapes/area.rs::"),
    }
    assert edges(repo, "EXTENDS") == {
        ("src/shapes/mod.rs::Shape", "src/shapes/mod.rs::Named"),
    }
    assert edges(repo, "IMPLEMENTS") == {
        ("src/shapes/mod.rs::Circle", "src/shapes/mod.rs::Named"),
        ("src/shapes/mod.rs::Circle", "src/shapes/mod.rs::Shape"),
    }
    assert edges(repo, "CALLS") == {
        ("src/lib.rs::net.connect", "src/util.rs::helper", 1.0, "scope"),
        ("src/net/http.rs::get", "src/lib.rs::net.connect", 1.0, "scope"),
        ("src/shapes/mod.rs::Circle.new", "src/shapes/mod.rs::Circle", 0.8, "constructor"),
        # a default method calling a supertrait's method on self: any implementation
        ("src/shapes/mod.rs::Shape.describe", "src/shapes/mod.rs::Named.name", 0.9, "self"),
        ("src/shapes/mod.rs::Shape.describe", "src/shapes/mod.rs::Circle.name", 0.7, "dispatch"),
    }
    assert edges(repo, "REFERENCES") == {
        ("src/shapes/mod.rs::Circle.new", "src/shapes/mod.rs::Radius", 1.0, "scope"),
    }


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
