"""TypeScript / TSX / JavaScript: real parses of fixture repositories into a real Kùzu index.

Each test builds a small repository (several folders, a real git commit), runs a
full analyze and asserts the exact symbols and edges, construct by construct. The edges of
module resolution and of calls are the annotated fixtures tests/lang/typescript/*.ts
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


def _from(repo, rel: str, prefix: str) -> set:
    return {e for e in edges(repo, rel) if e[0].startswith(prefix)}


# ---------------------------------------------------------------- definitions
LANG = Path(__file__).resolve().parent / "lang"

DEFS = {
    "src/shapes.ts": """
        export interface Shape extends Named {
          area(): number;
          label: string;
        }
        interface Named { name(): string }
        export enum Color { Red, Green }
        export type Id = string | number;
        export abstract class Base implements Shape {
          constructor(protected size: number) {}
          abstract area(): number;
          name() { return "base"; }
          label = "b";
          get side() { return this.size; }
          set side(v: number) { this.size = v; }
          #secret() {}
        }
        export function make(kind: string): Shape;
        export function make(kind: string, size?: number): Shape {
          const inner = () => 1;
          return new Square(size ?? inner());
        }
        export const twice = (n: number) => n * 2;
        export const half = function (n: number) { return n / 2; };
        const LIMIT = 10;
        export class Square extends Base {
          area() { return this.size * this.size; }
          onClick = () => this.area();
        }
        export namespace Geometry {
          export function unit() { return new Square(1); }
        }
        """,
    "src/decl.d.ts": """
        export declare function version(): string;
        declare module "untyped-lib" {
          export function hidden(): void;
        }
        """,
}


def test_definitions_kinds_qualified_names_and_lines(make_repo, index_repo):
    repo = make_repo(DEFS)
    report = index_repo(repo)
    assert report.files == 2 and report.files_by_status == {"ok": 2}
    syms = {u: v for u, v in symbols(repo).items() if not u.startswith("<external>")}
    m = "src/shapes"
    assert syms == {
        "src/shapes.ts::": ("module", m, 1, 32),
        "src/shapes.ts::Shape": ("interface", f"{m}.Shape", 1, 4),
        "src/shapes.ts::Shape.area": ("method", f"{m}.Shape.area", 2, 2),
        "src/shapes.ts::Named": ("interface", f"{m}.Named", 5, 5),
        "src/shapes.ts::Named.name": ("method", f"{m}.Named.name", 5, 5),
        "src/shapes.ts::Color": ("enum", f"{m}.Color", 6, 6),
        "src/shapes.ts::Id": ("type_alias", f"{m}.Id", 7, 7),
        "src/shapes.ts::Base": ("class", f"{m}.Base", 8, 16),
        "src/shapes.ts::Base.constructor": ("method", f"{m}.Base.constructor", 9, 9),
        "src/shapes.ts::Base.area": ("method", f"{m}.Base.area", 10, 10),
        "src/shapes.ts::Base.name": ("method", f"{m}.Base.name", 11, 11),
        "src/shapes.ts::Base.side": ("method", f"{m}.Base.side", 13, 13),
        "src/shapes.ts::Base.side#2": ("method", f"{m}.Base.side", 14, 14),
        "src/shapes.ts::Base.secret": ("method", f"{m}.Base.secret", 15, 15),
        # the overload signature on line 17 is not a definition; the implementation is
        "src/shapes.ts::make": ("function", f"{m}.make", 18, 21),
        "src/shapes.ts::make.inner": ("function", f"{m}.make.inner", 19, 19),
        "src/shapes.ts::twice": ("function", f"{m}.twice", 22, 22),
        "src/shapes.ts::half": ("function", f"{m}.half", 23, 23),
        "src/shapes.ts::LIMIT": ("variable", f"{m}.LIMIT", 24, 24),
        "src/shapes.ts::Square": ("class", f"{m}.Square", 25, 28),
        "src/shapes.ts::Square.area": ("method", f"{m}.Square.area", 26, 26),
        "src/shapes.ts::Square.onClick": ("method", f"{m}.Square.onClick", 27, 27),
        "src/shapes.ts::Geometry": ("module", f"{m}.Geometry", 29, 31),
        "src/shapes.ts::Geometry.unit": ("function", f"{m}.Geometry.unit", 30, 30),
        # a declaration file: `declare module "x"` describes another module, not this one
        "src/decl.d.ts::": ("module", "src/decl", 1, 5),
        "src/decl.d.ts::version": ("function", "src/decl.version", 1, 1),
    }
    with Index.open(repo) as index:
        rows = index.cypher(
            "MATCH (s:Symbol) WHERE s.file = 'src/shapes.ts' AND s.kind <> 'module' "
            "RETURN s.uid, s.exported, s.name, s.language"
        ).rows
    exported = {r[0].split("::")[1] for r in rows if r[1]}
    assert {"Named", "LIMIT", "Base.secret"}.isdisjoint(exported)
    assert {"Shape", "Color", "Id", "Base", "make", "twice", "half", "Geometry.unit"} <= exported
    assert {r[0].split("::")[1]: r[2] for r in rows}["Base.secret"] == "#secret"
    assert {r[3] for r in rows} == {"typescript"}
    assert _from(repo, "CONTAINS", "src/shapes.ts::Base") == {
        ("src/shapes.ts::Base", f"src/shapes.ts::Base.{n}")
        for n in ("constructor", "area", "name", "side", "side#2", "secret")
    }


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
TSX = {
    "ui/Button.tsx": """
        import React, { forwardRef } from "react";
        type Props = { label: string };
        export const Button = forwardRef<HTMLButtonElement, Props>((props, ref) => {
          return <button ref={ref}>{format(props.label)}</button>;
        });
        function format(s: string) { return s; }
        export default function Icon() { return <svg />; }
        """,
    "ui/Page.tsx": """
        import { useState } from "react";
        import Icon, { Button } from "./Button";
        import * as Layout from "./layout";
        export function Page() {
          const [n, setN] = useState(0);
          return (
            <Layout.Frame>
              <Button label="x" />
              <Icon />
              <div onClick={() => setN(n + 1)} />
            </Layout.Frame>
          );
        }
        """,
    "ui/layout.jsx": """
        export function Frame({ children }) { return <main>{children}</main>; }
        """,
    "ui/Page.test.tsx": """
        import { Page } from "./Page";
        test("renders", () => { render(<Page />); });
        """,
}


def test_tsx_component_files(make_repo, index_repo):
    repo = make_repo(TSX)
    index_repo(repo)
    syms = symbols(repo)
    assert syms["ui/Button.tsx::Button"] == ("function", "ui/Button.Button", 3, 5)
    assert syms["ui/Button.tsx::Icon"] == ("function", "ui/Button.Icon", 7, 7)
    assert syms["ui/Button.tsx::Props"][:2] == ("type_alias", "ui/Button.Props")
    assert syms["ui/layout.jsx::Frame"][:2] == ("function", "ui/layout.Frame")
    assert _from(repo, "CALLS", "ui/") == {
        ("ui/Button.tsx::", "<external>::react.forwardRef", 1.0, "import"),
        ("ui/Button.tsx::Button", "ui/Button.tsx::format", 1.0, "scope"),
        ("ui/Page.tsx::Page", "<external>::react.useState", 1.0, "import"),
        ("ui/Page.tsx::Page", "ui/layout.jsx::Frame", 1.0, "import"),
        ("ui/Page.tsx::Page", "ui/Button.tsx::Button", 1.0, "import"),
        ("ui/Page.tsx::Page", "ui/Button.tsx::Icon", 1.0, "import"),
        ("ui/Page.test.tsx::", "ui/Page.tsx::Page", 1.0, "import"),
    }
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
