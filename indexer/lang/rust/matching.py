"""What both passes of Rust's extraction read (extract.py's definitions, sites.py's call
sites): the queries' matches by this package's kinds, the innermost definition at a byte
offset, and the macro words that decide whether a macro's arguments are code."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.queries import query_runner
from codeimpact.indexer.lang.rust.syntax import words
from codeimpact.native.runner import QueryRunner

NAME = "rust"

# Standard macros whose arguments are expressions: their token trees are parsed again.
EXPR_MACROS = words(
    """assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne print println
    eprint eprintln format format_args write writeln panic unreachable todo unimplemented dbg
    vec matches"""
)
# Macros of ubiquitous crates (log, tracing, anyhow, eyre) whose arguments are expressions too.
FORMAT_MACROS = words("trace debug info warn error event bail ensure anyhow format_err eyre")
# Standard macros whose arguments are not evaluated code.
INERT_MACROS = words(
    """stringify concat concat_idents include include_str include_bytes env option_env cfg
    compile_error module_path file line column"""
)
CLOSURE = "|closure|"  # the value of a binding to a closure (no chain)
MACROS = "!macros"  # the scope of the bindings that record `macro_rules!` names


# the queries' constructs -> the kinds of definitions (extract.py's _DEFS) and sites; a module
# without a body (`mod m;`) is the site "mod_decl"
KIND_OF = {
    "definition.function": "function",
    "definition.struct": "struct",
    "definition.enum": "enum",
    "definition.trait": "trait",
    "definition.type_alias": "type_alias",
    "definition.module": "module",
    "definition.variable": "variable",
    "definition.implementation": "impl",
    "definition.macro": "macro_def",
    "import": "use",
    "import.crate": "extern_crate",
    "attribute": "inner_attribute",
    "reference.call": "call",
    "reference.new": "struct_literal",
    "reference.macro": "macro",
    "reference.type": "typeref",
    "binding.local": "let",
    "binding.iteration": "for",
    "binding.pattern": "if_let",
}


def runner() -> QueryRunner:
    return query_runner(NAME, __package__, "queries.scm")


def matches(root: ts.Node) -> list[tuple[str, ts.Node, dict]]:
    """(kind, the construct's node, captures) per match."""
    out = []
    for construct, caps in runner().matches(root):
        node = caps[construct]
        kind = KIND_OF[construct]
        if kind == "module" and node.child_by_field_name("body") is None:
            kind = "mod_decl"
        out.append((kind, node, caps))
    return out
