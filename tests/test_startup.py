"""What a run that has nothing to do loads.

A no-op `analyze` (and the start of every edit) is judged against a full index in issue
28, and most of its time is start-up: the modules imported before any work. The write's
modules (Kùzu, Arrow), numpy's traversal arrays and importlib.metadata are no part of
it; an import added at the top of a module on the no-op's path brings them back, which
these tests catch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest

from codeimpact.indexer.identity import _dist_version

# the modules a no-op must not import (each was on its path before: 0.04-0.11 s of CPU)
HEAVY = ("kuzu", "pyarrow", "numpy", "importlib.metadata", "codeimpact.indexer.state")
# nor these (session 9: together ~0.1 s): a language's package (the registry declares what
# listing files needs), the grammars (the runner identity is kept beside the index), the
# process pools, the other commands' modules
LAZY = (
    *(f"codeimpact.indexer.lang.{name}" for name in ("python", "typescript", "cfamily", "go")),
    "codeimpact.indexer.lang.engine",
    "tree_sitter_language_pack",
    "multiprocessing",
    "pickle",
    "codeimpact.cli_query",
    "codeimpact.cli_status",
    "codeimpact.cli_view",
)
# OpenSSL's libcrypto for a few KB of SHA-256 (native/sha.py) and ctypes for a forked
# child's prctl (indexer/lifeline.py): ~2.5 and ~2 ms of every run that imported them
NOOP_LIGHT = ("hashlib", "_hashlib", "ctypes")

PROBE = """
import json, sys
from codeimpact.cli import main
try:
    main(["analyze", "--index-only", "--json", sys.argv[1]])
except SystemExit as e:
    assert not e.code, e.code
print(json.dumps(sorted(m for m in sys.modules if m in {heavy!r})))
"""


@pytest.mark.parametrize("name", ["tree-sitter", "tree-sitter-language-pack", "kuzu", "numpy"])
def test_dist_version_from_the_dist_info_folder_is_what_metadata_says(name):
    assert _dist_version(name) == metadata.version(name)


def test_an_absent_distribution_is_unknown():
    assert _dist_version("codeimpact-no-such-distribution") == "unknown"


def test_a_noop_analyze_imports_none_of_the_write_path(make_repo, index_repo):
    repo = make_repo(
        {"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "from pkg.a import f\nf()\n"}
    )
    index_repo(repo)
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy={*HEAVY, *LAZY, *NOOP_LIGHT}), str(repo)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    report, loaded = json.loads("\n".join(out[:-1])), json.loads(out[-1])
    assert report["mode"] == "unchanged"
    assert loaded == []


def _probe(repo, heavy) -> tuple[dict, list]:
    """`analyze`'s report on `repo`, and the modules of `heavy` it loaded."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=heavy), str(repo)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return json.loads("\n".join(out[:-1])), json.loads(out[-1])


EDIT_HEAVY = {"kuzu", "pyarrow", "asyncio", "codeimpact.graph.full_write"}
# nor what only a failure needs: ctypes (graph/store.py's abandon), pickle (what the pipes to
# its children carry is marshalled: indexer/pipe_codec.py): ~2 ms of every edit each
# nor the typed languages' member lookup (engine/typed_members.py, ~1 ms with its NamedTuple):
# Python's resolution keeps its own copy of the one set it read there
# nor the Python extraction's reference path (query_facts' definitions and call sites, the
# parametrize rules): the native fact engine does that work
EDIT_LIGHT = {"ctypes", "pickle", "codeimpact.indexer.lang.engine.typed_members",
              *(f"codeimpact.indexer.lang.python.{m}" for m in ("definitions", "sites", "parametrize"))}  # fmt: skip
# nor numpy (~45 ms of CPU): the edit's snapshot and state arrays are buffers, the native
# core's work (graph/snapshot_files.py); nor `secrets` (its token: hashlib, OpenSSL)
EDIT_ARRAYS = {"numpy", "codeimpact.graph.csr", "codeimpact.native.traversal", "secrets"}


