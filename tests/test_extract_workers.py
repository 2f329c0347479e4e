"""Extraction workers: every file answered, in any mix of sizes, without the pipes jamming."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from codeimpact.indexer.reading import extract_source
from codeimpact.indexer.workers import extract_parallel

# Run in a child so that a deadlock fails the test (after the time limit) instead of hanging
# the suite. Thousands of small files after a few large ones: a worker held hundreds of small
# files per batch while the parent sent it a batch per answer; those filled the socket, the
# parent blocked sending and the worker blocked answering (a real 52,452-file tree hung so).
_MANY_SMALL_FILES = textwrap.dedent(
    """
    from codeimpact.indexer.workers import extract_parallel
    items = [(f"big{i}.py", "python", b"def f(x):\\n    return g(x)\\n" * 20000) for i in range(4)]
    items += [(f"f{i}.py", "python", b"x = 1\\n" * 15) for i in range(30000)]
    got = []
    n, failed = extract_parallel(items, 2, 60.0, None, lambda path, blob: got.append(path))
    assert n == len(items) and not failed, (n, failed)
    assert sorted(got) == sorted(p for p, _, _ in items)
    print("ok")
    """
)


def test_many_small_files_after_large_ones_do_not_deadlock_the_workers():
    out = subprocess.run(
        [sys.executable, "-c", _MANY_SMALL_FILES], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


def test_workers_give_the_same_blob_as_extracting_in_this_process():
    items = [
        (
            f"m{i}.py",
            "python",
            f"import os\n\ndef f{i}(x):\n    return os.path.join(x, {i})\n".encode(),
        )
        for i in range(300)
    ]
    items.append(("app.ts", "typescript", b"export function g(a: number) { return h(a); }\n"))
    blobs: dict[str, bytes] = {}
    n, failed = extract_parallel(items, 2, 60.0, None, blobs.__setitem__)
    assert n == len(items) and not failed
    for path, language, data in items:
        assert blobs[path] == extract_source(language, data), path
