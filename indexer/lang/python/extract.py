"""Python: tree-sitter queries -> FileFacts, and the module name of a path.

The queries (queries.scm) are in the shared capture vocabulary (native/vocabulary.py);
`_query_facts` makes the facts from their matches. When the native path runs
(native/runner.py: the extension is built for the installed tree-sitter and not switched
off), the native fact engine (native/facts.c) does all of it instead, by the same rules,
given this module's node roles and options (`RULES`) and its hooks: the chains from this
module's cached `_chain` and `callee_chain`, the local scopes of comprehensions and
lambdas, and `_other` for the rarer constructs, with Node objects in match order. The query
path is the fallback and the reference (`extract(source, native=False)`); tests compare the
two blob for blob. Scopes come from sorted body intervals, not from walking parents.

Expressions are stored as chains (see lang/api.py), extended for Python with two
step suffixes: `()` for the result of a call and `[]` for an item of a
subscript (`super().save`, `self.tags[].to_python`, `errorhandler()` for a
call of what a call returned). Bindings carry Python-specific value forms the
resolver understands:

- `chain`: `x = chain` (an alias), or `x = chain(...)` when `is_call` is set;
- `ann:TYPE`: a declared type (`x: TYPE`, `x: TYPE = ...`), TYPE being the
  annotation's text without whitespace (`list[JSONTag]`, `Flask|None`);
- `iter:N:chain`: an element of iterating `chain` (`for x in chain`, comprehensions
  too, whose variables are named `x$<start byte of the comprehension>` so that they
  bind inside it only), N being the position of the name in a tuple target (`for a, b in ...`), -1
  for a plain name;
- `enter:chain`: what `__enter__` returns (`with chain(...) as x`); `aenter:chain` for
  `async with`. Every `with` item is such a binding: one without `as x` (or whose target
  is a pattern) has the name "" and binds nothing, but says that the manager is entered;
- `set:chain`: an assignment to the member `chain` (`obj.attr = v`), name "": a property's
  setter or a descriptor's `__set__` may run.

A `yield` is a ReturnFact whose value is `yield:chain` (an item of the generator, read by
pytest's yield fixtures: fixtures.py), kept apart from what a call returns (index.py).

Annotations of parameters are kept as TYPE text too, and a return annotation
is a ReturnFact whose value is `ann:TYPE`. `extra["all"]` holds a module's
literal `__all__` (the names `from m import *` binds).
"""

from __future__ import annotations

import bisect
import re
import threading
from functools import cache

import tree_sitter as ts
from tree_sitter_language_pack import get_language, get_parser

from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    HeritageFact,
    ImportFact,
    ReferenceFact,
    ReturnFact,
    SymbolFact,
)
from codeimpact.indexer.lang.python.bindings import (
    _annotated,
    _assignment,
    _bind_value,
    _exports,
    _for_binding,
    _LocalScopes,
    _member_assignment,
    _with_binding,
)
from codeimpact.indexer.lang.python.chains import _chain, _named, callee_chain, type_text
from codeimpact.indexer.lang.python.items import item_facts
from codeimpact.indexer.lang.python.parametrize import parametrize_facts
from codeimpact.indexer.lang.queries import load_query, query_runner, query_text
from codeimpact.native.facts import FactRules, fact_engine
from codeimpact.native.runner import QueryRunner

