"""The index's size on disk over many one-file edits of Django, through the CLI.

An edit writes its delta into the spare database's log, and the spare's leveller
(graph/spare_level.py) checkpoints the log into the database file in the background: each
checkpoint writes the column chunks and CSR regions it touched to new pages, so the file
can grow with every edit. This replays a long series of edits on a git copy of Django and
prints, every `--every` edits, the sizes that make up the index folder, so whether (and
where) it grows is a figure, not a guess:

- the live generation's database (`gen-N/graph.kz`) and its log, the spare's database and
  its log, the facts cache, the rest (snapshot, manifests), the whole folder (its files'
  sizes and the blocks they take);
- against the same figures right after the full build, as ratios;
- the size the spare's leveller takes as the lineage's freshest database (`base db`: a
  fresh copy is made of a spare grown past spare_level.COPY_GROWTH times it).

The edits cycle through the kinds an editor makes: a function appended to a widely imported
module (`django/utils/crypto.py`), a statement in a widely called function (`force_str`),
a function appended to one of a rotating set of modules, two files edited at once, each
followed by its revert (`git checkout`), each a fresh `python -m codeimpact analyze
--index-only --json`. The leveller a run starts is waited for before the next edit (as
bench_incremental.py does): the sizes are those a user finds between edits.

Sizes do not depend on load: no lock is needed. `--check` ends with the graph compared with
a full index of the same tree (benchmarks/graph_dump.py).

    python benchmarks/bench_index_growth.py [--edits 300] [--every 25] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench_incremental import A_FILE, B_FILE, analyze, check_equal, edit_a, edit_b, git_copy
from sources import compile_package, sdist

# modules of several sizes and tables: a function appended to one touches other node groups
ROTATING = ("django/db/models/query.py", "django/http/request.py", "django/template/base.py",
            "django/urls/resolvers.py", "django/forms/fields.py",
            "django/core/management/base.py", "django/contrib/admin/options.py",
            "django/utils/functional.py")  # fmt: skip


def append_to(rel: str) -> Callable[[Path, int], None]:
    def edit(repo: Path, k: int) -> None:
        p = repo / rel
        p.write_text(p.read_text() + f"\n\ndef grown_{k}(value):\n    return str(value)\n")

    return edit


def revert(repo: Path, *rels: str) -> None:
    subprocess.run(["git", "checkout", "-q", "--", *rels], cwd=repo, check=True)


@dataclass(frozen=True)
class Step:
    """One edit of the cycle: what it does to the tree, and what it names (for the report)."""

    name: str
    apply: Callable[[Path, int], None]


def cycle(k: int) -> list[Step]:
    """The edits of cycle `k` (each is one `analyze`); every cycle ends on the committed tree."""
    rotating = ROTATING[k % len(ROTATING)]
    both = (A_FILE, B_FILE)
    return [
        Step("append to crypto", edit_a),
        Step("revert crypto", lambda repo, _: revert(repo, A_FILE)),
        Step("statement in force_str", edit_b),
        Step("revert force_str", lambda repo, _: revert(repo, B_FILE)),
        Step(f"append to {rotating}", append_to(rotating)),
        Step("revert it", lambda repo, _: revert(repo, rotating)),
        Step("two files", lambda repo, j: (edit_a(repo, j), edit_b(repo, j))),
        Step("revert both", lambda repo, _: revert(repo, *both)),
    ]


@dataclass
class Sizes:
    live_db: int
    live_wal: int
    spare_db: int
    spare_wal: int
    facts: int
    folder: int  # every file's size
    blocks: int  # what they take on disk
    base: int  # the lineage's freshest database (graph/spare.py BASE_NAME; 0: none recorded)

    @property
    def rest(self) -> int:
        return (
            self.folder - self.live_db - self.live_wal - self.spare_db - self.spare_wal - self.facts
        )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def sizes(repo: Path) -> Sizes:
    idx = repo / ".codeimpact"
    live = idx / json.loads((idx / "CURRENT").read_text())["dir"]
    folder = blocks = facts = 0
    for root, _, files in os.walk(idx):
        for name in files:
            st = os.lstat(os.path.join(root, name))
            folder += st.st_size
            blocks += st.st_blocks * 512
            if Path(root).name == "facts":
                facts += st.st_size
    spare = idx / "spare"
    try:  # (an older codeimpact records none)
        base = json.loads((idx / "spare-base.json").read_text())["pages"] * 4096
    except (OSError, ValueError, KeyError):
        base = 0
    return Sizes(_size(live / "graph.kz"), _size(live / "graph.kz.wal"), _size(spare / "graph.kz"),
                 _size(spare / "graph.kz.wal"), facts, folder, blocks, base)  # fmt: skip


COLUMNS = ("live db", "live log", "spare db", "spare log", "facts", "rest", "folder", "on disk",
           "base db")  # fmt: skip


def row(label: str, s: Sizes, base: Sizes | None) -> str:
    mb = [s.live_db, s.live_wal, s.spare_db, s.spare_wal, s.facts, s.rest, s.folder, s.blocks,
          s.base]  # fmt: skip
    cells = "".join(f" {v / 2**20:9.2f}" for v in mb)
    ratios = ""
    if base is not None:
        ratios = (f"   db {s.live_db / base.live_db:.2f}x, spare db "
                  f"{s.spare_db / base.live_db:.2f}x, folder {s.folder / base.folder:.2f}x")  # fmt: skip
    return f"{label:>12}{cells}{ratios}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=300)
    ap.add_argument("--every", type=int, default=25)
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose code runs")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--check", action="store_true", help="compare with a full index at the end")
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-growth-"))
    workdir.mkdir(parents=True, exist_ok=True)
    compile_package(args.python)
    repo = git_copy(sdist("django", "5.2.8"), workdir / "django")
    full = analyze(args.python, repo, "--force")
    base = sizes(repo)
    print(f"== Django 5.2.8: the index folder over {args.edits} one-file edits through "
          f"`graph analyze --index-only` ({args.python}) ==")  # fmt: skip
    print(f"{'edits':>12}" + "".join(f" {c:>9}" for c in COLUMNS) + "   (MB)")
    print(row("full build", base, None) + f"   (full index {full.wall:.2f} s wall)")
    done, k, modes, leveller = 0, 0, {}, []
    while done < args.edits:
        k += 1
        for step in cycle(k):
            step.apply(repo, k)
            run = analyze(args.python, repo)  # (waits for the leveller it started)
            modes[run.mode] = modes.get(run.mode, 0) + 1
            leveller.append(run.background_cpu)
            done += 1
            if done % args.every == 0:
                print(row(str(done), sizes(repo), base), flush=True)
            if done >= args.edits:
                break
    revert(repo, ".")
    analyze(args.python, repo)
    end = sizes(repo)
    print(row("end", end, base))
    levelled = sorted(c for c in leveller if c)
    if levelled:
        print(f"runs by mode {modes}; leveller CPU per edit: median "
              f"{levelled[len(levelled) // 2]:.3f} s, mean {sum(levelled) / len(levelled):.3f} s, "
              f"max {levelled[-1]:.3f} s ({len(levelled)} levelled)")  # fmt: skip
    if args.check:
        print("\nincremental == full after the edits (graph_dump compare full incremental):")
        from bench_incremental import Side

        print(check_equal(Side("this", args.python, repo), workdir))
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