def test_an_edit_leaves_the_database_modules_to_its_writer(make_repo, index_repo):
    """An edit's process hands the database to its writer child: Kùzu (~40 ms to import,
    most of it asyncio) and Arrow are imported there, beside the resolution, not before it;
    nor does it import the full build's writer."""
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    repo = make_repo({**files, "pkg/a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    (repo / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return f()\n")
    report, loaded = _probe(repo, EDIT_HEAVY | EDIT_LIGHT)
    assert report["mode"] == "incremental" and report["delta"]["symbols_inserted"] == 1
    assert loaded == []


def test_python_s_callable_kinds_are_the_engine_s():
    from codeimpact.indexer.lang.engine.typed_members import CALLABLE_KINDS
    from codeimpact.indexer.lang.python import file_edges

    assert file_edges.CALLABLE_KINDS == CALLABLE_KINDS


def test_the_native_rules_name_the_parametrize_callees():
    from codeimpact.indexer.lang.python import extract, parametrize

    assert extract.RULES.options["parameter_callees"] == " ".join(parametrize.CALLEES)


def test_an_edit_imports_no_numpy(make_repo, index_repo):
    """Each kind of edit (a symbol added, one dropped whose id the highest then takes, a
    comment, a file added and one gone) is incremental without numpy."""
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(8)}
    repo = make_repo({**files, "pkg/a.py": "def a():\n    return 1\n\n\ndef b():\n    pass\n"})
    index_repo(repo)
    edits = [
        ("pkg/a.py", "def a():\n    return 1\n\n\ndef b():\n    pass\n\n\ndef c():\n    a()\n"),
        ("pkg/a.py", "def b():\n    pass\n\n\ndef c():\n    pass\n"),  # a (a low id) goes
        ("pkg/a.py", "# a comment\ndef b():\n    pass\n\n\ndef c():\n    pass\n"),
        ("pkg/new.py", "from pkg.a import b\n\n\ndef n():\n    b()\n"),
        ("pkg/new.py", None),
    ]
    for path, text in edits:
        if text is None:
            (repo / path).unlink()
        else:
            (repo / path).write_text(text)
        report, loaded = _probe(repo, EDIT_ARRAYS)
        assert report["mode"] == "incremental", (path, report.get("reason"))
        assert loaded == [], path


def test_a_query_command_imports_its_own_module_only(make_repo, index_repo):
    repo = make_repo({"pkg/a.py": "def f():\n    return 1\n"})
    index_repo(repo)
    probe = PROBE.replace('"analyze", "--index-only", "--json"', '"status", "--json"')
    out = subprocess.run(
        [sys.executable, "-c", probe.format(heavy={*LAZY, "codeimpact.cli_changes"}), str(repo)],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert json.loads("\n".join(out[:-1]))["fresh"] is True
    assert json.loads(out[-1]) == ["codeimpact.cli_status"]


def test_the_lazy_commands_are_those_their_modules_define():
    from codeimpact.cli import LAZY_COMMANDS, all_commands, main

    commands = all_commands()
    assert None not in commands.values()
    defined_by = {name: c.callback.__module__ for name, c in commands.items()}
    assert {n: m for n, m in defined_by.items() if m != "codeimpact.cli"} == {
        n: f"codeimpact.{m}" for n, m in LAZY_COMMANDS.items()
    }
    assert set(main.commands) == set(commands)  # no module defines a command undeclared


def test_every_language_package_says_what_the_registry_declares():
    from codeimpact.indexer.lang import DECLARED, LANGUAGES, language_for, language_name_for

    LANGUAGES.load(DECLARED)  # each spec is checked against its declaration as it loads
    for name, declared in DECLARED.items():
        spec = LANGUAGES[name]
        assert spec.name == name and spec.group == declared.group
        for ext in declared.extensions:
            assert language_name_for(f"a/b{ext.upper()}") == name
            assert language_for(f"b{ext}") is spec


def test_a_declaration_that_differs_from_its_package_is_refused():
    from codeimpact.indexer.lang import DECLARED, LANGUAGES

    declared = DECLARED["python"]
    for wrong in (
        declared._replace(extensions=(".py",)),
        declared._replace(by_content=True),
        declared._replace(resolver_group="other"),
    ):
        with pytest.raises(RuntimeError, match="python"):
            wrong.check(LANGUAGES["python"])
