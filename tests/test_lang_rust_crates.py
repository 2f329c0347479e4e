"""Rust, indexed: workspace crates and their tests, bindings and macros, several impls, the
module tree, and incremental runs equal to a full index."""

from __future__ import annotations

import textwrap
from pathlib import Path

from codeimpact.indexer.lang.rust.extract import extract, is_test_path
from conftest import edges, symbols
from lang import harness

LANG = Path(__file__).resolve().parent / "lang"
# the project of an annotated fixture, without its assertion lines
CALL_CRATE = harness.project_files(LANG / "rust" / "calls.rs")

# ---------------------------------------------------------------- crates and tests
WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["core", "app"]\n',
    "core/Cargo.toml": '[package]\nname = "wk-core"\nversion = "0.1.0"\n',
    "core/src/lib.rs": """
        pub mod parse;
        #[cfg(test)]
        mod tests;
        """,
    "core/src/parse.rs": """
        pub fn parse(s: &str) -> u32 {
            s.len() as u32
        }
        """,
    "core/src/tests.rs": """
        use super::parse::parse;

        #[test]
        fn parses() {
            assert_eq!(parse("ab"), 2);
        }
        """,
    "core/tests/it.rs": """
        mod common;
        use wk_core::parse::parse;

        #[test]
        fn end_to_end() {
            common::setup();
            parse("x");
        }
        """,
    "core/tests/common/mod.rs": """
        pub fn setup() {}
        """,
    "app/Cargo.toml": '[package]\nname = "app"\n',
    "app/src/main.rs": """
        mod helper;
        use wk_core::parse;

        fn main() {
            parse::parse("1");
            helper::run();
        }
        """,
    "app/src/helper.rs": """
        pub fn run() {}
        """,
}


def _test_flags(repo) -> dict[str, bool]:
    from codeimpact.query.index import Index

    with Index.open(repo) as index:
        rows = index.cypher("MATCH (s:Symbol) WHERE s.file <> '' RETURN s.uid, s.is_test").rows
    return dict(rows)


def test_workspace_crates_integration_tests_and_cfg_test_file_modules(make_repo, index_repo):
    repo = make_repo(WORKSPACE)
    index_repo(repo)
    assert {u: v[1] for u, v in symbols(repo).items()} == {
        "app/src/helper.rs::": "app::helper",
        "app/src/helper.rs::run": "app::helper::run",
        "app/src/main.rs::": "app",
        "app/src/main.rs::main": "app::main",
        "core/src/lib.rs::": "wk_core",
        "core/src/parse.rs::": "wk_core::parse",
        "core/src/parse.rs::parse": "wk_core::parse::parse",
        "core/src/tests.rs::": "wk_core::tests",
        "core/src/tests.rs::parses": "wk_core::tests::parses",
        "core/tests/common/mod.rs::": "it::common",  # an integration test is its own crate
        "core/tests/common/mod.rs::setup": "it::common::setup",
        "core/tests/it.rs::": "it",
        "core/tests/it.rs::end_to_end": "it::end_to_end",
    }
    flags = _test_flags(repo)
    assert {u for u, t in flags.items() if t} == {
        # `#[cfg(test)] mod tests;` makes the whole file test code
        "core/src/tests.rs::",
        "core/src/tests.rs::parses",
        "core/tests/common/mod.rs::",
        "core/tests/common/mod.rs::setup",
        "core/tests/it.rs::",
        "core/tests/it.rs::end_to_end",
    }
    assert edges(repo, "CALLS") == {
        ("app/src/main.rs::main", "app/src/helper.rs::run", 1.0, "scope"),
        # another crate of the workspace, by its name
        ("app/src/main.rs::main", "core/src/parse.rs::parse", 1.0, "import"),
        ("core/src/tests.rs::parses", "core/src/parse.rs::parse", 1.0, "import"),
        ("core/tests/it.rs::end_to_end", "core/src/parse.rs::parse", 1.0, "import"),
        ("core/tests/it.rs::end_to_end", "core/tests/common/mod.rs::setup", 1.0, "scope"),
    }


# ---------------------------------------------------------------- bindings and macros
BINDINGS = {
    "Cargo.toml": '[package]\nname = "bind"\n',
    "src/lib.rs": """
        macro_rules! check {
            ($e:expr) => {
                assert!($e)
            };
        }
        pub struct Node {
            pub children: Vec<Node>,
        }
        impl Node {
            pub fn weight(&self) -> u32 {
                1
            }
        }
        pub fn via_for(n: &Node) {
            for child in n.children.iter() {
                child.weight();
            }
        }
        pub fn via_if_let(n: &Node) {
            if let Some(first) = n.children.first() {
                first.weight();
            }
        }
        pub fn via_index(n: &Node) {
            n.children[0].weight();
        }
        pub fn score(n: &Node) -> u32 {
            0
        }
        pub fn run(n: &Node) {
            let f = score;
            f(n);
            let g = |x: &Node| x.weight();
            g(n);
        }
        pub fn in_macros(n: &Node) {
            check!(score(n) > 0);
            log::debug!("{}", n.weight());
            quote::quote!(unseen(n));
        }
        """,
}


