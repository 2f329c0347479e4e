"""C edits re-resolve what they can change (lang/cfamily/plan.py), and incremental == full."""

from __future__ import annotations

import copy
import dataclasses
import marshal
from collections.abc import Mapping

from test_incremental import assert_same_as_full, make, run

from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lang.cfamily import C_SPEC
from codeimpact.indexer.lang.cfamily.extract import is_test_path
from codeimpact.indexer.lang.cfamily.name_tables import NameTables
from codeimpact.indexer.lang.cfamily.resolve import CProject
from codeimpact.indexer.lazy_facts import LazyFacts

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


def _body_edit(tmp_path, files):
    """A statement added to str_len's body: str.c alone is resolved again, as full."""
    repo = make(tmp_path, files)
    body = repo / "lib/str.c"
    body.write_text(body.read_text().replace("\tint n = 0;\n", "\tint n = 0;\n\tint probe = n;\n"))
    report = run(repo)
    assert report.mode == "incremental" and report.resolved == 1
    assert_same_as_full(repo, tmp_path)
    return repo


def test_a_body_edit_in_c_re_resolves_only_its_file(tmp_path):
    _body_edit(tmp_path, FILES)


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


MIXED = {
    **FILES,
    # C++ beside C: its out-of-class definition joins a class of a header, and it calls C
    "include/shape.h": "#ifndef SHAPE_H\n#define SHAPE_H\nstruct Shape {\n"
    "  virtual int area();\n};\n#endif\n",
    "src/shape.cpp": '#include "shape.h"\n#include "str.h"\nint Shape::area()\n{\n'
    '  return str_len("ab");\n}\nint use(Shape *s)\n{\n  return s->area();\n}\n',
}


def test_a_c_edit_beside_cpp_is_the_same_as_full(tmp_path):
    repo = _body_edit(tmp_path, MIXED)
    # a prototype added to the header C and C++ both include: its includers are re-resolved
    header = repo / "include/str.h"
    header.write_text(header.read_text().replace("#endif", "int str_cap(void);\n#endif"))
    report = run(repo)
    assert report.mode == "incremental" and report.resolved >= 8
    assert_same_as_full(repo, tmp_path)


def _facts(files: dict[str, str]) -> dict[str, FileFacts]:
    return {p: C_SPEC.extract(src.encode()) for p, src in files.items()}


def test_a_project_from_summaries_decodes_only_what_lookups_reach():
    """An incremental run builds CProject's name tables from the previous run's summaries
    (cfamily/summary.py): resolving one file decodes its facts and those of the files whose
    definitions its lookups read, not the rest of the tree, and resolves it as the project
    built from every file's facts does."""
    files = {
        **FILES,
        **{f"other/o{i}.c": f"int o{i}(void)\n{{\n\treturn {i};\n}}\n" for i in range(5)},
    }
    facts = _facts(files)
    full = CProject(facts, is_test_path)
    summaries = {p: marshal.loads(marshal.dumps(s)) for p, s in full.summaries().items()}
    loaded: list[str] = []

    def load(path: str) -> FileFacts:
        loaded.append(path)
        return facts[path]

    lazy = CProject(LazyFacts(sorted(facts), load), is_test_path, {},
                    Prior(summaries, {"drv/d0.c"}))  # fmt: skip
    assert lazy.resolve_file("drv/d0.c") == full.resolve_file("drv/d0.c")
    # d0.c itself (indexed, then its whole facts to resolve it), the header it reaches
    # (the struct's field), lib/str.c (buf_new's and str_len's definitions)
    assert set(loaded) <= {"drv/d0.c", "include/str.h", "lib/str.c"}
    assert "drv/d0.c" in loaded
    assert lazy.module_names() == full.module_names()
    assert dict(lazy.summaries()) == summaries


