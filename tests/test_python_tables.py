"""The Python project's tables (lang/python/tables.py): an edit patches the previous run's
tables for the files summarised again, and they are the tables a build from every file's
facts makes; the project then resolves every file as that build does."""

from __future__ import annotations

import marshal
from collections.abc import Mapping

from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lang.python.resolve import PythonProject
from codeimpact.indexer.lang.python.tables import Tables
from codeimpact.indexer.marshalled import Marshalled

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    def run(self):\n        return 1\n\n"
    "    @property\n    def size(self):\n        return 2\n",
    "pkg/a.py": "from pkg.base import Base\n\n\nclass A(Base):\n    def run(self):\n"
    "        return self.size\n\n    def go(self):\n        return 3\n",
    "pkg/m.py": "from pkg.a import A\n\n\nclass M(A):\n    def go(self):\n"
    "        return A().run()\n\n\ndef use(m: M):\n    return m.go() + m.size\n",
    "pkg/z.py": "from pkg.base import Base\n\n\nclass Z(Base):\n    def run(self):\n"
    "        return 0\n",
    "pkg/s.pyi": "class S:\n    def run(self) -> int: ...\n",
    "tests/test_m.py": "from pkg.m import M, use\n\n\ndef test_use():\n    assert use(M())\n",
}

EDITS = [
    # a method and a subclass of Base added in a file between others (list order)
    (
        "pkg/m.py",
        FILES["pkg/m.py"] + "\n\nclass N(Base):\n    def run(self):\n"
        "        return 5\n\n    def size(self):\n        return 6\n",
    ),  # fmt: skip
    # ...whose import then resolves: N's base is known (a clean bases result)
    (
        "pkg/m.py",
        "from pkg.base import Base\n" + FILES["pkg/m.py"] + "\n\nclass N(Base):\n"
        "    def run(self):\n        return 5\n",
    ),  # fmt: skip
    # a method gone, a property added
    (
        "pkg/a.py",
        "from pkg.base import Base\n\n\nclass A(Base):\n    @property\n"
        "    def extra(self):\n        return 4\n\n    def go(self):\n        return 3\n",
    ),  # fmt: skip
    # a descriptor class and a class attribute holding one: a read name
    (
        "pkg/base.py",
        FILES["pkg/base.py"] + "\n\nclass Desc:\n    def __get__(self, obj, t):\n"
        "        return 1\n\n\nclass Holder:\n    value = Desc()\n",
    ),  # fmt: skip
    # a base changed; then every method of a file gone
    ("pkg/z.py", "from pkg.a import A\n\n\nclass Z(A):\n    def run(self):\n        return 0\n"),
    ("pkg/z.py", "Z = 1\n"),
]


def _facts(files: dict[str, str]) -> dict[str, FileFacts]:
    return {p: SPEC.extract(src.encode()) for p, src in files.items()}


def _project(facts, prior=None) -> PythonProject:
    return PythonProject(facts, SPEC.is_test_path, {}, prior)


def _handed(project: PythonProject) -> tuple[dict, tuple]:
    """The summaries and the tables a project hands the next run (the tables' dicts in key
    order: a patched file's keys join them last, and only lists' orders are read)."""
    summaries = {p: marshal.loads(b) for p, b in project.encoded_summaries(None).items()}
    t = Tables.decode(marshal.loads(marshal.dumps(project._tables.encode())),
                      project.module_names())  # fmt: skip
    tables = (t.paths, dict(t.module_of), t.module_file, t.methods_by_name, t.subclasses, t.reads,
              t.names)  # fmt: skip
    return summaries, tuple(dict(sorted(x.items())) if isinstance(x, Mapping) else x
                            for x in tables)  # fmt: skip


def _prior(before: tuple[dict, tuple], dirty: set[str]) -> Prior:
    """A prior with those summaries and tables as the next run reads them (a copy: a
    project patches them in place)."""
    summaries, tables = before
    stored = marshal.dumps(Tables(*tables).encode())
    modules = {p: tables[1][p][0] for p in tables[0]}  # (in the paths' order, as handed on)
    return Prior(summaries, dirty, {"python": modules}, lambda group: marshal.loads(stored))


