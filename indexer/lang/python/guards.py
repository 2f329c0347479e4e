"""Python imports that do not run when their module is imported: those under
`if TYPE_CHECKING:` and `if __name__ == "__main__":` (extra["guarded_imports"])."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import FileFacts

# Statements whose blocks may hold an import that runs when the module loads (not functions:
# their imports run when called, which `graph cycles` tells by the import's scope).
_HOLDS_STATEMENTS = ("module", "block", "if_statement", "elif_clause", "else_clause",
                     "class_definition", "decorated_definition", "try_statement",
                     "except_clause", "finally_clause", "with_statement",
                     "for_statement", "while_statement")  # fmt: skip


def _guarded_imports(root: ts.Node, source: bytes, facts: FileFacts) -> None:
    """extra["guarded_imports"]: `[[line, kind], ...]` for the imports that do not run when
    the module is imported: `type_checking` under `if TYPE_CHECKING:` (only a type checker
    follows them), `main` under `if __name__ == "__main__":` (only a script run does).
    Only the `if` branch itself: an `else:` of such a block runs."""
    if not facts.imports or (b"TYPE_CHECKING" not in source and b"__main__" not in source):
        return
    spans: list[tuple[int, int, str]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "if_statement":
                kind = _guard_kind(child.child_by_field_name("condition"), source)
                body = child.child_by_field_name("consequence")
                if kind and body is not None:
                    spans.append((body.start_point[0] + 1, body.end_point[0] + 1, kind))
            if child.type in _HOLDS_STATEMENTS:
                stack.append(child)
    guarded = sorted(
        {
            (imp.line, kind)
            for imp in facts.imports
            for first, last, kind in spans
            if first <= imp.line <= last
        }
    )
    if guarded:
        facts.extra["guarded_imports"] = [list(g) for g in guarded]


def _guard_kind(cond: ts.Node | None, source: bytes) -> str | None:
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_children:
        cond = cond.named_children[0]
    if cond is None:
        return None
    text = source[cond.start_byte : cond.end_byte]
    if cond.type in ("identifier", "attribute") and text.rsplit(b".", 1)[-1].strip() == (
        b"TYPE_CHECKING"
    ):
        return "type_checking"
    if cond.type == "comparison_operator" and len(cond.named_children) == 2:
        ops = [c for c in cond.children if not c.is_named]
        sides = {source[c.start_byte : c.end_byte].strip(b"'\"") for c in cond.named_children}
        if len(ops) == 1 and ops[0].type == "==" and sides == {b"__name__", b"__main__"}:
            return "main"
    return None
