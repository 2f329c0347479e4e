"""A full build called through the API loads numpy with one OpenBLAS thread, as the `graph`
command does for itself (graph/__init__.py QUIET_BLAS): OpenBLAS starts a thread per other
core as it loads, spinning CPU the build needs elsewhere (it makes no BLAS call). The
caller's environment is given back, and a thread count the caller set is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# run in a fresh interpreter: numpy must not be loaded yet (the test process has it)
SCRIPT = """
import ctypes, glob, json, os, sys
from codeimpact.indexer.build import analyze
from codeimpact.indexer.config import IndexConfig, RunOptions
loaded = "numpy" in sys.modules
report = analyze(sys.argv[1], IndexConfig(), RunOptions(workers=2, force=True))
import numpy
threads = None
for lib in glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs", "*openblas*")):
    for name in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
                 "openblas_get_num_threads64_", "openblas_get_num_threads"):
        get = getattr(ctypes.CDLL(lib), name, None)
        if get is not None:
            threads = get()
            break
print(json.dumps({"loaded": loaded, "mode": report.mode, "threads": threads,
                  "env": os.environ.get("OPENBLAS_NUM_THREADS")}))
"""


def _build(repo, env_value: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(repo)], env=env, check=True,
                         capture_output=True, text=True, cwd=repo)  # fmt: skip
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["mode"] == "full" and not got["loaded"]
    if got["threads"] is None:
        pytest.skip("numpy's OpenBLAS is not one this test can ask (no numpy.libs openblas)")
    return got


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS starts no thread on one core")
def test_a_full_build_loads_numpy_with_one_blas_thread(make_repo):
    repo = make_repo({f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(8)})
    got = _build(repo, None)
    assert got["threads"] == 1
    assert got["env"] is None  # the caller's environment given back
    got = _build(repo, "2")  # the caller's choice is kept
    assert got["threads"] == 2 and got["env"] == "2"
