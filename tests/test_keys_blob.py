"""The lookup keys blob (indexer/name_index.py keys_blob, KEYS_FORMAT 1): a file's used names in
the order its facts first name them and its other binder names, one a line, read back by
`read_keys` as the sets plan.lookup_keys_blob found; the same bytes whatever the process's
string hashes; and a blob written before the format (marshal's two sorted lists) read as it
was, alone or beside new ones in one generation's state."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

from codeimpact import indexer
from codeimpact.graph import layout
from codeimpact.indexer import plan
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.name_index import KEYS_FORMAT, keys_blob, read_keys
from codeimpact.indexer.plan import binder_names, lookup_keys_blob, used_names
from codeimpact.indexer.state import load_graph_state
from codeimpact.native import _core
from conftest import write_files

_FILES = sorted(Path(indexer.__file__).parent.rglob("*.py"))


def test_the_sets_plan_finds_in_the_order_the_facts_name_them():
    assert len(_FILES) > 50
    for path in _FILES:
        facts = SPEC.extract(path.read_bytes())
        blob = lookup_keys_blob(facts)
        assert blob[0] == KEYS_FORMAT
        used, extra = read_keys(blob)
        want = used_names(facts)
        assert len(used) == len(want) and set(used) == want, path
        assert extra == sorted(binder_names(facts) - want)


def test_names_of_appends_each_name_once_as_first_met():
    texts = ["b.a", "c", "a.d", "b", "e.c.f"]
    order: list[str] = []
    assert _core.names_of([(t,) for t in texts], 0, 0, order) == set("abcdef")
    assert order == ["b", "a", "c", "d", "e", "f"]
    # past the table's bound (it is emptied mid-call) a name met again is not appended again
    texts = [f"m.n{i}_{i % 7}" for i in range(70_000)] + ["m.n5_5", "m"]
    order = []
    names = _core.names_of([(t,) for t in texts], 0, 0, order)
    assert set(order) == names
    assert order == ["m"] + [t[2:] for t in texts[:70_000]]


_SEEDED = """
import sys
from pathlib import Path
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.plan import lookup_keys_blob
for p in sys.argv[1:]:
    sys.stdout.write(lookup_keys_blob(SPEC.extract(Path(p).read_bytes())).hex() + "\\n")
"""


def test_the_same_bytes_whatever_the_hash_seed():
    files = [str(p) for p in _FILES[:40]]
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", _SEEDED, *files], env=env, check=True,
                             capture_output=True, text=True)  # fmt: skip
        outs.append(run.stdout)
    assert outs[0] == outs[1] and outs[0].count("\n") == len(files)


def test_names_a_line_could_not_hold_go_as_marshal():
    for used, extra in ((["a", "b\nc"], []), (["a"], ["x\0y"]), ([""], []), (["a"], [""])):
        blob = keys_blob(used, extra)
        assert blob[0] != KEYS_FORMAT  # (marshal's)
        assert read_keys(blob) == (sorted(used), sorted(extra))
    for used, extra in (([], []), (["a", ""], ["ü", "\udcff"]), (["x"], [])):
        blob = keys_blob(used, extra)
        assert blob[0] == KEYS_FORMAT
        assert read_keys(blob) == (used, extra)


def test_blobs_written_before_the_format_read_as_they_were():
    names = marshal.dumps((["a", "b"], ["c"]))
    binders = marshal.dumps((["a"], [(("x", "y"), "z")]))  # (an index before binder names)
    assert read_keys(names) == (["a", "b"], ["c"])
    assert read_keys(binders) == (["a"], [(("x", "y"), "z")])


def _module(i: int) -> str:
    return f"from pkg.m{(i + 1) % 12} import f{(i + 1) % 12}\n\ndef f{i}():\n    return f{(i + 1) % 12}()\n"


def test_a_generation_of_marshal_blobs_edited(make_repo, index_repo, monkeypatch):
    files = {f"pkg/m{i}.py": _module(i) for i in range(12)}
    repo = make_repo({"pkg/__init__.py": "", **files})
    with monkeypatch.context() as m:  # (written as before the format: a small build, here)
        m.setattr(plan, "keys_blob", lambda used, extra: marshal.dumps((sorted(used), extra)))
        index_repo(repo)
    state = load_graph_state(layout.read_current(repo / ".codeimpact").path)
    assert all(b[0] != KEYS_FORMAT for b in state.used.values())
    assert state.users_of({"f3"}, True) == {"pkg/m2.py"}
    write_files(repo, {"pkg/m5.py": _module(5) + "\nx = f3()\n"})
    assert index_repo(repo).mode == "incremental"
    state = load_graph_state(layout.read_current(repo / ".codeimpact").path)
    assert state.used["pkg/m5.py"][0] == KEYS_FORMAT  # (the edited file's: the new format)
    assert state.used["pkg/m4.py"][0] != KEYS_FORMAT
    assert state.users_of({"f3"}, True) == {"pkg/m2.py", "pkg/m5.py"}
    assert state.lookup_keys("pkg/m4.py")[0] >= {"f5", "pkg"}