def test_each_file_resolves_from_summaries_as_from_every_file_facts():
    """C and C++ together (a class of a C-detected header gains a C++ out-of-class
    definition; struct members, enumerators, prototypes): every file resolved by a project
    built from the others' summaries gives what the project built from all facts gives."""
    files = {
        **MIXED,
        "include/kinds.h": "#ifndef KINDS_H\n#define KINDS_H\nenum color { RED, GREEN };\n"
        "typedef struct node { struct node *next; int (*fn)(int); } node_t;\n"
        "#define MAX(a, b) ((a) > (b) ? (a) : (b))\nextern int counter;\n#endif\n",
        "lib/kinds.c": '#include "kinds.h"\nint counter;\nstatic int twice(int x)\n{\n'
        "\treturn MAX(x, 2 * x);\n}\nint walk(node_t *n)\n{\n\tenum color c = RED;\n"
        "\tn->fn = twice;\n\treturn n->next ? walk(n->next) + c : counter;\n}\n",
        "src/list.cpp": '#include "kinds.h"\nnamespace util {\nclass List {\npublic:\n'
        "  List();\n  int size();\n};\nList::List() {}\nint List::size() { return counter; }\n}\n"
        "int count(util::List &l) { return l.size(); }\n",
    }
    facts = _facts(files)
    full = CProject(facts, is_test_path)
    summaries = {p: marshal.loads(marshal.dumps(s)) for p, s in full.summaries().items()}
    for path in sorted(files):
        lazy = CProject(LazyFacts(sorted(facts), facts.__getitem__), is_test_path, {},
                        Prior(summaries, {path}))  # fmt: skip
        assert lazy.resolve_file(path) == full.resolve_file(path), path


# Several files define and declare the same names (external linkage, statics, types, a
# macro, C++ methods and a namespace): an edit in the middle of the path order moves entries
# that other files' entries surround.
SHARED = {
    "a/first.c": '#include "decl.h"\nint shared(void)\n{\n\treturn 1;\n}\n'
    "struct point { int x; };\n",
    "include/decl.h": "#ifndef DECL_H\n#define DECL_H\nint shared(void);\nint other(void);\n"
    "#define TWICE(x) ((x) * 2)\n#endif\n",
    "m/middle.c": '#include "decl.h"\nint other(void)\n{\n\treturn shared();\n}\n',
    "src/obj.cpp": '#include "decl.h"\nnamespace ns {\nclass Obj {\npublic:\n  int get();\n};\n'
    "int Obj::get() { return other(); }\n}\n",
    "z/last.c": '#include "decl.h"\nint shared(void)\n{\n\treturn TWICE(2);\n}\n'
    "struct point { int y; };\nint use(void)\n{\n\treturn other();\n}\n",
    # a unity build: a source file that another includes sees what its includer sees
    "u/all.c": '#include "decl.h"\n#include "part.c"\nint all(void)\n{\n\treturn part();\n}\n',
    "u/part.c": "int part(void)\n{\n\treturn other();\n}\n",
}

EDITS = [  # (path, new text): applied one after the other
    (
        "m/middle.c",
        '#include "decl.h"\nint shared(void)\n{\n\treturn 3;\n}\n'
        "struct point { int z; };\nint other(void)\n{\n\treturn shared();\n}\n",
    ),
    (
        "m/middle.c",
        '#include "decl.h"\nstatic int shared(void)\n{\n\treturn 3;\n}\n'
        "int other(void)\n{\n\treturn shared();\n}\nint more(void);\n",
    ),
    (
        "include/decl.h",
        "#ifndef DECL_H\n#define DECL_H\nint other(void);\nint shared(void);\n"
        "int more(void);\nstruct point;\n#endif\n",
    ),
    ("a/first.c", "int first(void)\n{\n\treturn 0;\n}\n"),
    (
        "src/obj.cpp",
        '#include "decl.h"\nnamespace other_ns {\nclass Obj {\npublic:\n'
        "  int get();\n  int put();\n};\nint Obj::get() { return shared(); }\n}\n",
    ),
    ("m/middle.c", '#include "decl.h"\nint other(void)\n{\n\treturn shared();\n}\n'),
    ("u/all.c", "int all(void)\n{\n\treturn 0;\n}\n"),  # no longer includes part.c
    ("a/first.c", '#include "../u/part.c"\nint first(void)\n{\n\treturn part();\n}\n'),
    ("u/all.c", SHARED["u/all.c"]),
]