NAME = "python"
# 2: namespace subpackages in module names, `()`/`[]` chain steps, generic calls (`A[int]()`),
#    declared types (ann:), for-loop and walrus bindings, return annotations, extra["all"].
#    3: decorated definitions start at their first decorator; module spans end at the last line.
#    4: `with ... as x` (enter:) and comprehension (iter:) bindings.
#    5: comprehension variables renamed `x$<start>`; calls on lambda parameters unresolved.
#    6: extra["guarded_imports"]: imports under `if TYPE_CHECKING:` / `if __name__ == "__main__":`.
#    7: a decorator that is a call is marked `()` in SymbolFact.decorators (`app.route()`).
#    8: CallFact.literals (`usefixtures("db")`, `autouse=True`); `yield:` returns (yield values).
#    9: `cls.x = ...` binds `self.x` (a classmethod's class attribute: unittest's setUpClass).
#   10: every `with` item is a binding (name "" without `as` or with a pattern target), so the
#       resolver sees the context managers entered; `async with` binds `aenter:`; an
#       assignment to a member is a binding `set:chain` named "" (a setter may run).
#   11: binding.item: literal collections (lit:, item:K:v), `x[k] = v` (x[]), unpacking (at:N:).
#   12: pytest's parametrize values and fixture params as `param:` bindings (parametrize.py).
#   13: reference.member: a member read as a value that no other fact reads is a ReferenceFact
#       of kind `read` (`if obj.p:`, `f"{obj.p}"`, `obj.p == 1`): a getter may run.
EXTRACTOR_VERSION = 13

_ANNOT_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")


def _runner() -> QueryRunner:
    """queries.scm for the query path: py-tree-sitter's QueryCursor (the reference)."""
    return query_runner(NAME, __package__, "queries.scm", native=False)


@cache
def _engine():
    """The native fact engine over queries.scm, or None when the native path does not run."""
    return fact_engine(
        get_language(NAME), query_text(__package__, "queries.scm"), RULES, _HOOKS, _TYPES
    )


_THREAD = threading.local()


def _parser() -> ts.Parser:
    """This thread's parser: making one per file showed in profiles, sharing one across
    threads is unsafe."""
    parser = getattr(_THREAD, "parser", None)
    if parser is None:
        parser = _THREAD.parser = get_parser(NAME)
    return parser


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


def extract(source: bytes, *, native: bool = True) -> FileFacts:
    """The facts of one file. `native=False` forces the query path (the reference, which
    tests compare the native extraction with)."""
    return facts_of_tree(_parser().parse(source).root_node, source, native=native)


def facts_of_tree(root: ts.Node, source: bytes, *, native: bool = True) -> FileFacts:
    """`extract` of the tree parsed from `source` (tests run both paths over one parse)."""
    facts = FileFacts(
        language=NAME,
        lines=source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0),
    )
    facts.symbols.append(
        SymbolFact(
            "", "module", "", 1, max(1, facts.lines), 0, len(source), "", True, False, (), ()
        )
    )
    # The native engine makes the facts in C, as the code below does from the query's
    # matches: Node objects and Python per match were most of the cost of extraction beyond
    # the parse. It hands the rarer constructs to `_other`.
    engine = _engine() if native and type(source) is bytes else None
    error_line = engine.facts(root, source, facts, set()) if engine is not None else None
    if error_line is None:
        _query_facts(root, source, facts)
    _guarded_imports(root, source, facts)
    if root.has_error:  # ERROR or MISSING nodes anywhere
        facts.status = "partial"
        err = _first_error(root) if error_line is None else error_line
        facts.error = f"syntax error at line {err}" if err else "syntax error"
    return facts


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


