"""C/C++ pieces the fixtures do not show line by line: which language a `.h` holds, the
decoration macros blanked in place, include directories from an absolute
compile_commands.json, and the two languages' rows in one index."""

from __future__ import annotations

import json

from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
from codeimpact.indexer.lang.cfamily.decorations import blank_decorations
from codeimpact.indexer.lang.cfamily.detect import language_of
from codeimpact.indexer.lang.cfamily.includes import IncludeResolver
from codeimpact.query.index import Index


def test_a_header_is_cpp_only_when_its_code_is():
    c_header = b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void); /* class X { */\n' \
               b'#ifdef __cplusplus\n}\n#endif\n'  # fmt: skip
    assert language_of(c_header) == "c"
    assert language_of(b'const char *s = "namespace x";\n// template <T>\nint g(void);\n') == "c"
    assert language_of(b"namespace ns { int f(); }\n") == "cpp"
    assert language_of(b"#include <vector>\nint f();\n") == "cpp"
    assert language_of(b"class Shape {\npublic:\n  int area();\n};\n") == "cpp"


def test_decorations_are_blanked_in_place():
    src = (
        b"#define API\n#define EXTERN extern\nAPI int f(void);\nEXTERN int v;\n#ifdef API\n#endif\n"
    )
    out = blank_decorations(src)
    assert len(out) == len(src) and out.count(b"\n") == src.count(b"\n")
    assert b"    int f(void);" in out and b"extern int v;" in out
    assert b"#ifdef API" in out  # never on a directive line


def test_include_dirs_from_an_absolute_compile_commands():
    paths = {"src/main.c", "vendor/api/api.h", "other/api.h"}
    commands = [{"directory": "/home/u/proj/build", "file": "/home/u/proj/src/main.c",
                 "command": "cc -I../vendor/api -c ../src/main.c"}]  # fmt: skip
    inc = IncludeResolver.of(paths, {"build/compile_commands.json": json.dumps(commands)})
    assert inc.dirs == ["vendor/api"]
    assert inc.resolve("src/main.c", "api.h", False) == "vendor/api/api.h"
    assert inc.resolve("src/main.c", "stdio.h", True) is None


def test_c_and_cpp_rows_carry_their_language(tmp_path):
    (tmp_path / "lib.h").write_text("int add(int a, int b);\n")
    (tmp_path / "lib.c").write_text('#include "lib.h"\nint add(int a, int b) { return a + b; }\n')
    (tmp_path / "app.cpp").write_text(
        '#include "lib.h"\nnamespace app {\nclass Calc {\npublic:\n'
        "  int run() { return add(1, 2); }\n};\n}\n"
    )
    analyze(tmp_path, IndexConfig(), RunOptions(workers=1))
    with Index.open(tmp_path) as index:
        _, rows = index.reader.query(
            "MATCH (s:Symbol) WHERE s.kind <> 'module' RETURN s.qualified_name, s.kind, s.language"
        )
        _, calls = index.reader.query(
            "MATCH (a:Symbol)-[r:CALLS]->(b:Symbol) RETURN a.qualified_name, b.uid, r.reason"
        )
    assert sorted(map(tuple, rows)) == [
        ("add", "function", "c"),
        ("app", "namespace", "cpp"),
        ("app::Calc", "class", "cpp"),
        ("app::Calc::run", "method", "cpp"),
    ]
    assert [tuple(c) for c in calls] == [("app::Calc::run", "lib.c::add", "import")]


def _file_languages(repo) -> dict[str, str]:
    with Index.open(repo) as index:
        _, rows = index.reader.query("MATCH (f:File) RETURN f.path, f.language")
    return dict(map(tuple, rows))


def test_a_header_holding_cpp_is_a_cpp_file_and_follows_its_content(tmp_path):
    """File.language of a `.h` is what its code is (the facts' language), in a full run, an
    unchanged rerun (not read again) and after an edit that makes it plain C."""
    (tmp_path / "lib.h").write_text("int add(int a, int b);\n")
    (tmp_path / "shape.h").write_text(
        "namespace geo {\nclass Shape {\npublic:\n  int area();\n};\n}\n"
    )
    (tmp_path / "app.cpp").write_text('#include "shape.h"\nint geo::Shape::area() { return 1; }\n')
    analyze(tmp_path, IndexConfig(), RunOptions(workers=1))
    want = {"lib.h": "c", "shape.h": "cpp", "app.cpp": "cpp"}
    assert _file_languages(tmp_path) == want
    analyze(tmp_path, IndexConfig(), RunOptions(workers=1))
    assert _file_languages(tmp_path) == want
    (tmp_path / "shape.h").write_text("struct shape { int w; };\nint area(struct shape *s);\n")
    report = analyze(tmp_path, IndexConfig(), RunOptions(workers=1))
    assert report.mode == "incremental"
    assert _file_languages(tmp_path) == {**want, "shape.h": "c"}
