"""The lookup keys inverted (indexer/name_index.py): an edit finds the files that use or read
a touched name from an index kept beside state-keys.bin, not by decoding every file's keys.
It must answer exactly what decoding them answers, also for files whose keys changed since
the index was made, and it goes on from generation to generation with its keys file."""

from __future__ import annotations

import marshal
import os
import random

import pytest

from codeimpact.graph import layout
from codeimpact.indexer.name_index import NAMES_NAME, load_index
from codeimpact.indexer.plan import flow_reads
from codeimpact.indexer.state import load_graph_state
from conftest import write_files

NAMES = ["alpha", "beta", "gamma", "delta", "omega", "path", "join", "get", "run", "Thing"]


def _module(rng: random.Random, i: int) -> str:
    used = rng.sample(NAMES, 3)
    lines = [f"from pkg.m{(i + 1) % 40} import {used[0]}", f"import os as {used[1]}_mod", ""]
    lines += [f"def f{i}():", f"    return {used[0]}({used[1]}_mod.path.join('a'))", ""]
    lines += [f"{used[2]} = f{i}", f"alias{i} = {used[2]}", ""]
    return "\n".join(lines)


def _by_decoding(state, names: set[str], used_only: bool) -> set[str]:
    out = set()
    for p in state.used:
        keys = state.lookup_keys(p)
        held = keys[0] if used_only else flow_reads(keys)
        if not isinstance(held, frozenset):  # binders themselves (an older index)
            held = frozenset(n for src, _ in held for n in src)
        if not held.isdisjoint(names):
            out.add(p)
    return out


def _live(repo):
    return layout.read_current(repo / ".codeimpact").path


def test_the_index_answers_what_decoding_every_file_answers(make_repo, index_repo):
    rng = random.Random(5)
    files = {f"pkg/m{i}.py": _module(rng, i) for i in range(40)}  # an edit links the keys on
    repo = make_repo({"pkg/__init__.py": "", **files})
    index_repo(repo)
    asked = [{n} for n in NAMES] + [set(rng.sample(NAMES, 3)) for _ in range(6)]
    asked += [{"f3", "alias5"}, {"no_such_name"}, {"os"}]
    for step in range(4):  # edits: each state's keys differ from its index's in more files
        state = load_graph_state(_live(repo))
        assert state.keys_changed or step == 0
        for names in asked:
            for used_only in (True, False):
                assert state.users_of(names, used_only) == _by_decoding(state, names, used_only)
        assert state.names is not None
        write_files(repo, {f"pkg/m{step}.py": _module(rng, step + 10)})
        assert index_repo(repo).mode == "incremental"


def test_an_edit_keeps_the_index_with_its_keys_file(make_repo, index_repo):
    files = {f"pkg/m{i}.py": f"from pkg.m{(i + 1) % 6} import f{(i + 1) % 6}\n\n"
             f"def f{i}():\n    return f{(i + 1) % 6}()\n" for i in range(6)}  # fmt: skip
    repo = make_repo(files)
    index_repo(repo)
    made = os.stat(_live(repo) / NAMES_NAME)  # the full build's
    # a new name that other files call: the plan asks who uses it, read from the index
    write_files(repo, {"pkg/m0.py": files["pkg/m0.py"] + "\n\ndef f1():\n    return 1\n"})
    assert index_repo(repo).mode == "incremental"
    assert os.stat(_live(repo) / NAMES_NAME).st_ino == made.st_ino
    write_files(repo, {"pkg/m2.py": files["pkg/m2.py"] + "\n\ndef f3():\n    return 2\n"})
    assert index_repo(repo).mode == "incremental"
    gen = _live(repo)
    assert os.stat(gen / NAMES_NAME).st_ino == made.st_ino  # linked on, not made again
    # an edit that touches no name (a body edit) reads no index, and keeps it all the same
    write_files(repo, {"pkg/m4.py": files["pkg/m4.py"].replace("()\n", "()  # same\n")})
    report = index_repo(repo)
    assert report.mode == "incremental"
    assert os.stat(_live(repo) / NAMES_NAME).st_ino == made.st_ino
    gen = _live(repo)
    state = load_graph_state(gen)
    assert state.users_of({"f1"}, True) == _by_decoding(state, {"f1"}, True) != set()
    assert state.names is not None and state.names.origin == gen / NAMES_NAME


