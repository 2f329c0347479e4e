"""native/core_arenas.c: the resolve host builds its projects in small-object arenas mapped
with their pages populated at once (one mmap per 1 MiB arena, not a page fault per page as
its pools are first used): the build is a full build's serial stretch, one core idle. Off
again before it forks its workers (populated for the whole resolution, the tree's PSS grew
372 -> 389 MB on Django)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from codeimpact.native import _core

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="MAP_POPULATE: Linux only")

PROBE = r"""
import gc, sys
from codeimpact.native import _core
gc.disable()

def resident(addr):  # (kB resident, kB mapped) of the mapping holding addr
    size = None
    for line in open("/proc/self/smaps"):
        head = line.split()
        if "-" in head[0] and len(head) >= 5:
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            inside = lo <= addr < hi
        elif inside and head[0] == "Size:":
            size = int(head[1])
        elif inside and head[0] == "Rss:":
            return int(head[1]), size

held = []
def grow():  # the newest arena's mapping (adjacent arenas are one mapping)
    held.append([(i, str(i)) for i in range(60_000)])  # (~2.5 arenas of small objects)
    rss, size = resident(id(held[-1][-1]))
    return f"{int(rss == size)}"

if sys.argv[1] == "populate":
    assert not _core.populate_arenas(True) and _core.arenas_populated()
    print(grow())
    assert _core.populate_arenas(False) and not _core.arenas_populated()
print(grow())
"""


def _grown(mode: str) -> list[bool]:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    return [x == "1" for x in out]


def test_new_arenas_are_resident_at_once_only_while_populated():
    on, off = _grown("populate")
    assert on  # every page of the newest arena, used or not yet
    assert not off  # the newest arena: only the pools used so far
    assert _grown("default") == [False]


def test_the_resolve_host_builds_its_projects_in_populated_arenas_and_forks_without(tmp_path):
    from codeimpact.indexer.resolve_host import Host

    seen = tmp_path / "seen"

    def projects() -> dict:
        seen.write_text(str(_core.arenas_populated()))  # (in the host, as it builds)
        return {"built in": os.getpid()}

    def encoder(projects: dict):
        # (in the host and its worker, once built)
        return lambda path: (path.encode(), str(_core.arenas_populated()).encode())

    paths = [f"f{i:03d}" for i in range(50)]
    got = list(Host(projects, encoder, lambda projects: 2, paths).results())
    assert [p for p, _, _ in got] == paths
    assert seen.read_text() == "True"
    assert {keys for _, _, keys in got} == {b"False"}
    assert not _core.arenas_populated()  # (the builder's own allocator is left as it is)
