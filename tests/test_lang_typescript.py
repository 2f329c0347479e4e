"""TypeScript / TSX / JavaScript: real parses of fixture repositories into a real Kùzu index.

Each test builds a small repository (several folders, a real git commit), runs a
full analyze and asserts what it is about. The definitions, the edges of module resolution
and of calls are the annotated fixtures tests/lang/typescript/*.ts and *.tsx
(tests/test_lang_fixtures.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang.typescript import is_test_path
from codeimpact.indexer.lang.typescript.extract import extract
from codeimpact.indexer.lang.typescript.modules import ModuleResolver, Target, parse_jsonc
from codeimpact.query.index import Index
from conftest import edges, symbols
from lang import harness

# ---------------------------------------------------------------- definitions
LANG = Path(__file__).resolve().parent / "lang"

# the project of the annotated fixture tests/lang/typescript/definitions.ts (every
# definition's kind, qualified name, span, export flag and container are asserted there)
DEFS = harness.project_files(LANG / "typescript" / "definitions.ts")


def test_definitions_names_and_language(make_repo, index_repo):
    """What the fixture format does not say: a symbol's own name (`#secret`) and language."""
    repo = make_repo(DEFS)
    index_repo(repo)
    with Index.open(repo) as index:
        rows = index.cypher(
            "MATCH (s:Symbol) WHERE s.file = 'src/shapes.ts' AND s.kind <> 'module' "
            "RETURN s.uid, s.name, s.language"
        ).rows
    assert {r[0].split("::")[1]: r[1] for r in rows}["Base.secret"] == "#secret"
    assert {r[2] for r in rows} == {"typescript"}


# ---------------------------------------------------------------- modules
MODULES = harness.project_files(LANG / "typescript" / "modules.ts")


def test_external_modules_are_symbols(make_repo, index_repo):
    """The edges of MODULES are the annotated fixture tests/lang/typescript/modules.ts."""
    repo = make_repo(MODULES)
    index_repo(repo)
    ext = {u: v for u, v in symbols(repo).items() if u.startswith("<external>")}
    assert ext["<external>::react"][:2] == ("external", "react")


def test_module_resolution_rules():
    paths = {
        "a/x.ts",
        "a/x.js",
        "a/only.js",
        "a/dir/index.tsx",
        "pkgs/ui/src/index.ts",
        "pkgs/ui/src/button.ts",
        "b/types.d.ts",
    }
    configs = {
        "pkgs/ui/package.json": '{"name": "@acme/ui", "main": "dist/index.js"}',
        "a/tsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./*"]}}}',
    }
    r = ModuleResolver(frozenset(paths), configs)
    # a TS importer finds the source before its compiled output; a JS importer the reverse
    assert r.resolve("a/m.ts", "./x") == Target("file", "a/x.ts")
    assert r.resolve("a/m.js", "./x") == Target("file", "a/x.js")
    assert r.resolve("a/m.ts", "./x.js") == Target("file", "a/x.ts")
    assert r.resolve("a/m.ts", "./only") == Target("file", "a/only.js")
    assert r.resolve("a/m.ts", "./dir") == Target("file", "a/dir/index.tsx")
    assert r.resolve("a/m.ts", "../b/types") == Target("file", "b/types.d.ts")
    assert r.resolve("a/m.ts", "~/dir") == Target("file", "a/dir/index.tsx")
    assert r.resolve("a/m.ts", "~/nothing") == Target("missing", "~/nothing")
    assert r.resolve("a/m.ts", "./gone") == Target("missing", "./gone")
    assert r.resolve("a/m.ts", "../../outside") == Target("missing", "../../outside")
    # a workspace package by its package.json name (dist/ is not indexed: src/index)
    assert r.resolve("a/m.ts", "@acme/ui") == Target("file", "pkgs/ui/src/index.ts")
    assert r.resolve("a/m.ts", "@acme/ui/button") == Target("file", "pkgs/ui/src/button.ts")
    assert r.resolve("b/m.ts", "~/x") == Target("external", "~/x")  # no tsconfig above b/
    assert r.resolve("a/m.ts", "lodash/fp") == Target("external", "lodash/fp")
    assert parse_jsonc('{"a": "src/*", /* c */ "b": [1, 2,], // x\n}') == {
        "a": "src/*",
        "b": [1, 2],
    }
    assert parse_jsonc("not json") == {}


# ---------------------------------------------------------------- CommonJS
CJS = harness.project_files(LANG / "javascript" / "commonjs.js")


# ---------------------------------------------------------------- calls and heritage
CALLS = harness.project_files(LANG / "typescript" / "calls.ts")


# ---------------------------------------------------------------- TSX / JSX
# the project of the annotated fixture tests/lang/typescript/components.tsx (definitions
# and edges, with the scope each call comes from, are asserted there)
TSX = harness.project_files(LANG / "typescript" / "components.tsx")