def _tables(project: CProject) -> tuple[dict[str, object], tuple]:
    """The summaries and the encoded name tables a project hands the next run."""
    summaries = {p: marshal.loads(b) for p, b in project.encoded_summaries(None).items()}
    project.qualified_defs  # noqa: B018 (made when a C++ lookup first asks: asked here)
    return summaries, marshal.loads(marshal.dumps(project.tables.encode()))


def _view(project: CProject) -> tuple[dict[str, object], tuple]:
    """The summaries and tables a project hands the next run, the tables as dicts in key
    order (a patched file's entries join a table last, and only lists' orders are read)."""
    summaries, tables = _tables(project)
    t = NameTables.decode(tables)
    fields = [getattr(t, f.name) for f in dataclasses.fields(t)]
    return summaries, tuple(
        dict(sorted(x.items())) if isinstance(x, Mapping) else x for x in fields
    )


def _prior(before: tuple[dict[str, object], tuple], dirty: set[str]) -> Prior:
    """A prior with those summaries and tables (a copy: a project patches them in place)."""
    summaries, tables = before
    return Prior(summaries, dirty, shared=lambda group: copy.deepcopy(tables))


def test_the_name_tables_an_edit_patches_are_the_ones_a_full_build_makes():
    """cfamily/name_tables.py: a project given the previous run's tables and the files
    summarised again patches them into the tables a build from every file's facts makes (in
    path order, source order within a file), and resolves every file as that build does."""
    files = dict(SHARED)
    before = _tables(CProject(_facts(files), is_test_path))
    for path, text in EDITS:
        files[path] = text
        facts = _facts(files)
        full = CProject(facts, is_test_path)
        for dirty in ({path}, set(files)):  # the edited file; every file re-resolved
            patched = CProject(LazyFacts(sorted(facts), facts.__getitem__), is_test_path, {},
                               _prior(before, dirty))  # fmt: skip
            assert patched.top.__class__ is not dict  # the tables were patched, not rebuilt
            assert patched.shared_summary() is not None  # and they changed
            assert _view(patched) == _view(full), (path, dirty)
            assert patched.module_names() == full.module_names()
            for p in sorted(files):
                assert patched.resolve_file(p) == full.resolve_file(p), (path, p)
        before = _tables(full)
    # a statement added to a body changes no summary: the tables stand as they were
    files["m/middle.c"] = files["m/middle.c"].replace(
        "return shared();", "int x = 1;\n\treturn shared();"
    )
    facts = _facts(files)
    same = CProject(facts, is_test_path, {}, _prior(before, {"m/middle.c"}))
    assert same.shared_summary() is None
    assert _view(same) == _view(CProject(facts, is_test_path))


def test_name_tables_are_built_anew_when_files_come_or_go():
    """An include resolves against the file set: a file added or removed is no patch."""
    facts = _facts(SHARED)
    before = _tables(CProject(facts, is_test_path))
    fewer = {p: f for p, f in facts.items() if p != "a/first.c"}
    again = CProject(fewer, is_test_path, {}, _prior(before, {"m/middle.c"}))
    assert again.top.__class__ is dict
    assert _view(again) == _view(CProject(fewer, is_test_path))


def _files(repo, patterns) -> dict[str, tuple[int, int]]:
    """pattern -> (inode, mtime) of that file of the live generation (a hard link keeps
    both; the previous generation's folder is gone once the next one is published)."""
    (gen,) = sorted((repo / ".codeimpact").glob("gen-*"))
    out = {}
    for pattern in patterns:
        (path,) = gen.glob(pattern)
        st = path.stat()
        out[pattern] = (st.st_ino, st.st_mtime_ns)
    return out


SHARED_FILES = ("state-edges.npy", "state-conf.npy", "csr/forward_indices.*.npy",
                "csr/reverse_indptr.*.npy", "shared-cfamily.bin", "state-ids.bin",
                "state-keys.bin")  # fmt: skip


