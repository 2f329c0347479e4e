"""A full build resolved by partition workers (indexer/resolve_parts.py) says exactly what
the host's whole project says, whichever worker resolves a file and whatever it dropped."""

from __future__ import annotations

import functools
import marshal
import multiprocessing
import os

import pytest

from codeimpact.indexer.lang import LANGUAGES
from codeimpact.indexer.lang.api import FileFacts, Prior
from codeimpact.indexer.lang.cfamily import C_SPEC
from codeimpact.indexer.lang.cfamily.extract import is_test_path
from codeimpact.indexer.lang.cfamily.resolve import CProject, _Walk
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.resolution import _resolve_encoded, make_projects, stage_shared, staged
from codeimpact.indexer.resolve_host import Host
from codeimpact.indexer.resolve_parts import part_resolver, resolve_split, worth_splitting
from codeimpact.indexer.resolve_workers import CHUNK_FILES, ResolveError


def _tree(folders: int = 6, per: int = 8) -> dict[str, str]:
    """Folders of C files over a shared header and one of their own each: typedefs of
    structs, members, macros, prototypes, statics, and a name defined in two folders (the
    nearest definition wins)."""
    files = {
        "include/core.h": "#ifndef CORE_H\n#define CORE_H\ntypedef struct node { struct node "
        "*next; int (*fn)(int); } node_t;\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
        "int core_len(node_t *n);\nextern int counter;\n#endif\n",
        "lib/core.c": '#include "core.h"\nint counter;\nint core_len(node_t *n)\n{\n'
        "\treturn n ? 1 + core_len(n->next) : 0;\n}\n",
    }
    for f in range(folders):
        files[f"sub{f}/local.h"] = (
            f'#include "core.h"\nstruct dev{f} {{ node_t head; int id; }};\n'
            f"int dev{f}_probe(struct dev{f} *d);\nint shared(int x);\n"
        )
        files[f"sub{f}/shared.c"] = f"int shared(int x)\n{{\n\treturn x + {f};\n}}\n"
        for i in range(per):
            files[f"sub{f}/f{i}.c"] = (
                f'#include "local.h"\nstatic int twice(int x)\n{{\n\treturn MAX(x, 2 * x);\n}}\n'
                f"int dev{f}_probe(struct dev{f} *d)\n{{\n\td->head.fn = twice;\n"
                f"\treturn core_len(&d->head) + shared(d->id) + counter;\n}}\n"
                f"int f{f}_{i}(struct dev{f} *d)\n{{\n\treturn dev{f}_probe(d) + twice(d->id);\n}}\n"
            )
    return files


def _facts(files: dict[str, str]) -> dict[str, FileFacts]:
    return {p: C_SPEC.extract(src.encode()) for p, src in files.items()}


@pytest.mark.parametrize("backwards", [False, True])
def test_a_walking_project_resolves_each_file_as_the_whole_project_does(monkeypatch, backwards):
    # a sweep every 3 files, keeping what the last 5 reached: most indexes are dropped and
    # built again, the memo entries of every resolved source file go
    monkeypatch.setattr(_Walk, "SWEEP", 3)
    monkeypatch.setattr(_Walk, "WINDOW", 5)
    facts = _facts(_tree())
    whole = CProject(facts, is_test_path)
    summaries = {p: marshal.loads(marshal.dumps(s)) for p, s in whole.summaries().items()}
    tables = marshal.dumps(whole.shared_summary())
    built: list[str] = []

    def load(path: str) -> FileFacts:
        built.append(path)
        return facts[path]

    walking = CProject(LazyFacts(sorted(facts), load), is_test_path, {},
                       Prior(summaries, set(), None, lambda g: marshal.loads(tables)))  # fmt: skip
    walking.walk_on()
    order = sorted(facts, reverse=backwards)
    for path in order:
        assert walking.resolve_file(path) == whole.resolve_file(path), path
        walking.release(path)
    assert len(walking.files) < len(facts) // 4  # what the walk left behind was dropped
    assert len(built) > 2 * len(facts)  # (and built again when reached again)
    sources = {p for p in order if p.endswith(".c")}  # (their memo entries went with them)
    assert not any(sources.intersection(k) for k in walking.memo.table)


