"""Run small projects' entry modules under the recorder, many in one interpreter.

    python truth_run.py JOBS.json

JOBS.json is ``[{"root": DIR, "module": "pkg.main", "out": FILE}, ...]``. For each job
the root goes first on ``sys.path``, a fresh `Recorder` of that root starts, the module
is imported (its top-level code is the run), and the raw record is written to ``out``
with ``exit`` 0, or 1 and the error in ``"error"`` when the import raised. A job whose
module is ``"pytest"`` runs pytest in-process in the root instead, with the trace
plugin (`truth_hook.TracePlugin`), and ``exit`` is pytest's. The root's modules are
then dropped from ``sys.modules``, so the next project may use the same package names.
Standard library only (with `truth_recorder` beside it), and pytest for pytest jobs.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback

from truth_recorder import Recorder


def run_pytest(root: str, out: str) -> None:
    import pytest
    from truth_hook import TracePlugin

    recorder = Recorder(root)
    plugin = TracePlugin(recorder, out)
    cwd = os.getcwd()
    os.chdir(root)
    recorder.start()
    try:
        args = ["-q", "-p", "no:cacheprovider", "--rootdir", root, "-c", os.devnull,
                f"--basetemp={os.path.join(os.path.dirname(out), 'basetemp')}"]  # fmt: skip
        pytest.main(args, plugins=[plugin])
    finally:
        recorder.stop()
        os.chdir(cwd)


def run_one(root: str, module: str, out: str) -> None:
    root = os.path.realpath(root)
    sys.path.insert(0, root)
    error = None
    if module == "pytest":
        run_pytest(root, out)
    else:
        recorder = Recorder(root)
        recorder.start()
        try:
            importlib.import_module(module)
        except BaseException:  # noqa: BLE001 - a case's failure is its record, not ours
            error = traceback.format_exc(limit=-3)
        finally:
            recorder.stop()
        recorder.dump(out, 0 if error is None else 1)
    if error is not None:
        with open(out) as fh:
            doc = json.load(fh)
        doc["error"] = error
        with open(out, "w") as fh:
            json.dump(doc, fh)
    sys.path.remove(root)
    prefix = root + os.sep
    for name, mod in list(sys.modules.items()):
        paths = [getattr(mod, "__file__", None) or "", *(getattr(mod, "__path__", None) or ())]
        if any(os.path.realpath(p).startswith(prefix) for p in paths if p):
            del sys.modules[name]
    importlib.invalidate_caches()


def main() -> int:
    with open(sys.argv[1]) as fh:
        jobs = json.load(fh)
    for job in jobs:
        run_one(job["root"], job["module"], job["out"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