def test_tsx_component_files(make_repo, index_repo):
    """What the fixture format does not say: each file's language and test flag."""
    repo = make_repo(TSX)
    index_repo(repo)
    with Index.open(repo) as index:
        files = dict(index.cypher("MATCH (f:File) RETURN f.path, f.is_test").rows)
        langs = dict(index.cypher("MATCH (f:File) RETURN f.path, f.language").rows)
    assert files == {
        "ui/Button.tsx": False,
        "ui/Page.tsx": False,
        "ui/layout.jsx": False,
        "ui/Page.test.tsx": True,
    }
    assert langs["ui/layout.jsx"] == "javascript" and langs["ui/Page.tsx"] == "tsx"


# ---------------------------------------------------------------- robustness and conventions
def test_syntax_errors_give_partial_files_and_keep_the_rest(make_repo, index_repo):
    repo = make_repo(
        {
            "a.ts": "export function ok() { return 1; }\n",
            "b.ts": "import { ok } from './a';\nexport function broken( { ok(); \n",
        }
    )
    report = index_repo(repo)
    assert report.files_by_status == {"ok": 1, "partial": 1}
    assert [i["code"] for i in report.incomplete] == ["parse_error"]
    assert "a.ts::ok" in symbols(repo)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/a.test.ts", True),
        ("src/a.spec.js", True),
        ("src/__tests__/a.tsx", True),
        ("test/helpers.js", True),
        ("e2e/app.e2e-spec.ts", True),
        ("src/attest.ts", False),
        ("src/latest/index.ts", False),
        ("src/testing-utils.ts", False),
    ],
)
def test_test_path_conventions(path, expected):
    assert is_test_path(path) is expected


def test_extraction_is_deterministic_and_survives_bad_bytes():
    src = b"export class A { m() { return new B(); } }\n"
    assert extract("typescript", src).to_bytes() == extract("typescript", src).to_bytes()
    for grammar in ("typescript", "tsx", "javascript"):
        f = extract(grammar, b"\xff\xfe class { ((( \n")
        assert f.status == "partial"


# ---------------------------------------------------------------- incremental == full
def _graph(repo) -> dict:
    rels = ("CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "REFERENCES", "CONTAINS")
    return {"symbols": symbols(repo), **{rel: edges(repo, rel) for rel in rels}}


def _incremental_matches_full(make_repo, index_repo, files: dict, edit: dict) -> bool:
    from conftest import edited_and_fresh

    repo, report, fresh, full = edited_and_fresh(make_repo, index_repo, files, edit)
    return _graph(repo) == _graph(fresh) and report.calls == full.calls


def test_incremental_equals_full_for_heritage_and_dispatch(make_repo, index_repo):
    # an override appears in a subclass: callers through Shape gain a dispatch edge
    edit = {
        "src/model/square.ts": """
            import { Base } from "./base";
            export class Square extends Base {
              area() { return 1; }
              draw() {}
            }
            """
    }
    assert _incremental_matches_full(make_repo, index_repo, CALLS, edit)


def test_incremental_equals_full_for_commonjs_members(make_repo, index_repo):
    edit = {"lib/app.js": "var app = module.exports = {};\napp.init = function init() {};\n"}
    assert _incremental_matches_full(make_repo, index_repo, CJS, edit)


def test_incremental_equals_full_through_a_reexport_chain(make_repo, index_repo):
    edit = {"src/utils/str.ts": "export function slugify2(s: string) { return s; }\n"}
    assert _incremental_matches_full(make_repo, index_repo, MODULES, edit)


CHAIN_SOURCE = (
    """
a; a.b; this.x; super.m; this.#p; $el.data_1; obj.a.b.c.d;
a?.b; a.b?.c; f().g; new A().m; (a).b; a /* c */ .b; a
  .b; import.meta.url; x[0].y; café.naïve; ü.v;
"""
    + "p"
    + ".q" * 60
    + ";\n"
)


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_plain_chain_shortcut_agrees_with_the_walk(language):
    """`chain` reads a plain `a.b.c` off its text; for every identifier and member
    expression that must be what walking the expression gives (None included)."""
    from tree_sitter_language_pack import get_parser

    from codeimpact.indexer.lang.typescript.syntax import _chain_walk, chain

    root = get_parser(language).parse(CHAIN_SOURCE.encode()).root_node
    stack, seen = [root], {}
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in ("identifier", "member_expression"):
            seen[node.text.decode()] = chain(node)
            assert chain(node) == _chain_walk(node), node.text
    # the shortcut's own cases are among them, and its exclusions fall through to the walk
    assert seen["obj.a.b.c.d"] == "obj.a.b.c.d"
    assert seen["this.#p"] == "this.#p"
    assert seen["import.meta.url"] is None
    assert seen["a?.b"] == "a.b"
    assert seen["p" + ".q" * 60] is None  # longer than a chain may be
