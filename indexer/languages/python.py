"""Python: tree-sitter queries -> FileFacts, and the module name of a path.

The queries (python.scm) do the matching in C; Python code here only walks the
matches. Scopes come from sorted body intervals, not from walking parents.
"""

from __future__ import annotations

import bisect
import re
from functools import cache
from pathlib import PurePosixPath

import tree_sitter as ts
from codeimpact.indexer.facts import (
    BindingFact,
    CallFact,
    FileFacts,
    HeritageFact,
    ImportFact,
    ReferenceFact,
    ReturnFact,
    SymbolFact,
)
from codeimpact.indexer.languages.base import LanguageSpec, load_query
from tree_sitter_language_pack import get_language, get_parser

NAME = "python"
EXTRACTOR_VERSION = 1

_CHAIN = re.compile(rb"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")
_CALL_ATTR = re.compile(
    rb"([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\((.*)\)\s*\.\s*([A-Za-z_]\w*)", re.S
)
_ANNOT_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
_WS = re.compile(rb"\s+")


@cache
def _query() -> ts.Query:
    return load_query(NAME, "python.scm")


def _chain(text: bytes) -> str | None:
    """`a.b.c` (whitespace allowed around dots) -> "a.b.c"; anything else -> None."""
    if _CHAIN.fullmatch(text):
        return _WS.sub(b"", text).decode()
    return None


def callee_chain(text: bytes) -> str | None:
    """The dotted form of a call's function, `super().m` and `Foo(x).m` included."""
    c = _chain(text)
    if c is not None:
        return c
    m = _CALL_ATTR.fullmatch(text)
    if m and b"(" not in m.group(2) and b")" not in m.group(2):
        return _WS.sub(b"", m.group(1)).decode() + "()." + m.group(3).decode()
    return None


class _Scopes:
    """Innermost enclosing definition of a byte offset, by binary search over intervals."""

    def __init__(self, intervals: list[tuple[int, int, str, int]]):
        # (start, end, local, parent index); intervals nest properly
        self.starts = [iv[0] for iv in intervals]
        self.intervals = intervals

    def at(self, pos: int) -> str:
        i = bisect.bisect_right(self.starts, pos) - 1
        while i >= 0:
            start, end, local, parent = self.intervals[i]
            if start <= pos < end:
                return local
            i = parent
        return ""


def _is_test_name(kind: str, name: str) -> bool:
    if kind in ("function", "method"):
        return name.startswith("test")
    if kind == "class":
        return name.startswith("Test")
    return False


