"""The messages a run's forked children and the run send each other through a pipe.

marshal (built in) encodes the plain values they send (a delta's fields, the Meta, the
working tree's fields, the answers); pickle, ~2 ms of CPU to import in an edit's run, which
needs it for nothing else, encodes only what marshal refuses (an exception, a value of
another type). The first byte says which."""

from __future__ import annotations

import marshal
from typing import Any


def dumps(value: Any) -> bytes:
    try:
        return b"M" + marshal.dumps(value)
    except ValueError:
        import pickle

        return b"P" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def loads(data: bytes) -> Any:
    body = memoryview(data)[1:]
    if data[:1] == b"M":
        return marshal.loads(body)
    import pickle

    return pickle.loads(body)