def test_an_index_of_another_keys_file_is_made_anew(make_repo, index_repo):
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return f{(i + 1) % 6}()\n" for i in range(6)}
    repo = make_repo(files)
    index_repo(repo)
    write_files(repo, {"pkg/m0.py": files["pkg/m0.py"] + "\ndef f1():\n    return 1\n"})
    assert index_repo(repo).mode == "incremental"
    gen = _live(repo)
    state = load_graph_state(gen)
    assert load_index(gen / NAMES_NAME, state.keys_digest) is not None
    assert load_index(gen / NAMES_NAME, state.keys_digest ^ 1) is None
    state.keys_digest ^= 1  # as if state-keys.bin held other bytes than those indexed
    assert state.users_of({"f1"}, True) == _by_decoding(state, {"f1"}, True)
    assert state.names is not None and state.names.origin is None  # made, not read


def test_a_saved_index_answers_as_the_built_one_without_decoding_its_names(tmp_path):
    """state-names.bin keeps the names sorted and packed (FORMAT 2): read back, it answers
    every name, asked or absent, as the index it was saved from, and decodes none of them
    into a dict (an edit asks a few: decoding ~50K was ~5 ms of its CPU)."""
    from codeimpact.indexer.name_index import FORMAT, NameIndex, keys_blob, read_keys

    rng = random.Random(7)
    words = NAMES + ["été", "\udcff", "a" * 300, "zz", "_"]
    base = {f"pkg/m{i}.py": keys_blob(rng.sample(words, 4), rng.sample(NAMES, 2))
            for i in range(50)}  # fmt: skip
    built = NameIndex.build(42, base)
    built.save(tmp_path / NAMES_NAME)
    read = load_index(tmp_path / NAMES_NAME, 42)
    assert read is not None and read.paths == built.paths
    for name in [*words, "", "no_such", "alph", "zzz"]:
        for used_only in (True, False):
            expected = {p for p, blob in base.items()
                        if name in read_keys(blob)[0] or not used_only and name in read_keys(blob)[1]}  # fmt: skip
            assert read.files_with({name}, used_only) == expected
            assert built.files_with({name}, used_only) == expected
    read.save(tmp_path / "again")  # (a read index saved again: the same index)
    again = load_index(tmp_path / "again", 42)
    assert [again.files_with({n}, False) for n in words] == [
        built.files_with({n}, False) for n in words
    ]
    old = tmp_path / "old"
    old.write_bytes(marshal.dumps((FORMAT - 1, 42, built.paths, {"alpha": b"\1\0\0\0"})))
    assert load_index(old, 42) is None


def _index_content(path) -> tuple:
    t = marshal.loads(path.read_bytes())
    return t[:3] + tuple(bytes(x) for x in t[3:])