def extract(source: bytes) -> FileFacts:
    tree = get_parser(NAME).parse(source)
    root = tree.root_node
    facts = FileFacts(
        language=NAME, lines=source.count(b"\n") + (0 if source.endswith(b"\n") else 1)
    )
    matches = ts.QueryCursor(_query()).matches(root)

    defs: list[tuple[ts.Node, ts.Node, ts.Node, str]] = []  # (def, name, body, kind)
    others: list[tuple[int, dict]] = []
    has_error = root.has_error
    for pattern, caps in matches:
        if pattern <= 1:
            defs.append(
                (
                    caps["class" if pattern == 0 else "function"][0],
                    caps["name"][0],
                    caps["body"][0],
                    "class" if pattern == 0 else "function",
                )
            )
        else:
            others.append((pattern, caps))
    defs.sort(key=lambda d: d[0].start_byte)

    # ---- definitions -------------------------------------------------------
    module_end = len(source)
    facts.symbols.append(
        SymbolFact(
            "",
            "module",
            "",
            1,
            max(1, root.end_point[0] + 1),
            0,
            module_end,
            "",
            True,
            False,
            (),
            (),
        )
    )
    kind_of: dict[str, str] = {"": "module"}
    body_iv: list[tuple[int, int, str, int]] = []
    full_iv: list[tuple[int, int, str, int]] = []
    stack: list[tuple[int, str, int]] = []  # (full end, local, interval index)
    seen: dict[str, int] = {}
    local_at_start: dict[int, str] = {}
    for node, name_node, body, kind in defs:
        start = node.start_byte
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent_local = stack[-1][1] if stack else ""
        parent_idx = stack[-1][2] if stack else -1
        name = name_node.text.decode()
        local = f"{parent_local}.{name}" if parent_local else name
        n = seen.get(local, 0) + 1
        seen[local] = n
        if n > 1:
            local = f"{local}#{n}"
        if kind == "function" and kind_of.get(parent_local) == "class":
            kind = "method"
        kind_of[local] = kind
        local_at_start[start] = local
        idx = len(body_iv)
        body_iv.append((body.start_byte, body.end_byte, local, parent_idx))
        full_iv.append((start, node.end_byte, local, parent_idx))
        stack.append((node.end_byte, local, idx))
        params = _params(node, source) if kind != "class" else ()
        decorators = _decorators(node, source)
        sig_end = body.start_byte
        signature = (
            _WS.sub(b" ", source[start:sig_end])
            .decode(errors="replace")
            .strip()
            .rstrip(":")
            .strip()[:300]
        )
        facts.symbols.append(
            SymbolFact(
                local,
                kind,
                name,
                node.start_point[0] + 1,
                node.end_point[0] + 1,
                start,
                node.end_byte,
                signature,
                not name.startswith("_") or (name.startswith("__") and name.endswith("__")),
                _is_test_name(kind, name),
                params,
                decorators,
            )
        )
        if kind == "class":
            _heritage(node, local, source, facts)
    # body_iv is in start order already (defs sorted, bodies start after their def)
    scopes = _Scopes(body_iv)
    sig_scopes = _Scopes(full_iv)

    # decorator calls run for the decorated definition
    decorator_call_scope: dict[int, str] = {}
    module_vars: set[str] = set()
    for pattern, caps in others:
        if pattern == 2:
            dec = caps["decorator"][0]
            target = dec.parent.child_by_field_name("definition") if dec.parent else None
            scope = (
                local_at_start.get(target.start_byte, "") if target else scopes.at(dec.start_byte)
            )
            expr = dec.named_children[0] if dec.named_children else None
            if expr is None:
                continue
            if expr.type == "call":
                decorator_call_scope[expr.start_byte] = scope
            else:
                chain = _chain(source[expr.start_byte : expr.end_byte])
                if chain:
                    facts.calls.append(
                        CallFact(scope, chain, expr.start_point[0] + 1, "decorator", ())
                    )

    for pattern, caps in others:
        if pattern == 3:  # call
            call = caps["call"][0]
            fn = caps["callee"][0]
            scope = decorator_call_scope.get(call.start_byte)
            kind = "decorator" if scope is not None else "call"
            if scope is None:
                scope = scopes.at(call.start_byte)
            text = source[fn.start_byte : fn.end_byte]
            chain = callee_chain(text)
            if chain is None:
                # keep the name so the site is counted as unresolved, never guessed
                m = re.search(rb"([A-Za-z_]\w*)\s*$", text)
                chain = "?." + m.group(1).decode() if m else "?"
            facts.calls.append(
                CallFact(
                    scope, chain, call.start_point[0] + 1, kind, _args(caps["args"][0], source)
                )
            )
        elif pattern in (4, 5, 6):
            node = caps.get("import") or caps.get("import_from") or caps.get("import_future")
            _imports(node[0], pattern, scopes.at(node[0].start_byte), source, facts)
        elif pattern == 7:
            node = caps["assign"][0]
            lhs, rhs = caps["lhs"][0], caps["rhs"][0]
            scope = scopes.at(node.start_byte)
            _assignment(scope, lhs, rhs, node, source, facts, kind_of, module_vars)
        elif pattern == 8:
            node = caps["annassign"][0]
            lhs = caps["lhs"][0]
            scope = scopes.at(node.start_byte)
            if scope == "" and lhs.type == "identifier":
                _module_var(lhs.text.decode(), node, source, facts, module_vars)
        elif pattern == 9:
            node = caps["value"][0]
            scope = scopes.at(node.start_byte)
            if kind_of.get(scope) in ("function", "method"):
                text = source[node.start_byte : node.end_byte]
                if node.type == "call":
                    fn = node.child_by_field_name("function")
                    chain = _chain(source[fn.start_byte : fn.end_byte]) if fn else None
                    if chain:
                        facts.returns.append(
                            ReturnFact(scope, chain, True, node.start_point[0] + 1)
                        )
                else:
                    chain = _chain(text)
                    if chain:
                        facts.returns.append(
                            ReturnFact(scope, chain, False, node.start_point[0] + 1)
                        )
        elif pattern == 10:
            node = caps["annotation"][0]
            scope = sig_scopes.at(node.start_byte)
            text = source[node.start_byte : node.end_byte].decode(errors="replace")
            line = node.start_point[0] + 1
            for name in _ANNOT_NAME.findall(text):
                if name not in _ANNOTATION_NOISE:
                    facts.references.append(ReferenceFact(scope, name, line, "annotation"))
        elif pattern == 11:
            has_error = True
    if has_error:
        facts.status = "partial"
        err = _first_error(root)
        facts.error = f"syntax error at line {err}" if err else "syntax error"
    return facts


