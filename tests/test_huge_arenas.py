"""native/core_arenas.c: the resolve host's small-object arenas are carved from 2 MiB spans
advised MADV_HUGEPAGE (the kernel backs each with one huge page at its first touch, not a
page fault per 4 KiB), in the host for its whole life (its build and its resolution) and in
the workers it forks; the builder's own allocator is left as it is."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from codeimpact.native import _core

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="MADV_HUGEPAGE: Linux only")

PROBE = r"""
import gc, sys
from codeimpact.native import _core
gc.disable()

def advised(addr):  # (whether the mapping holding addr is advised huge, its start % 2 MiB)
    flags = start = None
    for line in open("/proc/self/smaps"):
        head = line.split()
        if "-" in head[0] and len(head) >= 5:
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            inside = lo <= addr < hi
            if inside:
                start = lo
        elif inside and head[0] == "VmFlags:":
            return "hg" in head[1:], start % (2 << 20)

held = []
def grow():  # the newest arena's mapping
    held.append([(i, str(i)) for i in range(60_000)])  # (~2.5 arenas of small objects)
    hg, offset = advised(id(held[-1][-1]))
    return f"{int(hg)}{int(offset == 0)}"

if sys.argv[1] == "huge":
    assert not _core.huge_arenas(True) and _core.arenas_huge()
    print(grow())
    assert _core.huge_arenas(False) and not _core.arenas_huge()
print(grow())
"""


def _grown(mode: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                          check=True).stdout.split()  # fmt: skip


def test_new_arenas_are_carved_from_aligned_huge_page_spans_only_while_on():
    on, off = _grown("huge")
    assert on == "11"  # advised, and the mapping starts on a 2 MiB boundary
    assert off[0] == "0"  # the allocator before: plain mappings
    assert _grown("default")[0][0] == "0"


def test_the_resolve_host_and_its_workers_take_huge_arenas_the_builder_does_not(tmp_path):
    from codeimpact.indexer.resolve_host import Host

    seen = tmp_path / "seen"

    def projects() -> dict:
        seen.write_text(str(_core.arenas_huge()))  # (in the host, as it builds)
        return {"built in": os.getpid()}

    def encoder(projects: dict):
        # (in the host and its worker, once built: each path takes a little while, so both
        # take chunks)
        def one(path: str) -> tuple[bytes, bytes]:
            time.sleep(0.002)
            return path.encode(), f"{_core.arenas_huge()} {os.getpid()}".encode()

        return one

    paths = [f"f{i:03d}" for i in range(240)]
    got = list(Host(projects, encoder, lambda projects: 2, paths).results())
    assert [p for p, _, _ in got] == paths
    assert seen.read_text() == "True"
    answers = {keys.split()[0] for _, _, keys in got}
    assert answers == {b"True"}
    assert len({keys.split()[1] for _, _, keys in got}) >= 2  # (the host and a worker answered)
    assert not _core.arenas_huge()  # (the builder's own allocator is left as it is)