def _query_facts(root: ts.Node, source: bytes, facts: FileFacts) -> None:
    """The facts after the module symbol, from the query's matches. The native fact engine
    (native/facts.c) makes the same by the same rules, object for object."""
    defs: list[tuple[ts.Node, ts.Node, ts.Node, str]] = []  # (def, name, body, kind)
    others: list[tuple[str, dict]] = []
    decorator_nodes: list[ts.Node] = []
    local_matches: list[tuple[str, dict]] = []  # comprehensions and lambdas
    for construct, caps in _runner().matches(root):
        if construct in _DEFINITIONS:
            node = caps[construct]
            defs.append((node, caps["name"], caps["body"], _DEFINITIONS[construct]))
        elif construct == "decorator":
            decorator_nodes.append(caps[construct])
        elif construct == "scope.lambda":
            local_matches.append((construct, caps))
        else:
            others.append((construct, caps))
            if construct == "binding.comprehension":
                local_matches.append((construct, caps))
    defs.sort(key=lambda d: d[0].start_byte)

    # ---- definitions -------------------------------------------------------
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
        # the span of a decorated definition includes its decorators (editing one edits it)
        parent = node.parent
        outer = parent if parent is not None and parent.type == DECORATED else node
        decorators = _decorators(outer, source) if outer is not node else ()
        signature = (
            b" ".join(source[start : body.start_byte].split())  # runs of \s as one space
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
                outer.start_point[0] + 1,
                node.end_point[0] + 1,
                outer.start_byte,
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
        else:
            rtype = node.child_by_field_name("return_type")
            if rtype is not None:
                t = type_text(source[rtype.start_byte : rtype.end_byte])
                if t and t != "None":
                    facts.returns.append(
                        ReturnFact(local, "ann:" + t, False, rtype.start_point[0] + 1)
                    )
    # body_iv is in start order already (defs sorted, bodies start after their def)
    scopes = _Scopes(body_iv)
    sig_scopes = _Scopes(full_iv)

    # Decorators, and the calls in their arguments, count for the decorated definition
    # (kind "decorator": the resolver looks their names up where the definition stands).
    dec_iv: list[tuple[int, int, str]] = []  # (start, end, decorated local), disjoint
    module_vars: set[str] = set()
    for dec in decorator_nodes:
        target = dec.parent.child_by_field_name("definition") if dec.parent else None
        scope = local_at_start.get(target.start_byte, "") if target else scopes.at(dec.start_byte)
        expr = dec.named_child(0)
        if expr is None:
            continue
        dec_iv.append((dec.start_byte, dec.end_byte, scope))
        if expr.type != "call":
            chain = callee_chain(source[expr.start_byte : expr.end_byte])
            if chain:
                line = expr.start_point[0] + 1
                facts.calls.append(CallFact(scope, chain, line, "decorator", (), ()))
    dec_iv.sort()
    dec_starts = [d[0] for d in dec_iv]
    local_scopes = _LocalScopes(local_matches)

    def call_fact(start: int, end: int, line: int, args: tuple, literals: tuple) -> CallFact:
        """The call whose callee spans source[start:end] (the call starts there too), on
        `line`."""
        kind = "call"
        scope = None
        if dec_iv:
            i = bisect.bisect_right(dec_starts, start) - 1
            if i >= 0 and start < dec_iv[i][1]:
                scope, kind = dec_iv[i][2], "decorator"
        if scope is None:
            scope = scopes.at(start)
        text = source[start:end]
        chain = callee_chain(text)
        if chain is not None and local_scopes:
            chain = local_scopes.rename(chain, start)
        if chain is None:
            # keep the name so the site is counted as unresolved, never guessed
            m = re.search(rb"([A-Za-z_]\w*)\s*$", text)
            chain = "?." + m.group(1).decode() if m else "?"
        return CallFact(scope, chain, line, kind, args, literals)

    member = (-1, -1)  # the last member read examined (native/facts_bind.c member_read)
    for construct, caps in others:
        node = caps[construct]
        if construct == "reference.call":
            args, literals = _args(caps["arguments"], source)
            fn = caps["callee"]
            line = fn.start_point[0] + 1
            facts.calls.append(call_fact(fn.start_byte, fn.end_byte, line, args, literals))
        elif construct in ("import", "import.from"):
            _imports(node, construct, scopes.at(node.start_byte), source, facts)
        elif construct == "assignment":
            scope = scopes.at(node.start_byte)
            _assignment(scope, caps["left"], caps["right"], node, source, facts, module_vars)
        elif construct == "return":
            node = caps["value"]
            scope = scopes.at(node.start_byte)
            if kind_of.get(scope) in ("function", "method"):
                _returned(scope, node, "", source, facts)
        elif construct == "reference.member":
            # a member at the start of the one before it is inside its chain, which reads it
            if node.start_byte == member[0] and node.end_byte < member[1]:
                continue
            member = node.start_byte, node.end_byte
            if not _read_elsewhere(node):
                _member_read(node, source, scopes.at(node.start_byte), local_scopes, facts)
        else:
            # a type in a signature belongs to the definition it is written in
            iv = sig_scopes if construct == "reference.type" else scopes
            _other(
                facts, source, module_vars, local_scopes, construct, caps, iv.at(node.start_byte)
            )


# Roles of the parents under which a member is read by another fact (or not read): the
# operand of a longer chain, an argument, a decorator, a type.
_READ_BY_PARENT = frozenset(("attribute", "argument_list", "keyword_argument", "decorator", "type"))


def _read_elsewhere(node: ts.Node) -> bool:
    """Whether a member read as a value is read by no fact but its own `read` reference:
    not inside a longer chain, a call's callee (the call's chain reads it), an assignment's
    target (a setter runs) or the value a name is bound to (the binding's reference reads
    it), an argument (read with the call's), a decorator or a type."""
    # native/facts_bind.c (read_elsewhere) decides the same for the native path
    parent = node.parent
    if parent is None or parent.type in _READ_BY_PARENT:
        return True
    if parent.type == "call":
        return parent.child_by_field_name("function") == node
    if parent.type == "assignment":
        if parent.child_by_field_name("right") != node:
            return True
        left = parent.child_by_field_name("left")
        return left is not None and left.type == "identifier"
    return False


def _member_read(node: ts.Node, source: bytes, scope: str, local_scopes: _LocalScopes,
                 facts: FileFacts) -> None:  # fmt: skip
    """A member read as a value (`if obj.p:`, `f"{obj.p}"`, `obj.p + 1`): a `read`
    reference to its chain, renamed where a comprehension binds its head."""
    chain = callee_chain(source[node.start_byte : node.end_byte])
    if chain and local_scopes:
        chain = local_scopes.rename(chain, node.start_byte)
    if chain:
        facts.references.append(ReferenceFact(scope, chain, node.start_point[0] + 1, "read"))


def _returned(scope: str, node: ts.Node, prefix: str, source: bytes, facts: FileFacts) -> None:
    """The ReturnFact of a returned (or, `prefix` "yield:", a yielded) value: a call's callee
    chain with is_call, or the chain of a name; nothing for any other expression."""
    # native/facts_bind.c (return_fact) makes the same for a return on the native path
    line = node.start_point[0] + 1
    if node.type == "call":
        fn = node.child_by_field_name("function")
        chain = callee_chain(source[fn.start_byte : fn.end_byte]) if fn else None
        if chain:
            facts.returns.append(ReturnFact(scope, prefix + chain if prefix else chain, True, line))
    else:
        chain = _chain(source[node.start_byte : node.end_byte])
        if chain:
            facts.returns.append(
                ReturnFact(scope, prefix + chain if prefix else chain, False, line)
            )


# queries.scm's definition constructs -> the kind of their symbols (a function in a class is
# a method)
_DEFINITIONS = {"definition.class": "class", "definition.function": "function"}


def _other(facts: FileFacts, source: bytes, module_vars: set[str], local_scopes: _LocalScopes,
           construct: str, caps: dict, scope: str) -> None:  # fmt: skip
    """The facts of a match of one of the rarer constructs (annotations, annotated
    assignments, for, comprehension, with and walrus bindings) in `scope`, the native
    path's too."""
    node = caps[construct]
    if construct == "binding.typed":
        _annotated(scope, caps["left"], caps["type"], node, source, facts, module_vars)
    elif construct == "reference.type":
        if node.parent is not None and node.parent.type in _NESTED_TYPE_PARENTS:
            return  # the outermost annotation already names these
        text = source[node.start_byte : node.end_byte].decode(errors="replace")
        line = node.start_point[0] + 1
        for name in _ANNOT_NAME.findall(text):
            if name not in _ANNOTATION_NOISE:
                facts.references.append(ReferenceFact(scope, name, line, "annotation"))
    elif construct == "binding.iteration":
        _for_binding(scope, caps["left"], caps["right"], source, facts)
    elif construct == "binding.comprehension":
        suffix = f"${node.parent.start_byte}" if node.parent is not None else ""
        _for_binding(scope, caps["left"], caps["right"], source, facts, suffix, local_scopes)
    elif construct == "binding.context":
        _with_binding(scope, caps["value"], node, source, facts)
    elif construct == "assignment.member":
        _member_assignment(scope, caps["left"], node, source, facts)
    elif construct == "binding.item":
        item_facts(scope, caps["left"], caps["right"], node, source, facts)
    elif construct == "assignment.expression":
        _bind_value(scope, caps["left"].text.decode(), caps["right"], node, source, facts)
    elif construct == "binding.parameter":
        parametrize_facts(scope, caps, source, facts)
    elif construct == "yield":
        # `yield from g()` hands on g's items, not g's result: not read yet
        if scope and node.child_count == 2:
            _returned(scope, caps["value"], "yield:", source, facts)


DECORATED = "decorated_definition"
_NESTED_TYPE_PARENTS = frozenset(("type", "type_parameter", "union_type"))

# Names in annotations that never name a repository definition.
_ANNOTATION_NOISE = frozenset(
    """None int str bytes float bool complex object list dict set tuple frozenset type Any
    Optional Union List Dict Set Tuple Type Callable Iterable Iterator Sequence Mapping typing
    Literal ClassVar Final""".split()  # noqa: SIM905 - a word list
)


def _first_error(root: ts.Node) -> int | None:
    # native/syntax.c (the walk's error_line) computes the same for the native path
    cursor = ts.QueryCursor(load_query(NAME, None, None, "(ERROR) @e (MISSING) @m"))
    caps = cursor.captures(root)
    lines = [n.start_point[0] + 1 for nodes in caps.values() for n in nodes]
    return min(lines) if lines else None


def _params(node: ts.Node, source: bytes) -> tuple:
    params = node.child_by_field_name("parameters")
    out = []
    if params is None:
        return ()
    for p in _named(params):
        t = p.type
        if t == "identifier":
            out.append((p.text.decode(), ""))
        elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name = p.child_by_field_name("name")
            if name is None:
                name = next((c for c in _named(p) if c.type == "identifier"), None)
            typ = p.child_by_field_name("type")
            ann = type_text(source[typ.start_byte : typ.end_byte]) if typ is not None else ""
            if name is not None and name.type == "identifier":
                out.append((name.text.decode(), ann))
            elif name is not None and name.type in (
                "list_splat_pattern",
                "dictionary_splat_pattern",
            ):
                inner = name.named_child(0)
                if inner is not None:
                    out.append(("*" + inner.text.decode(), ""))
        elif t in ("list_splat_pattern", "dictionary_splat_pattern"):
            inner = p.named_child(0)
            if inner is not None and inner.type == "identifier":
                out.append(("*" + inner.text.decode(), ""))
    return tuple(out)


def _decorators(decorated: ts.Node, source: bytes) -> tuple:
    """The chains of a decorated_definition's decorators, a call's marked with the `()` step
    (`@app.route(...)` -> `app.route()`: what the call returns is applied to the definition)."""
    out = []
    for dec in _named(decorated):
        expr = dec.named_child(0) if dec.type == "decorator" else None
        if expr is not None:
            called = expr.type == "call"
            if called:
                expr = expr.child_by_field_name("function") or expr
            chain = _chain(source[expr.start_byte : expr.end_byte])
            if chain:
                out.append(chain + "()" if called and expr.type != "call" else chain)
    return tuple(out)


def _heritage(node: ts.Node, local: str, source: bytes, facts: FileFacts) -> None:
    supers = node.child_by_field_name("superclasses")
    if supers is None:
        return
    for arg in _named(supers):
        if arg.type == "keyword_argument":
            continue
        if arg.type == "subscript":  # Generic[T], Base[int]
            arg = arg.child_by_field_name("value") or arg
        chain = _chain(source[arg.start_byte : arg.end_byte])
        if chain:
            facts.heritage.append(HeritageFact(local, chain, arg.start_point[0] + 1, "extends"))


def _args(args: ts.Node, source: bytes) -> tuple[tuple, tuple]:
    """(CallFact.args, CallFact.literals) of an argument list."""
    # native/facts_bind.c (call_args) computes the same for the native path: change both
    if args.named_child_count == 0 or args.type != "argument_list":
        return (), ()  # `()` is 15% of Django's calls
    out = []
    literals = []
    pos = 0
    for a in _named(args):
        t = a.type
        if t in ("identifier", "attribute"):
            chain = _chain(source[a.start_byte : a.end_byte])
            if chain and pos >= 0:
                out.append((pos, chain))
            pos += 1
        elif t in _LITERALS:
            text = _literal(a, source) if pos >= 0 else None
            if text:
                literals.append((pos, text))
            pos += 1
        elif t == "keyword_argument":
            name = a.child_by_field_name("name")
            value = a.child_by_field_name("value")
            if name is None or value is None:
                continue
            if value.type in _LITERALS:
                text = _literal(value, source)
                if text:
                    literals.append((name.text.decode(), text))
            elif value.type in ("identifier", "attribute"):
                chain = _chain(source[value.start_byte : value.end_byte])
                if chain:
                    out.append((name.text.decode(), chain))
        elif t == "list_splat":
            pos = -(1 << 30)  # positions after a *args splat are unknown
        elif t != "dictionary_splat":
            pos += 1
    return tuple(out), tuple(literals)


_LITERALS = frozenset(("string", "true", "false"))


def _literal(node: ts.Node, source: bytes) -> str | None:
    """A literal argument's text (CallFact.literals): `True`/`False`, or the content of a
    string quoted by one character each side (no prefix, no triple quotes) that is a name or
    dotted name (`"db"`, `'a.b'`)."""
    if node.type != "string":
        return _chain(source[node.start_byte : node.end_byte])
    parts = node.children
    if len(parts) != 3 or parts[0].end_byte - parts[0].start_byte != 1:
        return None
    return _chain(source[parts[1].start_byte : parts[1].end_byte])


def _imports(node: ts.Node, construct: str, scope: str, source: bytes, facts: FileFacts) -> None:
    line = node.start_point[0] + 1
    if construct == "import":  # import a.b [as c], ...
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


# The native fact engine's view of this grammar (native/facts.py): node roles, fields and
# options for the rules it shares with the code above, and the hooks it calls back.
RULES = FactRules(
    roles={
        "identifier": "name",
        "attribute": "member",
        "call": "call",
        "subscript": "subscript",
        "list": "sequence",
        "tuple": "sequence",
        "string": "string",
        "true": "constant",
        "false": "constant",
        "assignment": "assignment",
        "expression_statement": "statement",
        "type": "type",
        "argument_list": "arguments",
        "keyword_argument": "argument.keyword",
        "list_splat": "argument.splat",
        "dictionary_splat": "argument.keyword_splat",
        "typed_parameter": "parameter",
        "typed_default_parameter": "parameter",
        "default_parameter": "parameter",
        "list_splat_pattern": "parameter.splat",
        "dictionary_splat_pattern": "parameter.splat",
        "decorated_definition": "decorated",
        "decorator": "decorator",
        "pattern_list": "pattern.tuple",
        "tuple_pattern": "pattern.tuple",
        "aliased_import": "import.aliased",
        "relative_import": "import.relative",
        "import_prefix": "import.prefix",
        "dotted_name": "import.path",
        "wildcard_import": "import.wildcard",
    },
    fields={
        "body": "body",
        "parameters": "parameters",
        "return_type": "return_type",
        "heritage": "superclasses",
        "type": "type",
        "alias": "alias",
        "module": "module_name",
        "definition": "definition",
        "right": "right",
        "left": "left",
        "callee": "function",
        "name": "name",
        "value": "value",
    },
    options={
        "export_rule": "underscore",
        "test_class": "Test",
        "test_function": "test",
        "signature_strip": ":",
        "self_member": "self.",
        "type_prefix": "ann:",
        "none_type": "None",
        "exports_name": "__all__",
        "heritage_kind": "extends",
        "class_member": "cls.",
    },
)
_HOOKS = (_chain, callee_chain, _LocalScopes, _other, _exports)
_TYPES = (SymbolFact, ImportFact, CallFact, HeritageFact, ReferenceFact, BindingFact, ReturnFact)