@pytest.mark.parametrize("workers", [1, 2])
def test_a_full_build_writes_the_index_the_first_edit_would_have_made(make_repo, workers):
    """The full build writes state-names.bin with state-keys.bin (with the sidecars, beside
    the database writer's end), as an edit would make it from that keys file, and
    the first edit reads it and links it on: it does not make it again (that was ~450 M of
    the ~530 M instructions of the first edit's resolution on Django, ~5x a later edit)."""
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions
    from codeimpact.indexer.name_index import NameIndex

    rng = random.Random(11)
    files = {f"pkg/m{i}.py": _module(rng, i) for i in range(40)}
    repo = make_repo({"pkg/__init__.py": "", **files})
    options = RunOptions(workers=workers)
    report = analyze(repo, IndexConfig(), options)
    assert report.mode == "full"
    gen = _live(repo)
    state = load_graph_state(gen)
    written = load_index(gen / NAMES_NAME, state.keys_digest)
    assert written is not None  # made from this keys file, by its digest
    made = NameIndex.build(state.keys_digest, state.keys_base[2])  # what an edit makes
    made.save(gen.parent / "made.bin")
    assert _index_content(gen / NAMES_NAME) == _index_content(gen.parent / "made.bin")
    ino = os.stat(gen / NAMES_NAME).st_ino
    # the first edit touches a name many files use: its plan asks the index
    write_files(repo, {"pkg/m1.py": files["pkg/m1.py"] + "\n\ndef alpha():\n    return 1\n"})
    assert analyze(repo, IndexConfig(), options).mode == "incremental"
    edited = _live(repo)
    assert edited != gen and os.stat(edited / NAMES_NAME).st_ino == ino  # read, linked on
    after = load_graph_state(edited)
    assert after.users_of({"alpha"}, True) == _by_decoding(after, {"alpha"}, True) != set()


def test_a_keys_file_over_the_bound_leaves_its_index_to_the_first_edit(make_repo, monkeypatch):
    """Past state.NAMES_WITH_KEYS_MAX (a kernel's keys: the index's build would hold ~2.8x
    them with the sidecars at the build's memory peak) a full build writes no index; the
    first edit that asks makes it from the keys file and saves it, as before."""
    from codeimpact.indexer import state
    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions

    monkeypatch.setattr(state, "NAMES_WITH_KEYS_MAX", 0)
    rng = random.Random(13)
    files = {f"pkg/m{i}.py": _module(rng, i) for i in range(12)}
    repo = make_repo({"pkg/__init__.py": "", **files})
    assert analyze(repo, IndexConfig(), RunOptions(workers=2)).mode == "full"
    assert not (_live(repo) / NAMES_NAME).exists()
    write_files(repo, {"pkg/m1.py": files["pkg/m1.py"] + "\n\ndef alpha():\n    return 1\n"})
    assert analyze(repo, IndexConfig(), RunOptions(workers=2)).mode == "incremental"
    gen = _live(repo)
    state_now = load_graph_state(gen)
    assert load_index(gen / NAMES_NAME, state_now.keys_digest) is not None


def test_the_native_inverter_packs_what_the_python_build_packs(monkeypatch):
    """native/core_keys.c invert_keys gives the packed index the Python build gives, byte
    for byte: non-ASCII and surrogate-escaped names, an empty name beside others, files with
    no used or no binder names, names shared by many files; keys of marshal's older form are
    left to Python (None)."""
    import marshal

    from codeimpact.indexer import resolved
    from codeimpact.indexer.name_index import NameIndex, keys_blob

    core = resolved.native_core()
    if not hasattr(core, "invert_keys"):
        pytest.skip("an extension built before invert_keys")
    rng = random.Random(3)
    words = [*NAMES, "été", "日本", "\udcff", "a" * 300, "zz", "_", "z"]
    base = {f"pkg/m{i}.py": keys_blob(rng.sample(words, rng.randrange(0, 6)),
                                      rng.sample(NAMES, rng.randrange(0, 3)))
            for i in range(300)}  # fmt: skip
    base["pkg/empty.py"] = keys_blob(["alpha", ""], [])  # (an empty name beside another)
    base["pkg/none.py"] = keys_blob([], [])
    native = NameIndex.build(7, base)

    class WithoutInvert:  # the extension as one built before invert_keys
        pass

    monkeypatch.setattr(resolved, "_core", WithoutInvert())
    python = NameIndex.build(7, base)
    monkeypatch.setattr(resolved, "_core", core)
    assert native.paths == python.paths
    assert [bytes(a) for a in native._packed] == [bytes(b) for b in python._packed]
    older = {"pkg/a.py": marshal.dumps((["alpha"], ["beta"]))}
    assert core.invert_keys(list(older.values())) is None
    assert NameIndex.build(7, older).files_with({"beta"}, False) == {"pkg/a.py"}