_ANNOTATION_NOISE = frozenset(
    [
        "None",
        "int",
        "str",
        "bytes",
        "float",
        "bool",
        "complex",
        "object",
        "list",
        "dict",
        "set",
        "tuple",
        "frozenset",
        "type",
        "Any",
        "Optional",
        "Union",
        "List",
        "Dict",
        "Set",
        "Tuple",
        "Type",
        "Callable",
        "Iterable",
        "Iterator",
        "Sequence",
        "Mapping",
        "typing",
        "Literal",
        "ClassVar",
        "Final",
    ]
)


def _first_error(root: ts.Node) -> int | None:
    cursor = ts.QueryCursor(load_query(NAME, None, "(ERROR) @e (MISSING) @m"))
    caps = cursor.captures(root)
    lines = [n.start_point[0] + 1 for nodes in caps.values() for n in nodes]
    if not lines and root.has_error:
        # MISSING nodes are not always matched by the query
        return None
    return min(lines) if lines else None


def _params(node: ts.Node, source: bytes) -> tuple:
    params = node.child_by_field_name("parameters")
    out = []
    if params is None:
        return ()
    for p in params.named_children:
        t = p.type
        if t == "identifier":
            out.append((p.text.decode(), ""))
        elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name = p.child_by_field_name("name")
            if name is None:
                name = next((c for c in p.named_children if c.type == "identifier"), None)
            typ = p.child_by_field_name("type")
            ann = ""
            if typ is not None:
                ann = _chain(source[typ.start_byte : typ.end_byte].strip(b"'\"")) or ""
            if name is not None and name.type == "identifier":
                out.append((name.text.decode(), ann))
        elif t in ("list_splat_pattern", "dictionary_splat_pattern"):
            inner = p.named_children[0] if p.named_children else None
            if inner is not None and inner.type == "identifier":
                out.append(("*" + inner.text.decode(), ""))
    return tuple(out)


def _decorators(node: ts.Node, source: bytes) -> tuple:
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return ()
    out = []
    for dec in parent.named_children:
        if dec.type == "decorator" and dec.named_children:
            expr = dec.named_children[0]
            if expr.type == "call":
                expr = expr.child_by_field_name("function") or expr
            chain = _chain(source[expr.start_byte : expr.end_byte])
            if chain:
                out.append(chain)
    return tuple(out)


def _heritage(node: ts.Node, local: str, source: bytes, facts: FileFacts) -> None:
    supers = node.child_by_field_name("superclasses")
    if supers is None:
        return
    for arg in supers.named_children:
        if arg.type == "keyword_argument":
            continue
        if arg.type == "subscript":  # Generic[T], Base[int]
            arg = arg.child_by_field_name("value") or arg
        chain = _chain(source[arg.start_byte : arg.end_byte])
        if chain:
            facts.heritage.append(HeritageFact(local, chain, arg.start_point[0] + 1, "extends"))


def _args(args: ts.Node, source: bytes) -> tuple:
    if args.type != "argument_list":
        return ()
    out = []
    pos = 0
    for a in args.named_children:
        t = a.type
        if t in ("identifier", "attribute"):
            chain = _chain(source[a.start_byte : a.end_byte])
            if chain:
                out.append((pos, chain))
            pos += 1
        elif t == "keyword_argument":
            name = a.child_by_field_name("name")
            value = a.child_by_field_name("value")
            if name is not None and value is not None and value.type in ("identifier", "attribute"):
                chain = _chain(source[value.start_byte : value.end_byte])
                if chain:
                    out.append((name.text.decode(), chain))
        elif t in ("list_splat", "dictionary_splat"):
            pos += 1
        else:
            pos += 1
    return tuple(out)


