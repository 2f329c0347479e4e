"""What the run's pipes to its children carry (indexer/pipe_codec.py): plain values marshalled,
the rest (an exception) pickled, each read back as it was sent."""

from __future__ import annotations

import subprocess
import sys

from codeimpact.graph.delta import GraphDelta
from codeimpact.indexer import pipe_codec, wal_commit


def test_a_delta_goes_through_marshal_and_comes_back_equal():
    delta = GraphDelta(files_delete=["a.py"], symbols_insert=[("k", "f", 1, None, 2.5, True)],
                       updates={("Symbol", ("line",)): [("k", 3)]},
                       rels_insert={"CALLS": [("a", "b", 7, b"x")]}, edges_rewritten=4)  # fmt: skip
    data = pipe_codec.dumps(wal_commit._delta_message(delta))
    assert data[:1] == b"M"
    assert GraphDelta(*pipe_codec.loads(data)) == delta


def test_an_exception_is_pickled_and_read_back():
    data = pipe_codec.dumps(OSError(28, "No space left on device"))
    assert data[:1] == b"P"
    error = pipe_codec.loads(data)
    assert isinstance(error, OSError) and error.errno == 28


def test_reading_plain_values_imports_no_pickle():
    probe = ("import sys; from codeimpact.indexer import pipe_codec; "
             "v = {'rows': {'Symbol': 3}, 'info': {'source': 'spare'}, 't': (1, None, 'x')}; "
             "assert pipe_codec.loads(pipe_codec.dumps(v)) == v; print('pickle' in sys.modules)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