def _project(files: dict[str, str]):
    from codeimpact.indexer.lang.rust.resolve import RustProject

    sources = {p: textwrap.dedent(t).lstrip("\n") for p, t in files.items()}
    facts = {p: extract(t.encode()) for p, t in sources.items() if p.endswith(".rs")}
    configs = {p: t for p, t in sources.items() if p.endswith("Cargo.toml")}
    return RustProject(facts, is_test_path, configs)


def _edges(rf, rel: str) -> set[tuple]:
    return {(e.src, e.dst, e.confidence, e.reason) for e in rf.edges if e.rel == rel}


def test_for_if_let_index_alias_closures_and_macro_arguments():
    rf = _project(BINDINGS).resolve_file("src/lib.rs")
    f = "src/lib.rs::"
    assert _edges(rf, "CALLS") == {
        (f + "via_for", f + "Node.weight", 0.8, "local-type"),  # for child in n.children.iter()
        (f + "via_if_let", f + "Node.weight", 0.8, "local-type"),  # if let Some(first) = ...
        (f + "via_index", f + "Node.weight", 0.8, "local-type"),  # n.children[0]
        (f + "run", f + "score", 0.8, "alias"),  # let f = score; f(n)
        # in a closure the parameter is not typed: the only `weight` anywhere
        (f + "run", f + "Node.weight", 0.5, "unique-name"),
        (f + "in_macros", f + "score", 1.0, "scope"),  # inside the crate's own check!
        (f + "in_macros", f + "Node.weight", 0.8, "local-type"),  # inside log::debug!
    }
    # a closure call, the macros themselves; quote!'s tokens are not this crate's code
    assert sorted((u.scope, u.name) for u in rf.unresolved) == [
        (f + "in_macros", "check!"),
        (f + "in_macros", "debug!"),
        (f + "in_macros", "quote!"),
        (f + "run", "g"),
    ]
    assert rf.calls_builtin == 2  # n.children.iter(), n.children.first()


IMPLS = {
    "Cargo.toml": '[package]\nname = "impls"\n',
    "src/lib.rs": """
        use std::fmt;

        pub struct V;
        pub trait Show {
            fn show(&self) -> String;
            fn twice(&self) -> String;
        }
        impl Show for V {
            fn show(&self) -> String {
                String::new()
            }
            fn twice(&self) -> String {
                self.show()
            }
        }
        impl Show for &V {
            fn show(&self) -> String {
                String::new()
            }
            fn twice(&self) -> String {
                self.show()
            }
        }
        impl fmt::Display for V {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(&self.show())
            }
        }
        impl Default for V {
            fn default() -> Self {
                V
            }
        }
        pub fn use_it(v: V) -> String {
            v.show()
        }
        """,
}


def test_several_impls_of_one_type():
    rf = _project(IMPLS).resolve_file("src/lib.rs")
    f = "src/lib.rs::"
    assert {(s, d) for s, d, _, _ in _edges(rf, "IMPLEMENTS")} == {
        (f + "V", f + "Show"),
        (f + "V", "<external>::std::fmt::Display"),
        (f + "V", "<external>::std::default::Default"),  # a prelude trait, by its std path
    }
    assert {s.uid for s in rf.symbols if s.uid.startswith(f + "V.")} == {
        f + "V.show",
        f + "V.show#2",
        f + "V.twice",
        f + "V.twice#2",
        f + "V.fmt",
        f + "V.default",
    }
    assert _edges(rf, "CALLS") == {
        # self.show() is the show of the same impl block
        (f + "V.twice", f + "V.show", 0.9, "self"),
        (f + "V.twice#2", f + "V.show#2", 0.9, "self"),
        # `self` is a V in Display's fmt: both impls of Show have a show for V
        (f + "V.fmt", f + "V.show", 0.7, "dispatch"),
        (f + "V.fmt", f + "V.show#2", 0.7, "dispatch"),
        (f + "V.fmt", "<external>::std::fmt::Formatter::write_str", 0.8, "local-type"),
        (f + "use_it", f + "V.show", 0.7, "dispatch"),
        (f + "use_it", f + "V.show#2", 0.7, "dispatch"),
    }