def _imports(node: ts.Node, pattern: int, scope: str, source: bytes, facts: FileFacts) -> None:
    line = node.start_point[0] + 1
    if pattern == 4:  # import a.b [as c], ...
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                facts.imports.append(
                    ImportFact(scope, name.text.decode(), 0, "", alias.text.decode(), line)
                )
            else:
                facts.imports.append(ImportFact(scope, child.text.decode(), 0, "", "", line))
        return
    if pattern == 6:
        return  # from __future__ import ...: no dependency
    mod = node.child_by_field_name("module_name")
    level = 0
    module = ""
    if mod is not None:
        if mod.type == "relative_import":
            for c in mod.children:
                if c.type == "import_prefix":
                    level = c.end_byte - c.start_byte
                elif c.type == "dotted_name":
                    module = c.text.decode()
        else:
            module = mod.text.decode()
    names = node.children_by_field_name("name")
    if not names:
        if any(c.type == "wildcard_import" for c in node.children):
            facts.imports.append(ImportFact(scope, module, level, "*", "", line))
        return
    for child in names:
        if child.type == "aliased_import":
            name = child.child_by_field_name("name")
            alias = child.child_by_field_name("alias")
            facts.imports.append(
                ImportFact(scope, module, level, name.text.decode(), alias.text.decode(), line)
            )
        else:
            facts.imports.append(ImportFact(scope, module, level, child.text.decode(), "", line))


def _module_var(name: str, node: ts.Node, source: bytes, facts: FileFacts, seen: set[str]) -> None:
    if name in seen:
        return
    seen.add(name)
    stmt = (
        node.parent
        if node.parent is not None and node.parent.type == "expression_statement"
        else node
    )
    first_line = source[stmt.start_byte : stmt.end_byte].split(b"\n", 1)[0]
    facts.symbols.append(
        SymbolFact(
            name,
            "variable",
            name,
            stmt.start_point[0] + 1,
            stmt.end_point[0] + 1,
            stmt.start_byte,
            stmt.end_byte,
            first_line.decode(errors="replace").strip()[:300],
            not name.startswith("_"),
            False,
            (),
            (),
        )
    )


def _assignment(scope, lhs, rhs, node, source, facts, kind_of, module_vars) -> None:
    line = node.start_point[0] + 1
    targets: list[ts.Node]
    if lhs.type in ("pattern_list", "tuple_pattern"):
        targets = [c for c in lhs.named_children if c.type == "identifier"]
        if scope == "":
            for t in targets:
                _module_var(t.text.decode(), node, source, facts, module_vars)
        return  # unpacking: no single value to bind
    if lhs.type == "identifier":
        name = lhs.text.decode()
        if scope == "" and kind_of.get(scope) == "module":
            _module_var(name, node, source, facts, module_vars)
    elif lhs.type == "attribute":
        name = _chain(source[lhs.start_byte : lhs.end_byte])
        if not name or not name.startswith("self.") or name.count(".") != 1:
            return
    else:
        return
    if rhs.type == "call":
        fn = rhs.child_by_field_name("function")
        chain = callee_chain(source[fn.start_byte : fn.end_byte]) if fn else None
        if chain:
            facts.bindings.append(BindingFact(scope, name, chain, True, line))
    elif rhs.type in ("identifier", "attribute"):
        chain = _chain(source[rhs.start_byte : rhs.end_byte])
        if chain:
            facts.bindings.append(BindingFact(scope, name, chain, False, line))
            if kind_of.get(scope) in ("function", "method", "module", "class"):
                facts.references.append(ReferenceFact(scope, chain, line, "value"))


_TEST_DIRS = frozenset({"tests", "test", "testing"})


def is_test_path(path: str) -> bool:
    p = PurePosixPath(path)
    name = p.name
    if (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or name == "tests.py"
    ):
        return True
    return any(part in _TEST_DIRS for part in p.parts[:-1])


def module_name(path: str, package_dirs: frozenset[str]) -> str:
    """Dotted module of a .py path; the source root is the first folder up that is no package.

    `package_dirs` holds every folder (posix, relative) that has an `__init__.py`.
    """
    p = PurePosixPath(path)
    parts = list(p.parts)
    stem = p.stem if p.suffix in (".py", ".pyi") else p.name
    mod_parts = [] if stem == "__init__" else [stem]
    folder = p.parent
    while str(folder) not in (".", "") and str(folder) in package_dirs:
        mod_parts.insert(0, folder.name)
        folder = folder.parent
    del parts
    return ".".join(mod_parts)


SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".py", ".pyi"),
    extractor_version=EXTRACTOR_VERSION,
    extract=extract,
    is_test_path=is_test_path,
    resolver="codeimpact.indexer.languages.python_resolve:PythonProject",
)

__all__ = ["SPEC", "extract", "module_name", "is_test_path", "callee_chain", "get_language"]