def _resolved(project: PythonProject, paths) -> dict:
    return {p: project.resolve_file(p) for p in sorted(paths)}


def test_the_tables_an_edit_patches_are_the_ones_a_full_build_makes():
    files = dict(FILES)
    before = _handed(_project(_facts(files)))
    for path, text in EDITS:
        files[path] = text
        facts = _facts(files)
        full = _project(facts)
        for dirty in ({path}, set(files)):  # the edited file; every file summarised again
            patched = _project(facts, _prior(before, dirty))
            assert patched._summary.__class__ is not dict  # patched, not built anew
            assert patched.shared_summary() is not None, (path, dirty)  # they changed
            assert _handed(patched) == _handed(full), (path, dirty)
            assert patched.module_names() == full.module_names()
            assert patched.read_names == full.read_names
            assert _resolved(patched, files) == _resolved(_project(facts), files), (path, dirty)
        before = _handed(full)

    # a statement added to a body changes no summary: the tables stand, not written again
    files["pkg/a.py"] = files["pkg/a.py"].replace("return 3", "x = 1\n        return 3")
    facts = _facts(files)
    same = _project(facts, _prior(before, {"pkg/a.py"}))
    assert same._summary.__class__ is not dict
    assert same.shared_summary() is None
    assert _handed(same) == _handed(_project(facts))


def test_the_tables_are_built_anew_when_files_come_or_go():
    """A module name depends on the set of packages: a file added or removed is no patch."""
    facts = _facts(FILES)
    before = _handed(_project(facts))
    fewer = {p: f for p, f in facts.items() if p != "pkg/__init__.py"}
    again = _project(fewer, _prior(before, {"pkg/m.py"}))
    assert again._summary.__class__ is dict
    assert again.shared_summary() is not None
    assert _handed(again) == _handed(_project(fewer))
    assert again.module_names()["pkg/m.py"] == "m"  # no package: a top-level module now


def test_a_project_reads_its_file_indexes_from_a_plain_dict_once_every_file_is_indexed():
    """A full build summarises (so indexes) every file: its indexes are read from a plain
    dict (a dict subclass's item read is CPython's generic subscript); a project that
    summarised only the edited files indexes the others when they are first read."""
    facts = _facts(FILES)
    full = _project(facts)
    assert full.files.__class__ is dict
    edit = _project(facts, _prior(_handed(full), {"pkg/m.py"}))
    assert edit.files.__class__ is not dict and len(edit.files) < len(FILES)
    assert _resolved(edit, FILES) == _resolved(full, FILES)
    assert len(edit.files) == len(FILES)  # (indexed as they were read)


def test_an_edit_reads_the_bases_of_a_file_not_summarised_again_from_its_summary():
    """The clean bases of a class of a file an edit does not summarise again are its previous
    summary's: neither decoded up front for the memo nor found by indexing the file."""
    facts = _facts(FILES)
    full = _project(facts)
    edit = _project(facts, _prior(_handed(full), {"pkg/m.py"}))
    assert ("bases", "pkg/z.py", "Z") not in edit.memo.table
    assert "pkg/z.py" not in dict.keys(edit.files)
    assert edit._bases_info("pkg/z.py", "Z") == full._bases_info("pkg/z.py", "Z")
    assert edit.bases("pkg/z.py", "Z") == [("pkg/base.py", "Base")]
    assert "pkg/z.py" not in dict.keys(edit.files)  # answered by the summary
    # a file summarised again finds its bases anew
    assert edit._bases_info("pkg/m.py", "M") == full._bases_info("pkg/m.py", "M")
    assert _resolved(edit, FILES) == _resolved(full, FILES)


