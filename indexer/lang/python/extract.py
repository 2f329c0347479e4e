"""Python: tree-sitter queries -> FileFacts, and the module name of a path.

The queries (queries.scm) are in the shared capture vocabulary (native/vocabulary.py);
`query_facts` (query_facts.py, with definitions.py and sites.py) makes the facts from their
matches. When the native path runs (native/runner.py: the extension is built for the
installed tree-sitter and not switched off), the native fact engine (native/facts.c) does
all of it instead, by the same rules, given this module's node roles and options (`RULES`)
and its hooks: the chains from chains.py's cached `_chain` and `callee_chain`, the local
scopes of comprehensions and lambdas, and `_other` for the rarer constructs, with Node
objects in match order. Assignments into or out of containers (items.py) are made in C too
(native/facts_items.c), and so are the bindings of `with` items, loop and comprehension
variables and stores into members (bindings.py: native/facts_flow.c). The query path is the fallback and the reference
(`extract(source, native=False)`); tests compare the two blob for blob. Scopes come from
sorted body intervals, not from walking parents.

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
  setter or a descriptor's `__set__` may run;
- `ann:E` for the name of `except E as e` (`ann:A|B` for `except (A, B) as e`).

A `yield` is a ReturnFact whose value is `yield:chain` (an item of the generator, read by
pytest's yield fixtures: fixtures.py), kept apart from what a call returns (index.py).

Annotations of parameters are kept as TYPE text too, and a return annotation
is a ReturnFact whose value is `ann:TYPE`. `extra["all"]` holds a module's
literal `__all__` (the names `from m import *` binds).
"""

from __future__ import annotations

import threading
from functools import cache

import tree_sitter as ts

from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    HeritageFact,
    ImportFact,
    ReferenceFact,
    ReturnFact,
    SymbolFact,
    count_lines,
)
from codeimpact.indexer.lang.grammars import get_language, get_parser
from codeimpact.indexer.lang.python.bindings import _exports, _LocalScopes
from codeimpact.indexer.lang.python.chains import _chain, callee_chain
from codeimpact.indexer.lang.python.guards import _alternative_imports, _guarded_imports
from codeimpact.indexer.lang.python.query_facts import _other, query_facts
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
#   14: `self.x[a][b] = v` stores v as an item of self.x (a registry of registries).
#   15: extra["alt_imports"]: imports of one name in the branches of a try/except ImportError
#       or an if/else (either may bind it, guards.py).
#   16: binding.catch: `except E as e` binds e as the declared type `ann:E` (`ann:A|B` for a
#       tuple of classes): a call on the caught exception reaches its class's method.
#   17: binding.item: nested unpacking patterns (`a, (b, c) = f, (g, h)`) and item reads
#       `x = y[k]` (key:K:chain).
#   18: binding.callback: the parameters of a lambda passed as a positional argument are
#       named `p$<start byte of the lambda>` and bound `callback:<argument position>:
#       <parameter position>:<callee chain>` (calls on them were unresolved).
#   19: an assignment of `a or b` binds what `a` would (`self.params = params or []`; node
#       roles operator.boolean/operator.either, field role operator).
#   20, 21: ret$K and it$N literal bindings (cf12923, ad5eb59), reverted.
#   22: as 19.
#   23: 20 and 21 again: returns of literal collections (`return f, g`, `return {"go": f}`)
#       bound to `ret$K` (the function's K-th) and returned by that name; a `for` or a
#       comprehension over a literal (`for f in (a, b)`) iterates `it$<start byte>`.
#   24: CallFact.args: a literal collection passed as an argument that holds a name the
#       file defines or imports, or a member of one, is `arg$<start byte>`, bound with its
#       items at the call's line; an argument spread as keywords (`f(**opts)`) is keyed `**`.
#   25: items of containers (and unpacking patterns) nested deeper than items.py MAX_DEPTH
#       (32) are not recorded: 20,000 nested brackets overflowed the C stack; a callee
#       chain of more than chain_syntax.MAX_GROUPS (32) bracket steps is none (`?.name`).
EXTRACTOR_VERSION = 25


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


def extract(source: bytes, *, native: bool = True) -> FileFacts:
    """The facts of one file. `native=False` forces the query path (the reference, which
    tests compare the native extraction with)."""
    return facts_of_tree(_parser().parse(source).root_node, source, native=native)


def facts_of_tree(root: ts.Node, source: bytes, *, native: bool = True) -> FileFacts:
    """`extract` of the tree parsed from `source` (tests run both paths over one parse)."""
    facts = FileFacts(
        language=NAME,
        lines=count_lines(source),
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
        query_facts(_runner().matches(root), source, facts)
    _guarded_imports(root, source, facts)
    _alternative_imports(root, source, facts)
    if root.has_error:  # ERROR or MISSING nodes anywhere
        facts.status = "partial"
        err = _first_error(root) if error_line is None else error_line
        facts.error = f"syntax error at line {err}" if err else "syntax error"
    return facts


def _first_error(root: ts.Node) -> int | None:
    # native/syntax.c (the walk's error_line) computes the same for the native path
    cursor = ts.QueryCursor(load_query(NAME, None, None, "(ERROR) @e (MISSING) @m"))
    caps = cursor.captures(root)
    lines = [n.start_point[0] + 1 for nodes in caps.values() for n in nodes]
    return min(lines) if lines else None


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
        "set": "set",
        "dictionary": "mapping",
        "pair": "pair",
        "expression_list": "sequence.bare",
        "parenthesized_list_splat": "splat.parenthesized",
        "integer": "integer",
        "string_content": "string.content",
        "comment": "comment",
        "string": "string",
        "true": "constant",
        "false": "constant",
        "assignment": "assignment",
        "expression_statement": "statement",
        "type": "type",
        "boolean_operator": "operator.boolean",
        "or": "operator.either",
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
        "list_pattern": "pattern.list",
        "as_pattern": "pattern.as",
        "async": "keyword.async",
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
        "arguments": "arguments",
        "name": "name",
        "value": "value",
        "index": "subscript",
        "key": "key",
        "operator": "operator",
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
        "parameter_callees": "parametrize fixture",  # parametrize.CALLEES (test_startup)
        # the binding value forms of bindings.py and items.py (values.py & co. read them)
        "value_enter": "enter:",
        "value_enter_async": "aenter:",
        "value_store": "set:",
        "value_iteration": "iter:",
        "value_literal": "lit:",
        "value_item": "item:",
        "value_position": "at:",
        "names_suffix": "__",
        # the locals literal collections are bound to (query_facts.py, bindings.py)
        "local_returned": "ret$",
        "local_iterated": "it$",
        "local_passed": "arg$",
        "argument_spread": "**",
    },
)
_HOOKS = (_chain, callee_chain, _LocalScopes, _other, _exports)
_TYPES = (SymbolFact, ImportFact, CallFact, HeritageFact, ReferenceFact, BindingFact, ReturnFact)
