"""Kùzu is imported without the asyncio its AsyncConnection brings (graph/store.py
`kuzu_module`), and AsyncConnection still works when asked for. Fresh interpreters: what a
process imports is the point."""

from __future__ import annotations

import subprocess
import sys

OPEN = """
import sys
from codeimpact.graph.store import kuzu_module
kuzu = kuzu_module()
db = kuzu.Database(sys.argv[1])
conn = kuzu.Connection(db)
conn.execute("CREATE NODE TABLE T(k STRING, PRIMARY KEY(k))")
conn.execute("CREATE (:T {k: 'a'})")
res = conn.execute("MATCH (t:T) RETURN t.k")
assert res.get_next() == ["a"]
print("asyncio" in sys.modules, "concurrent.futures" in sys.modules, "ssl" in sys.modules)
"""

ASYNC = (
    OPEN
    + """
import asyncio
import importlib
async def main():
    aconn = kuzu.AsyncConnection(db)
    assert isinstance(aconn, kuzu.AsyncConnection)
    real = importlib.import_module("kuzu.async_connection")  # the module itself now
    assert isinstance(aconn, real.AsyncConnection) and real.__file__
    res = await aconn.execute("MATCH (t:T) RETURN t.k")
    out = res.get_next()
    aconn.close()
    return out
print(asyncio.run(main()))
"""
)


def _run(code: str, tmp_path) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "db.kz")],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.splitlines()


def test_opening_a_database_imports_no_asyncio(tmp_path):
    assert _run(OPEN, tmp_path)[0] == "False False False"


def test_async_connection_still_works(tmp_path):
    lines = _run(ASYNC, tmp_path)
    assert lines[1] == "['a']", lines