def test_the_read_names_kept_in_the_tables_follow_a_getter_defined_in_another_file():
    """The tables keep the names read from the read summaries; a `__get__` added to a class
    makes an attribute of another file holding an instance of it a read name, though no
    read summary changed."""
    files = {
        "pkg/__init__.py": "",
        "pkg/d.py": "class D:\n    pass\n",
        "pkg/h.py": "from pkg.d import D\n\n\nclass H:\n    v = D()\n",
    }
    before = _handed(_project(_facts(files)))
    assert before[1][-1] is not None  # (the names are kept)
    files["pkg/d.py"] = "class D:\n    def __get__(self, obj, t):\n        return 1\n"
    facts = _facts(files)
    full = _project(facts)
    patched = _project(facts, _prior(before, {"pkg/d.py"}))
    assert "v" in full.read_names
    assert patched.read_names == full.read_names
    assert patched.member_names == full.member_names
    assert _handed(patched) == _handed(full)


def test_an_edit_decodes_the_subclasses_and_the_read_summaries_only_when_it_reads_them():
    facts = _facts(FILES)
    full = _project(facts)
    edit = _project(facts, _prior(_handed(full), {"pkg/m.py"}))
    tables = edit._tables
    assert isinstance(tables.subclasses, Marshalled) and tables.subclasses._dict is None
    assert isinstance(tables.reads, Marshalled) and tables.reads._dict is None  # names stood
    assert edit.read_names == full.read_names and edit.member_names == full.member_names
    assert _resolved(edit, FILES) == _resolved(full, FILES)
    assert tables.subclasses._dict is not None  # (read for the overrides of Base.run)
    assert _handed(edit) == _handed(full)


def test_an_edit_takes_the_previous_module_names_when_its_tables_stand():
    """The (module, package) of each path are made from the module names the previous run
    handed on, when a file is first indexed; without them the tables are built anew."""
    facts = _facts(FILES)
    full = _project(facts)
    prior = _prior(_handed(full), {"pkg/m.py"})
    edit = _project(facts, prior)
    assert edit._summary.__class__ is not dict  # the tables stood
    assert edit.module_names() is prior.modules["python"]
    assert edit.module_names() == full.module_names()
    assert len(edit._module_of._made) < len(FILES)  # (made for the files indexed so far)
    assert _resolved(edit, FILES) == _resolved(full, FILES)
    assert {p: edit._module_of[p] for p in FILES} == full._module_of
    unnamed = Prior(prior.summaries, prior.dirty, None, prior.shared)
    assert _project(facts, unnamed)._summary.__class__ is dict


def test_an_edit_hands_on_the_summaries_of_the_files_it_summarised_again():
    """With its tables standing, the summaries a project hands on are the previous run's
    bytes with those of the files summarised again put in."""
    files = dict(FILES)
    full = _project(_facts(files))
    before = _handed(full)
    blobs = {p: marshal.dumps(s) for p, s in before[0].items()}
    files["pkg/a.py"] = EDITS[2][1]
    edit = _project(_facts(files), _prior(before, {"pkg/a.py", "pkg/m.py"}))
    fresh = edit.fresh_summaries()
    assert sorted(fresh) == ["pkg/a.py", "pkg/m.py"]
    assert {**blobs, **fresh} == edit.encoded_summaries(blobs)
    every = _project(_facts(files), _prior(before, set(files)))
    assert every.fresh_summaries().keys() == files.keys()
    fewer = {p: f for p, f in _facts(files).items() if p != "pkg/z.py"}
    assert _project(fewer, _prior(before, {"pkg/a.py"})).fresh_summaries() is None  # built anew


def test_the_tables_built_in_c_are_the_ones_python_builds(monkeypatch):
    """native/core_tables.c's Tables.build: the same entries in the same orders, the same
    (path, local) pairs, and so the same bytes written for the next run."""
    from codeimpact.indexer.lang import api

    facts = _facts(FILES)
    made = _project(facts)._tables

    class PythonOnly:
        def __getattr__(self, name):
            if name in ("tables_build", "buckets_split", "crc_index"):
                raise AttributeError(name)
            return getattr(core, name)

    core = api.native_core()
    monkeypatch.setattr(api, "_native", PythonOnly())
    python = _project(facts)._tables
    assert made.methods_by_name and made.subclasses and made.reads  # (something to compare)
    for name in ("methods_by_name", "subclasses", "reads"):
        a, b = getattr(made, name), getattr(python, name)
        assert list(a.items()) == list(b.items()), name
    assert marshal.dumps(made.encode()) == marshal.dumps(python.encode())
