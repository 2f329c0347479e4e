"""Lines of a file's bytes (indexer/lang/api.py count_lines): the scan counts every file it
reads, each extractor again, by native/_core.c line_count (a vector of bytes at a time)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeimpact.indexer.lang import api
from codeimpact.native import _core

EDGES = [b"", b"\n", b"a", b"a\n", b"\n\n", b"a\nb", b"\r\n", b"a\r", b"x" * 1000,
         b"\n" * 255, b"\n" * 256 + b"a", b"\n" * 1000, (b"ab\n" * 300)[:-1]]  # fmt: skip


@pytest.mark.parametrize("data", EDGES, ids=range(len(EDGES)))
def test_line_count_is_the_newlines_and_a_last_line_without_one(data):
    expected = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    assert _core.line_count(data) == expected
    assert api.count_lines(data) == expected
    assert _core.line_count(memoryview(data)) == expected  # any buffer


def test_count_lines_is_the_native_one_and_agrees_on_real_files():
    api.count_lines(b"")  # bound on first use
    assert api._line_count is _core.line_count
    files = [p for p in Path(api.__file__).parents[2].rglob("*.py")][:400]
    for p in files:
        data = p.read_bytes()
        assert api.count_lines(data) == api._count_lines(data), p


def test_line_count_takes_bytes_only():
    with pytest.raises(TypeError):
        _core.line_count("a\n")
