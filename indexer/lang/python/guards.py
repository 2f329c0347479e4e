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


# The handlers of a `try` that catch a failed import (a bare `except:` catches it too).
_IMPORT_ERRORS = (b"ImportError", b"ModuleNotFoundError", b"Exception")


def _alternative_imports(root: ts.Node, source: bytes, facts: FileFacts) -> None:
    """extra["alt_imports"]: the lines of imports binding a name that another import binds
    in another branch of the same `try` (its body and a handler catching ImportError) or
    `if` (its branches): which one runs depends on the environment, so a use of the name
    may reach either (names.py). Only names imported twice in one scope are looked at,
    which few files have."""
    seen: dict[tuple[str, str], int] = {}
    twice: set[int] = set()
    for imp in facts.imports:
        if imp.name == "*":
            continue
        key = (imp.scope, imp.alias or imp.name or imp.module.split(".", 1)[0])
        first = seen.setdefault(key, imp.line)
        if first != imp.line:
            twice.update((first, imp.line))
    if not twice:
        return
    # each import line's branches: (the try/if statement, which branch) from the root down
    paths: dict[int, list[tuple[int, int]]] = {line: [] for line in twice}
    stack: list[tuple[ts.Node, list[int]]] = [(root, sorted(twice))]
    while stack:
        node, lines = stack.pop()
        for child in node.named_children:
            first, last = child.start_point[0] + 1, child.end_point[0] + 1
            inside = [line for line in lines if first <= line <= last]
            if not inside:
                continue
            branches = _branches(child, source)
            if branches is None:
                stack.append((child, inside))
                continue
            for index, branch in enumerate(branches):
                bf, bl = branch.start_point[0] + 1, branch.end_point[0] + 1
                held = [line for line in inside if bf <= line <= bl]
                for line in held:
                    paths[line].append((child.id, index))
                if held:
                    stack.append((branch, held))
    alt = sorted(
        line
        for line in twice
        for other in twice
        if other != line and _split(paths[line], paths[other])
    )
    if alt:
        facts.extra["alt_imports"] = sorted(set(alt))


def _branches(node: ts.Node, source: bytes) -> list[ts.Node] | None:
    """The branches of a `try` (body, handlers catching an import error) or an `if` (body,
    elif and else clauses); None for any other node."""
    if node.type == "try_statement":
        out = [node.child_by_field_name("body")]
        for clause in node.named_children:
            if clause.type == "except_clause":
                caught = [c for c in clause.named_children if c.type != "block"]
                text = b" ".join(source[c.start_byte : c.end_byte] for c in caught)
                if not caught or any(e in text for e in _IMPORT_ERRORS):
                    out.append(clause)
        return [b for b in out if b is not None]
    if node.type == "if_statement":
        out = [node.child_by_field_name("consequence")]
        out += [c for c in node.named_children if c.type in ("elif_clause", "else_clause")]
        return [b for b in out if b is not None]
    return None


def _split(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    """Whether two branch paths part at some statement: the same try/if, another branch."""
    branch_of = dict(a)
    return any(node in branch_of and branch_of[node] != index for node, index in b)
