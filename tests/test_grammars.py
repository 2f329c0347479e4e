"""Grammars loaded from tree-sitter-language-pack's bindings without importing its package
(indexer/lang/grammars.py), and a language's query text read beside its package."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import tree_sitter_language_pack as pack

from codeimpact.indexer.lang import grammars
from codeimpact.indexer.lang.queries import query_text

NAMES = ("python", "javascript", "typescript", "tsx", "c", "cpp", "go", "rust", "java", "yaml",
         "csharp")  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_a_grammar_is_the_one_the_pack_gives(name):
    ours, theirs = grammars.get_language(name), pack.get_language(name)
    assert ours == theirs
    assert (ours.name, ours.abi_version, ours.node_kind_count, ours.parse_state_count) == (
        theirs.name, theirs.abi_version, theirs.node_kind_count, theirs.parse_state_count)  # fmt: skip
    source = b"x = 1\n" if name == "python" else b"a"
    assert str(grammars.get_parser(name).parse(source).root_node) == str(
        pack.get_parser(name).parse(source).root_node
    )


def test_a_name_the_pack_does_not_have_is_refused_as_the_pack_refuses_it():
    with pytest.raises(LookupError):
        grammars.get_language("no_such_grammar")


def test_the_query_text_is_the_resource_text():
    from importlib import resources

    package = "codeimpact.indexer.lang.python"
    expected = resources.files(package).joinpath("queries.scm").read_text()
    assert query_text(package, "queries.scm") == expected


# Modules loaded before the probe's first line (a site .pth of the interpreter may import
# certifi and with it importlib.resources) are the interpreter's, not the edit's.
PROBE = """
import sys
before = set(sys.modules)
import json
from codeimpact.cli import main
try:
    main(["analyze", "--index-only", "--json", sys.argv[1]])
except SystemExit as e:
    assert not e.code, e.code
print(json.dumps(sorted(m for m in set(sys.modules) - before
                        if m.startswith(("tree_sitter_", "importlib.res"))
                        or m in ("zipfile", "tempfile", "importlib.readers"))))
"""


def test_an_edit_of_a_python_file_loads_its_grammar_only(make_repo, index_repo):
    """The pack's package imports three grammar packages, importlib.resources and tempfile
    (~3 ms of an edit's CPU) and the query's text through importlib.resources imported
    zipfile: an edit that extracts one Python file loads the Python grammar alone."""
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(4)}
    repo = make_repo({**files, "pkg/a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return f()\n")
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(repo)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    report, loaded = json.loads("\n".join(out[:-1])), json.loads(out[-1])
    assert report["mode"] == "incremental" and report["parsed"] == 1
    assert loaded == ["tree_sitter_language_pack.bindings.python"]
