"""C edits re-resolve what they can change (lang/cfamily/plan.py), and incremental == full."""

from __future__ import annotations

from test_incremental import assert_same_as_full, make, run

FILES = {
    "include/str.h": "#ifndef STR_H\n#define STR_H\nint str_len(const char *s);\n"
    "struct buf { int n; };\nstruct buf *buf_new(void);\n#endif\n",
    "lib/str.c": '#include "str.h"\nint str_len(const char *s)\n{\n\tint n = 0;\n'
    "\twhile (s[n])\n\t\tn++;\n\treturn n;\n}\n"
    "struct buf *buf_new(void)\n{\n\treturn 0;\n}\n",
    **{
        f"drv/d{i}.c": '#include "str.h"\n'
        f"int d{i}(const char *s)\n{{\n\tstruct buf *b = buf_new();\n"
        "\treturn str_len(s) + b->n;\n}\n"
        for i in range(6)
    },
}


def test_a_body_edit_in_c_re_resolves_only_its_file(tmp_path):
    repo = make(tmp_path, FILES)
    body = repo / "lib/str.c"
    body.write_text(body.read_text().replace("\tint n = 0;\n", "\tint n = 0;\n\tint probe = n;\n"))
    report = run(repo)
    assert report.mode == "incremental" and report.resolved == 1
    assert_same_as_full(repo, tmp_path)


def test_a_c_interface_edit_re_resolves_the_users(tmp_path):
    repo = make(tmp_path, FILES)
    body = repo / "lib/str.c"
    # str_len becomes static: the callers' edges go from `import` to unresolved
    body.write_text(
        body.read_text().replace("int str_len(const char", "static int str_len(const char")
    )
    report = run(repo)
    assert report.mode == "incremental" and report.resolved == 7
    assert_same_as_full(repo, tmp_path)
    header = repo / "include/str.h"
    header.write_text(header.read_text().replace("int n; }", "int n; int cap; }"))
    report = run(repo)
    assert report.mode == "incremental" and report.resolved >= 7
    assert_same_as_full(repo, tmp_path)


def test_an_include_added_deep_in_a_cycle_re_resolves_the_files_that_reach_it(tmp_path):
    # a.h and b.h include each other (guards): one include cycle, one module-name digest
    files = {
        "include/a.h": '#ifndef A_H\n#define A_H\n#include "b.h"\n#endif\n',
        "include/b.h": '#ifndef B_H\n#define B_H\n#include "a.h"\n#endif\n',
        "include/decl.h": "#ifndef DECL_H\n#define DECL_H\nint more(void);\n#endif\n",
        "lib/more.c": '#include "decl.h"\nint more(void)\n{\n\treturn 1;\n}\n',
        "lib/user.c": '#include "a.h"\nint user(void)\n{\n\treturn more();\n}\n',
        "lib/other.c": "int other(void)\n{\n\treturn 2;\n}\n",
    }
    repo = make(tmp_path, files)
    b = repo / "include/b.h"
    # user.c now reaches more()'s prototype through a.h -> b.h: its call becomes `import`
    b.write_text(b.read_text().replace('#include "a.h"\n', '#include "a.h"\n#include "decl.h"\n'))
    report = run(repo)
    assert report.mode == "incremental"
    # b.h, a.h (its cycle: one digest), more.c (it includes decl.h, a name b.h now binds) and
    # user.c, which reaches them: no name it uses is written in b.h, only its module name
    # (the digest of what it reaches) says so; not other.c
    assert report.resolved == 4
    assert_same_as_full(repo, tmp_path)
