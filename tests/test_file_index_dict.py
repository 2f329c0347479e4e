"""An indexed FileIndex holds its attributes in a dict of its own (python/index.py
`index_file`), not in a "split" dict sharing its class's keys, whose attribute reads CPython
3.11 specialises and then undoes at every read; its lazy tables still work."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import pytest

from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.lang.python import index
from codeimpact.indexer.reading import extract_source

ROOT = Path(__file__).resolve().parents[1]


class _Dict(ctypes.Structure):  # (CPython's PyDictObject, up to ma_values)
    _fields_ = [("refcnt", ctypes.c_ssize_t), ("type", ctypes.c_void_p),
                ("used", ctypes.c_ssize_t), ("version", ctypes.c_uint64),
                ("keys", ctypes.c_void_p), ("values", ctypes.c_void_p)]  # fmt: skip


def _split(d: dict) -> bool:
    return _Dict.from_address(id(d)).values is not None


def _indexed(path: Path) -> index.FileIndex:
    facts = FileFacts.from_bytes(extract_source("python", path.read_bytes()))
    fi = index.FileIndex("pkg/m.py", "pkg.m", "pkg", facts)
    index.index_file(fi)
    return fi


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's dict layout")
def test_an_indexed_file_s_dict_shares_no_keys():
    probe = index.FileIndex("a.py", "a", "", FileFacts(language="python"))
    probe.__dict__  # noqa: B018 (made as CPython makes an instance's dict: split)
    assert _split(probe.__dict__)  # (the layout read here is the interpreter's)
    for name in ("resolve.py", "index.py", "values.py"):
        fi = _indexed(ROOT / "indexer" / "lang" / "python" / name)
        assert not _split(fi.__dict__), name
        index.index_calls(fi)
        assert not _split(fi.__dict__), name


def test_the_tables_of_an_indexed_file_are_read_as_before():
    fi = _indexed(ROOT / "indexer" / "lang" / "python" / "flows.py")
    assert fi.path == "pkg/m.py" and fi.names and fi.syms and fi.parent
    assert "_aliases" in fi.__dict__ and "param_calls" not in fi.__dict__
    assert isinstance(fi.param_calls, dict)  # (made on first read: index_calls)
    assert "_aliases" not in fi.__dict__ and "param_calls" in fi.__dict__