def test_an_edit_that_changes_no_edge_shares_the_edge_files(tmp_path):
    """A delta that adds, drops and renumbers no edge links the live generation's edge codes
    and CSR arrays into the new one, writing only the per-node arrays; a body edit
    leaves C's name tables as they were (linked too); an edit that does change edges writes
    them anew. The symbol ids and the files' lookup keys are linked through all of them,
    a function added and one removed too (the state carries the changes). Each answers as
    a full build does."""
    repo = make(tmp_path, FILES)
    before = _files(repo, (*SHARED_FILES, "csr/node_rank.*.npy"))
    body = repo / "lib/str.c"
    body.write_text(body.read_text().replace("\tint n = 0;\n", "\tint n = 0;\n\tint probe = n;\n"))
    assert run(repo).mode == "incremental"
    after = _files(repo, (*SHARED_FILES, "csr/node_rank.*.npy"))
    for pattern in SHARED_FILES:
        assert before[pattern] == after[pattern], pattern
    assert before["csr/node_rank.*.npy"] != after["csr/node_rank.*.npy"]
    assert_same_as_full(repo, tmp_path)
    body.write_text(body.read_text().replace("\treturn 0;\n", "\treturn str_len(0) ? 0 : 0;\n"))
    assert run(repo).mode == "incremental"
    assert _files(repo, ["state-edges.npy"]) != {"state-edges.npy": after["state-edges.npy"]}
    assert_same_as_full(repo, tmp_path)
    tables = ("state-ids.bin", "state-keys.bin")
    body.write_text(body.read_text() + "int str_more(void)\n{\n\treturn str_len(0);\n}\n")
    assert run(repo).mode == "incremental"
    assert_same_as_full(repo, tmp_path)
    (repo / "drv/d0.c").unlink()
    assert run(repo).mode == "incremental"
    assert _files(repo, tables) == {t: before[t] for t in tables}
    assert_same_as_full(repo, tmp_path)


def test_an_edit_decodes_the_buckets_of_the_names_it_reaches():
    """The tables an edit takes are decoded bucket by bucket (cfamily/buckets.py): resolving
    one file opens the buckets of the names and headers its lookups reach, not whole
    tables, and resolves it as the project built from every file's facts does."""
    files = {
        **FILES,
        **{f"include/h{i}.h": f"int h{i}(void);\nstruct s{i} {{ int f; }};\n" for i in range(150)},
        **{
            f"lib/l{i}.c": f'#include "h{i}.h"\nint h{i}(void)\n{{\n\treturn {i};\n}}\n'
            for i in range(150)
        },  # fmt: skip
    }
    facts = _facts(files)
    full = CProject(facts, is_test_path)
    before = _tables(full)
    lazy = CProject(LazyFacts(sorted(facts), facts.__getitem__), is_test_path, {},
                    _prior(before, {"drv/d0.c"}))  # fmt: skip
    assert lazy.resolve_file("drv/d0.c") == full.resolve_file("drv/d0.c")
    t = lazy.tables
    for table in (t.includes, t.defs_by_name, t.linked, t.protos_by_name, t.global_types):
        assert len(table._open) <= len(table._blobs) // 4, (len(table._open), len(table._blobs))
    assert lazy.shared_summary() is None  # nothing changed: the live generation's file stands


def test_the_tables_written_piece_by_piece_are_the_tables_encoded():
    """A full build stages the name tables piece by piece (NameTables.pieces: no whole copy
    of the kernel's 200 MB at once); the file decodes to what `encode` gives, for tables
    built from every file and for tables patched from buckets."""
    files = {**SHARED, **{f"include/h{i}.h": f"int h{i}(void);\n" for i in range(100)}}
    full = CProject(_facts(files), is_test_path)
    full.qualified_defs  # noqa: B018 (made when a C++ lookup first asks: asked here)
    for project in (full, CProject(_facts(files), is_test_path, {}, _prior(_tables(full), set()))):
        pieced = marshal.loads(b"".join(project.tables.pieces()))
        assert pieced == marshal.loads(marshal.dumps(project.tables.encode()))
        assert NameTables.decode(pieced) is not None
