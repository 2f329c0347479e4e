"""native/core_arenas.c: the resolve host's small-object arenas are mapped with their pages
populated at once (one mmap per 1 MiB arena, not a page fault per page as its pools are
first used): the projects are built on a full build's serial stretch, one core idle."""

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

def arenas():  # 1 MiB anonymous mappings -> their resident kB
    out, size, start = {}, None, None
    for line in open("/proc/self/smaps"):
        head = line.split()
        if "-" in head[0] and len(head) >= 5:
            start, size = head[0], None
        elif head[0] == "Size:":
            size = int(head[1])
        elif head[0] == "Rss:" and size == 1024:
            out[start] = int(head[1])
    return out

if sys.argv[1] == "populate":
    assert _core.populate_arenas() and _core.arenas_populated()
before = arenas()
held = [(i, str(i)) for i in range(60_000)]  # (~2.5 arenas of small objects)
new = {k: v for k, v in arenas().items() if k not in before}
print(len(new), min(new.values()) if new else -1)
"""


@pytest.mark.parametrize("mode", ["populate", "default"])
def test_new_arenas_are_resident_at_once_once_populated(mode):
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    count, least = int(out[0]), int(out[1])
    assert count >= 2
    if mode == "populate":
        assert least == 1024  # every page of every new arena, used or not yet
    else:
        assert least < 1024  # the newest arena: only the pools used so far


def test_the_resolve_host_builds_its_projects_in_populated_arenas(tmp_path):
    from codeimpact.indexer.resolve_host import Host

    seen = tmp_path / "seen"

    def projects() -> dict:
        seen.write_text(str(_core.arenas_populated()))  # (in the host, before it builds)
        return {"built in": os.getpid()}

    def encoder(projects: dict):
        return lambda path: (path.encode(), b"")

    paths = [f"f{i:03d}" for i in range(50)]
    got = list(Host(projects, encoder, lambda projects: 1, paths).results())
    assert [p for p, _, _ in got] == paths
    assert seen.read_text() == "True"
    assert not _core.arenas_populated()  # (the builder's own allocator is left as it is)
