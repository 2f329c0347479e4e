"""The Linux kernel indexed on this machine: full index and a one-file edit, per phase.

Issue 28 point 4: Debian's `linux-source` package (`apt-get install -y linux-source` gives
/usr/src/linux-source-*.tar.xz, ~55,000 C files, 1.2 GB of source) indexed on a 2-core
machine in <= 8 minutes and <= 6 GB peak, a one-file edit re-indexed in <= 10 s.

In one run, on a git copy of the tree (committed, so the edit is incremental as a user's
would be):
1. the parse-only floor: tree-sitter parses every file the indexer reads, over every core,
   and nothing else (benchmarks/bench_scale.py's `parse_only`);
2. a full index (`analyze --index-only --force --json`): wall, CPU of the process tree
   (user+sys, RUSAGE_CHILDREN), peak memory (the largest process's VmHWM and the tree's
   PSS, sampled), and the run's own phases (`timings`, `cpu_seconds`, `memory_mb`);
3. a no-op analyze, then a one-file edit (a statement added to the body of `strscpy` in
   lib/string.c, called from ~1,500 files) and its revert, each re-indexed through the CLI.
Ratios are against the floor measured in the same run. The machine is shared: the load
average is printed beside each figure, and CPU time is the figure to compare.

    flock /work/wt/.bench.lock python benchmarks/bench_kernel.py [--src DIR | --tarball F]
        [--only DIR ...] [--work DIR] [--keep] [--repo GIT_COPY]
    pytest benchmarks/bench_kernel.py --benchmark-only -s   # skips without the source

Without a tree or tarball it says so and exits 0 (`--fetch` runs apt-get install first).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_scale import parse_only  # noqa: E402
from sources import run_measured_peaks  # noqa: E402

TARGET_FULL_S = 8 * 60
TARGET_PEAK_MB = 6 * 1024
TARGET_EDIT_S = 10.0
EDIT_FILE = "lib/string.c"
EDIT_ANCHOR = "ssize_t strscpy(char *dest, const char *src, size_t count)\n{\n"
EDIT_LINE = "\tconst char *bench_probe = src;\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}  # fmt: skip


def find_source(src: str | None, tarball: str | None, fetch: bool) -> Path | str:
    """An unpacked tree or a tarball of it; a string saying why there is none."""
    if src:
        return Path(src) if Path(src, "Makefile").exists() else f"no kernel tree at {src}"
    if not tarball and fetch:
        subprocess.run(["apt-get", "install", "-y", "linux-source"], check=False)
    found = [tarball] if tarball else sorted(glob.glob("/usr/src/linux-source-*.tar.xz"))
    if not found or not Path(found[-1]).exists():
        return "no /usr/src/linux-source-*.tar.xz (apt-get install -y linux-source, or --src)"
    return Path(found[-1])


def git_copy(source: Path, work: Path, only: list[str]) -> Path:
    """A committed git copy of the tree (or of its `only` folders) under `work`."""
    repo = work / "linux"
    if source.is_file():
        unpack = work / "unpacked"
        unpack.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "-xJf", str(source), "-C", str(unpack)], check=True)
        source = next(p for p in unpack.iterdir() if (p / "Makefile").exists())
    if only:
        repo.mkdir(parents=True)
        for d in only:
            (repo / d).parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(source / d, repo / d, symlinks=True)
    else:
        shutil.copytree(source, repo, symlinks=True)
    ignore = repo / ".gitignore"
    if ignore.exists():  # Debian's package ignores everything at the top: the kernel's does not
        text = ignore.read_text()
        ignore.write_text(text.split("#\n# Debian packaging")[0])
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "kernel"], cwd=repo, check=True, env=env)
    return repo


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def analyze(repo: Path, *extra: str) -> dict:
    """One `analyze` through the CLI: its JSON report plus wall, CPU and peak memory."""
    cmd = [sys.executable, "-m", "codeimpact", "analyze", "--index-only", "--json", *extra]
    before, at = children_cpu(), load()
    wall, peak, out = run_measured_peaks(cmd, cwd=repo)
    report = json.loads(out)
    report["_bench"] = {"wall": wall, "cpu": children_cpu() - before, "load": at,
                        "largest_mb": peak.largest, "pss_mb": peak.pss_sum}  # fmt: skip
    return report


def edit(repo: Path, on: bool) -> None:
    path = repo / EDIT_FILE
    text = path.read_text()
    if on:
        if EDIT_ANCHOR not in text:
            raise SystemExit(f"bench_kernel: {EDIT_FILE} has no strscpy body to edit")
        text = text.replace(EDIT_ANCHOR, EDIT_ANCHOR + EDIT_LINE, 1)
    else:
        text = text.replace(EDIT_ANCHOR + EDIT_LINE, EDIT_ANCHOR, 1)
    path.write_text(text)


def phases(report: dict) -> str:
    cpu = report.get("cpu_seconds", {})
    mem = report.get("memory_mb", {})
    parts = []
    for name, secs in report.get("timings", {}).items():
        extra = f" cpu {cpu[name]:.1f}" if name in cpu else ""
        extra += f" rss {mem[name]} MB" if name in mem else ""
        parts.append(f"{name} {secs:.1f}s{extra}")
    return "; ".join(parts)


def line(name: str, report: dict, floor_cpu: float | None = None) -> str:
    b = report["_bench"]
    ratio = f", {b['cpu'] / floor_cpu:.2f}x the floor's CPU" if floor_cpu else ""
    return (
        f"{name}: {report['mode']} wall {b['wall']:.1f}s, CPU {b['cpu']:.1f}s{ratio}; peak "
        f"largest process {b['largest_mb']} MB, tree PSS {b['pss_mb']} MB; load {b['load']}\n"
        f"    phases: {phases(report)}"
    )


def run(source: Path, work: Path, only: list[str], repo: Path | None = None) -> Iterator[str]:
    """The figures, line by line as each step ends (a run stopped midway keeps what it
    printed); `repo`: a committed git copy made before (indexed in place, `--force`), instead of
    copying `source` into `work`."""
    t = time.perf_counter()
    if repo is None:
        repo = git_copy(source, work, only)
        yield f"git copy: {time.perf_counter() - t:.0f}s ({repo})"
    else:
        yield f"git copy made before: {repo}"
    cores = os.cpu_count() or 1
    before, at = children_cpu(), load()
    floor_wall, n_files, size = parse_only(repo, cores)
    floor_cpu = children_cpu() - before
    yield (f"parse-only floor: {n_files} files, {size / 1e9:.2f} GB: wall {floor_wall:.1f}s "
           f"on {cores} cores, CPU {floor_cpu:.1f}s; load {at}")  # fmt: skip
    full = analyze(repo, "--force")
    yield line("full index", full, floor_cpu)
    yield (f"    {full['files']} files, {full['symbols']} symbols, edges {full['edges']}, "
           f"calls {full['calls']}")  # fmt: skip
    b = full["_bench"]
    yield (f"    targets: wall {b['wall']:.0f}s vs {TARGET_FULL_S}s, peak {b['pss_mb']} MB "
           f"(tree PSS) vs {TARGET_PEAK_MB} MB")  # fmt: skip
    runs = [("no-op", None), ("edit strscpy", True), ("revert", False)]
    for name, on in runs:
        if on is not None:
            edit(repo, on)
        r = analyze(repo)
        yield line(name, r)
        yield (f"    vs target {TARGET_EDIT_S:.0f}s: {r['_bench']['wall']:.1f}s wall; "
               f"parsed {r.get('parsed')}, resolved {r.get('resolved')}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", help="an unpacked kernel tree")
    ap.add_argument("--tarball", help="a linux-source tarball")
    ap.add_argument("--fetch", action="store_true", help="apt-get install linux-source first")
    ap.add_argument("--only", nargs="*", default=[], help="index only these top folders")
    ap.add_argument("--work", help="where the git copy goes (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the git copy and its index")
    ap.add_argument("--repo", help="a committed git copy of a kernel tree (one a --keep run "
                    "left): indexed in place instead of copying the tree again")  # fmt: skip
    args = ap.parse_args(argv)
    if args.repo:
        repo = Path(args.repo)
        if not (repo / ".git").exists() or not (repo / EDIT_FILE).exists():
            print(f"bench_kernel: {repo} is not a git copy of a kernel tree", file=sys.stderr)
            return 2
        for text in run(repo, repo.parent, [], repo):
            print(text, flush=True)
        return 0
    source = find_source(args.src, args.tarball, args.fetch)
    if isinstance(source, str):
        print(f"bench_kernel: skipped: {source}")
        return 0
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-kernel-"))
    try:
        for text in run(source, work, args.only):
            print(text, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def test_kernel(benchmark):
    import pytest

    source = find_source(os.environ.get("CODEIMPACT_KERNEL_SRC"), None, False)
    if isinstance(source, str):
        pytest.skip(source)
    with tempfile.TemporaryDirectory(prefix="bench-kernel-") as work:
        lines = benchmark.pedantic(
            lambda: list(run(source, Path(work), [])), rounds=1, iterations=1
        )
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
