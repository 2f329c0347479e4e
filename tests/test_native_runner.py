"""The generic query runner (native/runner.c, walk.c) against py-tree-sitter's QueryCursor.

Every language's queries run three ways over real parses: the runner's walk (query.c's
algorithm over the steps ts_query_new compiled), query.c's own cursor inside the runner,
and py-tree-sitter's QueryCursor (the reference). All three must give the same matches in
the same order, with the same node per capture, on the sources of the recorded fixture
projects of every language (benchmarks/spec), on mutations of them (syntax errors) and on
trees deeper than query.c's 16-bit depths. The Python tree of Django and the stdlib are
compared in test_native_facts.py.
"""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest
import tree_sitter as ts
from tree_sitter_language_pack import get_language, get_parser

from codeimpact.indexer.lang.queries import query_text
from codeimpact.native.runner import QueryRunner, native_status, native_syntax
from codeimpact.native.vocabulary import CAPTURES, CONSTRUCTS
from python_edge_cases import EDGE_CASES

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

native = pytest.mark.skipif(not native_status().used, reason=native_status().reason)

LANG = "codeimpact.indexer.lang"
# grammar -> (its query files, the extensions of its sources, whether the walk runs it)
QUERIES = {
    "python": ([(f"{LANG}.python", "queries.scm")], (".py",), True),
    "go": ([(f"{LANG}.go", "queries.scm")], (".go",), True),
    "java": ([(f"{LANG}.java", "queries.scm")], (".java",), True),
    "rust": ([(f"{LANG}.rust", "queries.scm")], (".rs",), False),
    "typescript": (
        [(f"{LANG}.typescript", "javascript.scm"), (f"{LANG}.typescript", "typescript.scm")],
        (".ts",),
        True,
    ),
    "tsx": (
        [(f"{LANG}.typescript", f) for f in ("javascript.scm", "typescript.scm", "javascript_jsx.scm")],
        (".tsx",),
        True,
    ),
    "javascript": (
        [(f"{LANG}.typescript", f) for f in ("javascript.scm", "javascript_fields.scm", "javascript_jsx.scm")],
        (".js", ".jsx"),
        True,
    ),
}  # fmt: skip


def query_of(grammar: str) -> str:
    return "\n".join(query_text(package, name) for package, name in QUERIES[grammar][0])


def _fixture_sources() -> dict[str, list[bytes]]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import graph_dump
    finally:
        sys.path.remove(str(BENCHMARKS))
    by_grammar: dict[str, list[bytes]] = {g: [] for g in QUERIES}
    if not graph_dump.FIXTURES.is_file():
        return by_grammar
    for fx in graph_dump.load_fixtures().values():
        for path, text in fx["files"].items():
            for grammar, (_, extensions, _) in QUERIES.items():
                if path.endswith(extensions) and isinstance(text, str):
                    by_grammar[grammar].append(text.encode())
    return by_grammar


SOURCES = _fixture_sources()
SOURCES["python"] += [textwrap.dedent(s).encode() for s in EDGE_CASES.values()]


def mutations(sources: list[bytes], count: int, seed: int) -> list[bytes]:
    """Sources with pieces cut and brackets, keywords and newlines inserted."""
    rng = random.Random(seed)
    tokens = [b"(", b")", b"{", b"}", b"<", b">", b":", b"=", b";", b",", b"\n", b"fn ", b"def "]
    out = []
    for _ in range(count):
        s = rng.choice(sources)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(s) + 1)
            s = (
                s[:i] + s[i + rng.randint(1, 12) :]
                if rng.random() < 0.4
                else s[:i] + rng.choice(tokens) + s[i:]
            )
        out.append(s)
    return out  # fmt: skip


def _node(n: ts.Node | None) -> tuple | None:
    return None if n is None else (n.type, n.start_byte, n.end_byte, n.id)


class ThreeWays:
    def __init__(self, grammar: str, text: str | None = None):
        text = query_of(grammar) if text is None else text
        self.native = native_syntax().Query(get_language(grammar), text)
        self.reference = ts.Query(get_language(grammar), text)
        self.names = [self.native.pattern_captures(p) for p in range(self.native.pattern_count)]
        self.parser = get_parser(grammar)

    def check(self, source: bytes) -> int:
        root = self.parser.parse(source).root_node
        walk = [(p, tuple(map(_node, nodes))) for p, nodes in self.native.matches(root)]
        cursor = [(p, tuple(map(_node, n))) for p, n in self.native.matches(root, cursor=True)]
        reference = [
            (p, tuple(_node(caps[n][0]) if n in caps else None for n in self.names[p]))
            for p, caps in ts.QueryCursor(self.reference).matches(root)
        ]
        assert walk == reference, source[:200]
        assert cursor == reference, source[:200]
        return len(walk)


@native
@pytest.mark.parametrize("grammar", sorted(QUERIES))
def test_every_query_gives_the_querys_matches(grammar):
    sources = SOURCES[grammar]
    assert len(sources) >= 3, f"no fixture sources for {grammar} (benchmarks/spec)"
    runner = ThreeWays(grammar)
    assert runner.native.walkable is QUERIES[grammar][2]
    matched = sum(runner.check(s) for s in sources + mutations(sources, 150, seed=len(grammar)))
    assert matched > 50


@native
def test_deeper_than_query_c_follows():
    """query.c keeps start depths in 16 bits: the walk leaves such trees to the cursor."""
    runner = ThreeWays("python")
    assert runner.check(b"x = " + b"(" * 70000 + b"f(a)" + b")" * 70000 + b"\n") >= 1
    assert runner.check(b"f(" * 3000 + b"x" + b")" * 3000 + b"\n") == 3000