PATHS = [f"f{i:04d}" for i in range(300)]
_BUILDER = os.getpid()


def _one(path: str) -> tuple[bytes, bytes]:
    return path.encode(), str(os.getpid()).encode()


def _dies(path: str) -> tuple[bytes, bytes]:
    if path == "f0290" and os.getpid() != _BUILDER:
        os._exit(3)  # the second worker (from the back) dies in its first chunk, and the
        # first when handed that chunk again
    return _one(path)


def _raises(path: str) -> tuple[bytes, bytes]:
    if path == "f0150":
        raise KeyError(path)
    return _one(path)


@pytest.mark.parametrize("one", [_one, _dies])
def test_the_workers_meet_in_the_middle_and_the_outputs_come_in_order(tmp_path, one):
    got = list(resolve_split(PATHS, lambda: one, tmp_path))
    assert [(p, b) for p, b, _ in got] == [(p, p.encode()) for p in PATHS]
    pids = [int(k) for _, _, k in got]
    if one is _one:  # one worker took the front, the other the back
        first, last = pids[0], pids[-1]
        assert _BUILDER not in pids and first != last and set(pids) == {first, last}
        assert pids == sorted(pids, key=lambda p: p != first)  # each a run of its own
    else:  # what no worker lived to resolve was resolved here
        assert pids[PATHS.index("f0290")] == _BUILDER and pids[0] != _BUILDER
    assert os.listdir(tmp_path) == []  # the scratch file of the early outputs is gone
    assert multiprocessing.active_children() == []


def test_a_resolver_bug_in_a_part_worker_is_raised_in_the_builder(tmp_path):
    with pytest.raises(ResolveError, match="KeyError: 'f0150'"):
        list(resolve_split(PATHS, lambda: _raises, tmp_path))
    assert multiprocessing.active_children() == []


def test_the_host_leaves_a_c_tree_to_partition_workers_with_the_same_outputs(tmp_path):
    """The host's projects built, the tables staged, the module names and summaries sent:
    the builder's partition workers resolve every file as the host would have."""
    files = {f"{p}": s for p, s in _tree(folders=8, per=CHUNK_FILES).items()}
    facts = _facts(files)
    lang_of = {p: "c" for p in facts}
    order = sorted(facts)

    def lazy() -> LazyFacts:
        return LazyFacts(order, facts.__getitem__)

    serial_projects = make_projects(lazy(), lang_of, {})
    want = [(p, *_resolve_encoded(serial_projects, lang_of, lazy(), p)) for p in order]
    source = lazy()
    build = functools.partial(make_projects, source, lang_of, {})
    built = functools.partial(stage_shared, folder=tmp_path, token="t")

    def parted(modules: dict, summaries: dict[str, bytes]):
        make = functools.partial(part_resolver, source, lang_of, {}, modules, summaries,
                                 staged(tmp_path, "t"))  # fmt: skip
        return resolve_split(order, make, tmp_path)

    def encoder(projects):
        return functools.partial(_resolve_encoded, projects, lang_of, source)

    split = (functools.partial(worth_splitting, lang_of=lang_of), parted)
    # two processes may resolve, but the host may not fork a worker of its own (memory)
    host = Host(build, encoder, lambda projects: 2 if projects is None else 1, order, built,
                split)  # fmt: skip
    assert list(host.results()) == want
    assert host.split
    assert host.modules == {"c": serial_projects["c"].module_names()}
    summaries = {p: marshal.loads(b) for p, b in host.summaries.items()}
    assert summaries == dict(serial_projects["c"].summaries())
    assert multiprocessing.active_children() == []
    assert LANGUAGES["c"].group in staged(tmp_path, "t")