def test_module_tree_from_mod_declarations_paths_and_cargo_targets():
    from codeimpact.indexer.lang.rust.crates import module_tree

    files = {
        "Cargo.toml": '[package]\nname = "my-tool"\n[lib]\nname = "toolkit"\n',
        "src/lib.rs": 'pub mod a;\nmod inline { pub mod deep; }\n#[path = "gen/out.rs"]\nmod generated;\n',
        "src/a.rs": "pub mod b;\n",  # a non-mod-rs file: its children are in src/a/
        "src/a/b.rs": "pub fn f() {}\n",
        "src/inline/deep.rs": "pub fn g() {}\n",
        "src/gen/out.rs": "pub fn h() {}\n",
        "src/bin/extra.rs": "fn main() {}\n",
        "src/main.rs": "fn main() {}\n",
        "src/unreached/thing.rs": "pub fn lost() {}\n",
        "examples/demo/main.rs": "fn main() {}\n",
    }
    facts = {p: extract(t.encode()) for p, t in files.items() if p.endswith(".rs")}
    tree = module_tree(facts, {"Cargo.toml": files["Cargo.toml"]})
    assert tree.libs == {"toolkit": "src/lib.rs"}
    assert {p: (m.crate, m.segs, m.root) for p, m in tree.modules.items()} == {
        "src/lib.rs": ("toolkit", (), "src/lib.rs"),  # [lib] name
        "src/a.rs": ("toolkit", ("a",), "src/lib.rs"),
        "src/a/b.rs": ("toolkit", ("a", "b"), "src/lib.rs"),
        "src/inline/deep.rs": ("toolkit", ("inline", "deep"), "src/lib.rs"),
        "src/gen/out.rs": ("toolkit", ("generated",), "src/lib.rs"),  # #[path]
        "src/bin/extra.rs": ("extra", (), "src/bin/extra.rs"),
        "src/main.rs": ("my_tool", (), "src/main.rs"),  # the package name, - as _
        "src/unreached/thing.rs": ("toolkit", ("unreached", "thing"), "src/lib.rs"),
        "examples/demo/main.rs": ("demo", (), "examples/demo/main.rs"),
    }
    assert tree.modules["src/a/b.rs"].parent == ("src/a.rs", "")
    assert tree.modules["src/inline/deep.rs"].parent == ("src/lib.rs", "inline")


# ---------------------------------------------------------------- incremental == full
def _graph(repo) -> dict:
    rels = ("CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES", "CONTAINS")
    return {
        "symbols": symbols(repo),
        "tests": _test_flags(repo),
        **{rel: edges(repo, rel) for rel in rels},
    }


def _incremental_matches_full(make_repo, index_repo, files: dict, edit: dict) -> None:
    from conftest import edited_and_fresh

    repo, report, fresh, full = edited_and_fresh(make_repo, index_repo, files, edit)
    assert _graph(repo) == _graph(fresh)
    assert report.calls == full.calls


def test_incremental_equals_full_after_a_new_impl_in_a_new_file(make_repo, index_repo):
    # a new implementation of Store: `&dyn Store` callers gain a dispatch edge, the new file
    # owns Cloud's IMPLEMENTS; Memory's field changes type, so `m.primary.label()` changes
    base = {
        **CALL_CRATE,
        "src/lib.rs": "pub mod model;\npub mod service;\npub mod cloud;\npub mod more;\n",
        "src/cloud.rs": "",
        **{f"src/more/m{i}.rs": f"pub fn f{i}() {{}}\n" for i in range(4)},
        "src/more/mod.rs": "".join(f"pub mod m{i};\n" for i in range(4)),
    }
    edit = {
        "src/cloud.rs": """
            use crate::model::{Item, Store};
            pub struct Cloud;
            impl Store for Cloud {
                fn get(&self, _key: u32) -> Option<Item> {
                    None
                }
                fn size(&self) -> usize {
                    2
                }
            }
            """,
        "src/model.rs": CALL_CRATE["src/model.rs"].replace(
            "pub primary: Item", "pub primary: Disk"
        ),
    }
    _incremental_matches_full(make_repo, index_repo, base, edit)


def test_incremental_equals_full_when_a_module_becomes_test_only(make_repo, index_repo):
    edit = {"core/src/lib.rs": "#[cfg(test)]\npub mod parse;\n#[cfg(test)]\nmod tests;\n"}
    _incremental_matches_full(make_repo, index_repo, WORKSPACE, edit)


def test_a_crate_enum_named_err_does_not_hide_the_prelude_value():
    rf = _project(
        {
            "Cargo.toml": '[package]\nname = "p"\n',
            "src/lib.rs": """
                pub enum Err {
                    Incomplete(u32),
                }
                pub fn parse() -> Result<(), Err> {
                    Err(Err::Incomplete(1))
                }
                """,
        }
    ).resolve_file("src/lib.rs")
    # Err(...) is the prelude's Result::Err (a value); Err::Incomplete is the crate's enum
    assert _edges(rf, "CALLS") == {("src/lib.rs::parse", "src/lib.rs::Err", 0.8, "constructor")}
    assert (rf.calls_total, rf.calls_builtin, rf.unresolved) == (2, 1, [])