# alternations the walk follows (branches of other shapes and depths, captured in one branch
# only, anchored, nested, where a later sibling can match too), and (ERROR) roots
ALTERNATIONS = [
    "(call_expression function: [(identifier) @name (member_expression property:"
    " (property_identifier) @name)] arguments: (arguments)) @c",
    "(arguments [(identifier) (member_expression)] @a) @b",
    "(arguments . [(string) (template_string) (arrow_function)] @a)",
    "(assignment_expression right: [(call_expression function: [(identifier) (member_expression)]"
    " @f) (new_expression constructor: (_) @f)]) @x",
    "(variable_declarator [(identifier) @x (object_pattern) @y] [(call_expression) (object)"
    " (arrow_function)] @v)",
    "(statement_block [(return_statement) (if_statement)] @s)",
    "(ERROR) @e (ERROR [(identifier) (string)] @i)",
]


@native
@pytest.mark.parametrize("text", ALTERNATIONS)
def test_alternations_run_on_the_walk(text):
    runner = ThreeWays("javascript", text)
    assert runner.native.walkable
    sources = SOURCES["javascript"]
    matched = sum(runner.check(s) for s in sources + mutations(sources, 100, seed=len(text)))
    assert matched > 10


@native
def test_error_line_is_the_first_error_or_missing_node():
    ext = native_syntax()
    query = ext.Query(get_language("python"), "(identifier) @name")
    reference = ts.Query(get_language("python"), "(ERROR) @e (MISSING) @m")
    parser = get_parser("python")
    for source in [s for s in SOURCES["python"] if b"\n" in s][:200] + mutations(
        SOURCES["python"], 300, seed=7
    ):
        root = parser.parse(source).root_node
        caps = ts.QueryCursor(reference).captures(root)
        lines = [n.start_point[0] + 1 for nodes in caps.values() for n in nodes]
        assert query.error_line(root) == (min(lines) if lines else None), source[:200]


@native
def test_bad_input_is_refused():
    ext = native_syntax()
    python = get_language("python")
    root = get_parser("python").parse(b"f(x)\n").root_node
    with pytest.raises(TypeError):
        ext.Query("python", "(identifier) @name")
    with pytest.raises(ValueError, match="invalid query: node type"):
        ext.Query(python, "(no_such_node) @x")
    with pytest.raises(ValueError, match="invalid query: syntax"):
        ext.Query(python, "(call")
    query = ext.Query(python, "(call function: (_) @callee) @reference.call")
    for bad in (root.text, None, 1, ts.Point(0, 0)):
        with pytest.raises(TypeError):
            query.matches(bad)
    go_root = get_parser("go").parse(b"package p\n").root_node
    with pytest.raises(ValueError, match="another language"):
        query.matches(go_root)
    with pytest.raises(ValueError, match="several nodes"):
        ext.Query(python, "(argument_list (identifier)* @name)").matches(root)
    assert query.pattern_captures(0) == ("reference.call", "callee")
    with pytest.raises(IndexError):
        query.pattern_captures(1)


def test_query_runner_reads_the_vocabulary():
    """QueryRunner (both paths) gives (construct, {capture: node}) and refuses a query
    outside the vocabulary."""
    python = get_language("python")
    source = b"import os\ndef f(a):\n    return os.path.join(a)\n"
    root = get_parser("python").parse(source).root_node
    text = query_text(f"{LANG}.python", "queries.scm")
    runs = [QueryRunner(python, text, native=False).matches(root)]
    if native_status().used:
        runs.append(QueryRunner(python, text).matches(root))
    for matches in runs:
        summary = [(c, sorted(caps), caps[c].start_point[0]) for c, caps in matches]
        assert summary == [
            ("import", ["import"], 0),
            # a definition is matched alone (its name and body are read from its fields)
            ("definition.function", ["definition.function"], 1),
            # a match comes out when its last captured node is entered: the return's value
            # is the call, which is matched alone (its callee and arguments are its fields)
            ("return", ["return", "value"], 2),
            ("reference.call", ["reference.call"], 2),
            # every attribute is a member-read candidate (`os.path.join`, then `os.path`);
            # extraction keeps only reads no other fact covers (26b0155)
            ("reference.member", ["reference.member"], 2),
            ("reference.member", ["reference.member"], 2),
        ]
    for native_path in (False, True):
        with pytest.raises(ValueError, match="outside the vocabulary"):
            QueryRunner(python, "(call) @call", native=native_path)
        with pytest.raises(ValueError, match="construct captures"):
            QueryRunner(python, "(call function: (_) @callee)", native=native_path)


@pytest.mark.parametrize("grammar", sorted(QUERIES))
def test_every_language_speaks_the_vocabulary(grammar):
    """Each language's queries use only the vocabulary's names, one construct per pattern,
    one node per capture (QueryRunner checks), on both paths."""
    paths = [False, True] if native_status().used else [False]
    for native_path in paths:
        runner = QueryRunner(get_language(grammar), query_of(grammar), native=native_path)
        assert runner.pattern_count > 0
        assert all(runner.construct(p) for p in range(runner.pattern_count))


def test_the_vocabulary_is_declared_once():
    names = [name for name, _ in CONSTRUCTS]
    assert len(set(CAPTURES)) == len(CAPTURES)
    assert all(name.split(".")[0] in {"definition", "reference", "binding", "scope", "import",
               "assignment", "decorator", "export", "package", "attribute", "return", "yield",
               "error"}
               for name in names)  # fmt: skip
    header = Path(__file__).resolve().parent.parent / "build/codeimpact-generated/vocabulary.h"
    if header.is_file():  # built in place: the C enum follows the Python tuple
        text = header.read_text()
        positions = [text.index(f'"{name}"') for name in CAPTURES]
        assert positions == sorted(positions)
