"""A body edit that leaves what other files read of a function as it was re-resolves only
its own file (indexer/lang/python/exports.py); one that changes it reaches the users.
Each step is compared with a full build of the same tree."""

from __future__ import annotations

from pathlib import Path

from test_incremental import assert_same_as_full, make, run

from codeimpact.indexer.lang.python.exports import function_view
from codeimpact.indexer.lang.python.extract import extract

LIB = {
    "pkg/__init__.py": "",
    "pkg/lib.py": """
        class K:
            def go(self):
                return 1

        def is_safe(v):
            return isinstance(v, int)

        def conv(s, strings_only=False):
            if strings_only:
                return s
            return str(s)

        def maker(factory):
            obj = factory()
            return obj
        """,
    "pkg/a.py": "from pkg.lib import conv\n\ndef a():\n    return conv(1).upper()\n",
    "pkg/b.py": "from pkg.lib import conv, K\n\ndef b():\n    return conv(K())\n",
    "pkg/c.py": "from pkg.lib import maker, K\n\ndef c():\n    return maker(K).go()\n",
}


def _view(source: str, scope: str):
    return function_view(extract(source.encode()), scope)


def test_the_view_keeps_what_a_lookup_reads_and_drops_the_rest():
    base = "def f(s):\n    x = g(s)\n    return x\n"
    # a statement that no return or parameter call reads: same view
    assert _view(base, "f") == _view(base.replace("    return", "    y = 2\n    return"), "f")
    # lines move: same view (only ranks among the kept lines count)
    assert _view(base, "f") == _view("\n\n" + base, "f")
    # what the return reads changes: another view
    assert _view(base, "f") != _view(base.replace("x = g(s)", "x = h(s)"), "f")
    # a parameter called (value flow) appears: another view
    assert _view(base, "f") != _view(base.replace("    return", "    s()\n    return"), "f")
    assert _view(base, "nope") is None


def test_calls_that_pass_a_parameter_on_are_a_set_unless_the_callee_is_bound_here():
    base = "def f(s):\n    if s:\n        return s\n    g(s)\n    return h(s)\n"
    # the same parameter passed to the same outside callee once more, anywhere: same view
    assert _view(base, "f") == _view(base.replace("    if s:", "    g(s)\n    if s:"), "f")
    # passed to another callee: another view
    assert _view(base, "f") != _view(base.replace("    if s:", "    k(s)\n    if s:"), "f")
    # a callee the function binds itself is looked up at its line: order counts
    local = "def f(s):\n    g = a\n    g(s)\n    g = b\n    return s\n"
    moved = "def f(s):\n    g = a\n    g = b\n    g(s)\n    return s\n"
    assert _view(local.replace("return s", "return g"), "f") != _view(
        moved.replace("return s", "return g"), "f"
    )


def test_an_item_of_a_parameter_called_is_in_the_view_and_offsets_are_not():
    base = "def f(items, table):\n    for g in items:\n        g([a], **table)\n    return 1\n"
    # an item of a parameter called (a loop variable over it, `p[k]()`): what a container
    # passed there holds runs (flows.py item_sinks)
    assert _view(base, "f") != _view(base.replace("g([a], **table)", "pass"), "f")
    assert _view(base, "f") != _view(base.replace("return 1", "return table['x']()"), "f")
    # text above moves the offsets naming the loop's and the literal's locals: same view
    assert _view(base, "f") == _view("x = 1\n" + base, "f")
    lits = "def f(s):\n    g(s, [a])\n    g(s, [b])\n    return [h(s) for h in (c, d)]\n"
    assert _view(lits, "f") == _view("import os\n" + lits, "f")


def _edit(repo: Path, old: str, new: str) -> None:
    lib = repo / "pkg/lib.py"
    text = lib.read_text()
    assert old in text
    lib.write_text(text.replace(old, new, 1))


def test_a_statement_added_to_a_widely_called_function_resolves_one_file(tmp_path):
    repo = make(tmp_path, LIB)
    _edit(repo, "    if strings_only:", "    checked = is_safe(0)\n    if strings_only:")
    report = run(repo)
    assert (report.mode, report.resolved) == ("incremental", 1)
    assert_same_as_full(repo, tmp_path)
    # a parameter passed on: where the callee calls it, it calls what conv's callers pass
    # (value flow, owned by their call sites): they are resolved again
    _edit(repo, "    checked = is_safe(0)", "    checked = is_safe(s)")
    report = run(repo)
    assert (report.mode, report.resolved) == ("incremental", 3)  # lib.py, a.py, b.py
    assert_same_as_full(repo, tmp_path)
    # passed on again to the same callee (bench_incremental's edit B on Django's force_str):
    # where the value flows is a set, not a sequence, so only the file itself is resolved
    _edit(repo, "    if strings_only:", "    again = is_safe(s)\n    if strings_only:")
    report = run(repo)
    assert (report.mode, report.resolved) == ("incremental", 1)
    assert_same_as_full(repo, tmp_path)
    # the return now reads another binding: the callers of conv are resolved again
    _edit(repo, "    return str(s)", "    out = K()\n    return out")
    report = run(repo)
    assert (report.mode, report.resolved) == ("incremental", 3)  # lib.py, a.py, b.py
    assert_same_as_full(repo, tmp_path)
    # what maker gives follows the binding its return reads
    _edit(repo, "    obj = factory()", "    obj = K()")
    report = run(repo)
    assert report.resolved == 2  # lib.py, c.py
    assert_same_as_full(repo, tmp_path)
