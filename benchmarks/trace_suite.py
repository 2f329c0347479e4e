"""Trace a real project's test suite and score codeimpact's graph against what ran.

    python benchmarks/trace_suite.py trace flask           # run the suite, write the truth
    python benchmarks/trace_suite.py score flask           # index a copy, print the figures
    python benchmarks/trace_suite.py run flask click jinja2  # both
    python benchmarks/trace_suite.py score flask --misses /tmp/{project}.misses.txt

`trace` runs the project's own pytest suite under a profile hook (`truth/truth_hook.py`)
in a virtualenv with its pinned test requirements (made under benchmarks/.cache on
first use; that needs PyPI) and writes `truth/data/<project>-<version>.truth.json.xz`
(shape in `truth/mapping.py`). `score` copies the same sdist, indexes the copy with
this checkout's codeimpact and prints the CALLS recall on executed edges
(`truth/score_calls.py`) and the tests-to-run table (`truth/score_tests.py`);
`--json FILE` writes the figures as JSON. Projects: see `truth/projects.py`.
The sdist comes from `--src DIR`, from /work/src/<name>-<version> when it is there,
or from PyPI (benchmarks/sources.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sources import fresh_copy, sdist  # noqa: E402
from truth.projects import PROJECTS, Project  # noqa: E402
from truth.runner import read_truth, suite_python, trace_project, write_truth  # noqa: E402

DATA = HERE / "truth" / "data"
LOCAL_SOURCES = Path("/work/src")


def truth_path(project: Project) -> Path:
    return DATA / f"{project.key}.truth.json.xz"


def source_tree(project: Project, src: str | None) -> Path:
    if src:
        return Path(src)
    local = LOCAL_SOURCES / project.key
    if (local / "PKG-INFO").is_file():
        return local
    return sdist(project.name, project.version)


def trace(project: Project, args) -> dict:
    python = Path(args.python) if args.python else suite_python(project)
    with tempfile.TemporaryDirectory(prefix=f"truth-{project.name}-") as tmp:
        truth, run = trace_project(project, source_tree(project, args.src), python, Path(tmp))
    out = Path(args.out) if args.out else truth_path(project)
    write_truth(truth, out)
    n_exec = len({d for t in truth["tests"].values() for d in t["executed"]})
    print(
        f"{project.key}: suite exit {run.exit_code}, {truth['suite']['outcomes']}, "
        f"{run.cpu_seconds:.1f} CPU-s traced; {len(truth['edges'])} edges, "
        f"{n_exec} definitions executed by tests; {len(truth['unmapped'])} code objects "
        f"unmapped -> {out} ({out.stat().st_size // 1024} KB)"
    )
    return truth


def score(project: Project, args) -> dict:
    from truth.misses import SourceIndex
    from truth.score_calls import GraphCalls, format_calls, score_calls
    from truth.score_tests import format_misses, format_tests, score_tests

    from codeimpact.indexer.build import analyze
    from codeimpact.indexer.config import IndexConfig, RunOptions
    from codeimpact.query.index import Index

    truth = read_truth(Path(args.truth) if args.truth else truth_path(project))
    with tempfile.TemporaryDirectory(prefix=f"truth-score-{project.name}-") as tmp:
        tree = fresh_copy(source_tree(project, args.src), Path(tmp) / "tree")
        t0 = time.process_time()
        analyze(tree, IndexConfig(), RunOptions(workers=1))
        with Index.open(tree) as index:
            graph = GraphCalls.load(index)
            calls = score_calls(truth, graph, SourceIndex(tree))
            tests = score_tests(truth, index, tree, graph.pairs, misses=bool(args.misses))
        cpu = time.process_time() - t0
    print(format_calls(project.key, calls))
    print(format_tests(project.key, tests))
    if args.misses:
        out = Path(args.misses.replace("{project}", project.name))
        out.write_text(format_misses(project.key, tests) + "\n")
        print(f"(per-function misses -> {out})")
    print(f"({project.key}: indexed and scored in {cpu:.1f} CPU-s)")
    return {"project": project.key, "calls": calls, "tests": tests}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("trace", "score", "run"))
    parser.add_argument("projects", nargs="+", choices=sorted(PROJECTS))
    parser.add_argument("--src", help="the unpacked sdist (one project only)")
    parser.add_argument("--python", help="the suite's interpreter (default: a venv it makes)")
    parser.add_argument("--out", help="where `trace` writes the truth (one project only)")
    parser.add_argument("--truth", help="the truth `score` reads (one project only)")
    parser.add_argument("--json", help="write the figures of `score` to this file")
    parser.add_argument(
        "--misses",
        help="`score`: write, per function whose tests are not all named, the missed tests "
        "and the nearest break on their real path to this file ({project} is replaced)",
    )
    args = parser.parse_args(argv)
    if len(args.projects) > 1 and (args.src or args.out or args.truth or args.python):
        parser.error("--src, --python, --out and --truth take one project")
    figures = []
    for name in args.projects:
        project = PROJECTS[name]
        if args.command in ("trace", "run"):
            trace(project, args)
        if args.command in ("score", "run"):
            figures.append(score(project, args))
    if args.json and figures:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
