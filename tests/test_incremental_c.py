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
