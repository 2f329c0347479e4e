"""The graph of a repository as sorted text, and the comparison of two such dumps.

The redesign of the indexer (issue 24) works under a fixed specification: the
graph stays the same, fact for fact. This tool writes that graph down so two
versions of the code can be compared:

    F <path> <language> <size> <lines> <is_test> <status> <content_hash>
    S <uid> <kind> <name> <qualified_name> <file> <start_line> <end_line>
      <start_byte> <end_byte> <exported> <is_test> <language> <signature>
    R <type> <source uid or File path> <target uid> <confidence, 3 places> <reason> <line>
    U <calling symbol uid> <callee name> <line>      (an unresolved call site)

one record per line, fields separated by tabs (tabs, newlines and backslashes in
values escaped), sorted. Relations without a property print `-` for it.

Usage (any codeimpact installed in the running interpreter: the dump reads only
the database and the index folder, so the 71c6acd code and today's both run it):

    python benchmarks/graph_dump.py dump REPO [-o OUT.xz] [--index] [--workers N]
    python benchmarks/graph_dump.py compare OLD.xz NEW.xz [--show 20]
    python benchmarks/graph_dump.py fixtures-record CAPTURED_DIR [SPEC.json.xz]
    python benchmarks/graph_dump.py fixtures-compare [SPEC.json.xz]

`dump --index` indexes a fresh copy of REPO first (the tree itself is never
written to). The recorded specification lives in benchmarks/spec/ (README there).
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import lzma
import marshal
import os
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SPEC_DIR = Path(__file__).parent / "spec"
SECTIONS = ("F", "S", "R", "U")


# ---------------------------------------------------------------------- writing
def _esc(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    text = str(value)
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        text = (
            text.replace("\\", "\\\\")
            .replace("\t", "\\t")
            .replace("\n", "\\n")
            .replace("\r", "\\r")
        )
    return text


def _line(tag: str, *values) -> str:
    return "\t".join([tag, *map(_esc, values)])


def _rel_tables(conn) -> dict[str, tuple[str, list[str]]]:
    """name -> (source node table, property names), read from the database's own catalog
    (so the dump does not depend on the code's schema module)."""
    out: dict[str, tuple[str, list[str]]] = {}
    res = conn.execute("CALL show_tables() RETURN name, type")
    rels = []
    while res.has_next():
        name, kind = res.get_next()
        if kind == "REL":
            rels.append(name)
    for name in rels:
        info = conn.execute(f"CALL table_info('{name}') RETURN name")
        props = []
        while info.has_next():
            props.append(info.get_next()[0])
        conns = conn.execute(f"CALL show_connection('{name}') RETURN *")
        src = conns.get_next()[0]
        out[name] = (src, props)
    return out


def _rows(conn, query: str):
    res = conn.execute(query)
    while res.has_next():
        yield res.get_next()


def dump_lines(repo: Path) -> list[str]:
    """The sorted dump of the index of `repo` (its live generation)."""
    import kuzu

    from codeimpact.graph import layout

    gen = layout.read_current(layout.index_dir(repo))
    db = kuzu.Database(str(gen.db_path), read_only=True, buffer_pool_size=256 << 20)
    conn = kuzu.Connection(db)
    lines: list[str] = []
    try:
        q = "MATCH (f:File) RETURN f.path, f.language, f.size, f.lines, f.is_test, f.status, f.content_hash"
        lines += [_line("F", *r) for r in _rows(conn, q)]
        q = (
            "MATCH (s:Symbol) RETURN s.uid, s.kind, s.name, s.qualified_name, s.file, s.start_line,"
            " s.end_line, s.start_byte, s.end_byte, s.exported, s.is_test, s.language, s.signature"
        )
        lines += [_line("S", *r) for r in _rows(conn, q)]
        for rel, (src_table, props) in sorted(_rel_tables(conn).items()):
            key = "a.path" if src_table == "File" else "a.uid"
            cols = ", ".join(f"r.{p}" if p in props else f"NULL AS {p}"
                             for p in ("confidence", "reason", "line"))  # fmt: skip
            q = f"MATCH (a)-[r:{rel}]->(b) RETURN {key}, b.uid, {cols}"
            for src, dst, c, why, at in _rows(conn, q):
                c = None if c is None else round(c, 3)
                lines.append(_line("R", rel, src, dst, c, why, at))
    finally:
        conn.close()
        db.close()
    lines += [_line("U", scope, name, at) for name, scope, at in _unresolved(gen.path)]
    lines.sort()
    return lines


def _unresolved(gen_dir: Path):
    try:
        from codeimpact.graph.sidecar import read_unresolved

        sites = read_unresolved(gen_dir)
    except ImportError:
        sites = marshal.loads((gen_dir / "unresolved.bin").read_bytes())
    for name, where in sites.items():
        for scope, at in where:
            yield name, scope, at


def analyze(repo: Path, workers: int = 1, buffer_pool: int = 512 << 20) -> None:
    """A full index of `repo` by the installed codeimpact (its Python entry point)."""
    try:
        from codeimpact.indexer.pipeline import analyze as run
    except ImportError:
        from codeimpact.indexer.build import analyze as run
    from codeimpact.indexer.config import IndexConfig, RunOptions

    run(repo, IndexConfig(), RunOptions(workers=workers, buffer_pool=buffer_pool))


def _opener(path: Path):
    return {".xz": lzma.open, ".gz": gzip.open}.get(path.suffix, open)


def write_dump(lines: list[str], out: Path) -> None:
    """Plain text, or compressed by the suffix (.xz: a third smaller than .gz; the same graph
    gives the same bytes either way)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(lines) + "\n").encode()
    if out.suffix == ".xz":
        out.write_bytes(lzma.compress(data, preset=9))
    elif out.suffix == ".gz":
        out.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    else:
        out.write_bytes(data)


def read_dump(path: Path) -> list[str]:
    with _opener(path)(path, "rt", encoding="utf-8", newline="\n") as fh:
        return [ln for ln in fh.read().split("\n") if ln]


# ---------------------------------------------------------------------- comparing
@dataclass
class Comparison:
    """What NEW lost, added and changed against OLD, per section (relations per type)."""

    lost: Counter = field(default_factory=Counter)
    added: Counter = field(default_factory=Counter)
    changed: Counter = field(default_factory=Counter)
    totals: Counter = field(default_factory=Counter)  # records in OLD
    examples: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not (self.lost or self.added or self.changed)

    def relations_lost_share(self) -> float:
        lost = sum(n for k, n in self.lost.items() if k.startswith("R "))
        total = sum(n for k, n in self.totals.items() if k.startswith("R "))
        return lost / total if total else 0.0

    def report(self) -> str:
        out = []
        for key in sorted(set(self.totals) | set(self.added)):
            out.append(
                f"{key:<16} old {self.totals[key]:>8}  lost {self.lost[key]:>6}  "
                f"added {self.added[key]:>6}  changed {self.changed[key]:>6}"
            )
        out.append(f"relations lost: {self.relations_lost_share():.4%}")
        return "\n".join(out)


def _key(line: str) -> tuple[str, tuple]:
    """(group, identity) of a record: what makes two records 'the same fact'."""
    f = line.split("\t")
    if f[0] == "R":
        return f"R {f[1]}", tuple(f[1:4])
    if f[0] == "U":
        return "U", tuple(f[1:])
    return f[0], (f[1],)


def compare(old: list[str], new: list[str], show: int = 20) -> Comparison:
    c = Comparison()
    by_old: dict[tuple, list[str]] = {}
    by_new: dict[tuple, list[str]] = {}
    for lines, into in ((old, by_old), (new, by_new)):
        for ln in lines:
            group, ident = _key(ln)
            into.setdefault((group, ident), []).append(ln)
    for (group, ident), olds in by_old.items():
        c.totals[group] += len(olds)
        news = by_new.get((group, ident), [])
        if len(news) < len(olds):
            c.lost[group] += len(olds) - len(news)
            if len(c.examples) < show:
                c.examples.append("- " + olds[0])
        elif news != olds:
            c.changed[group] += 1
            if len(c.examples) < show:
                c.examples.append("- " + olds[0] + "\n+ " + news[0])
    for (group, ident), news in by_new.items():
        olds = by_old.get((group, ident), [])
        if len(news) > len(olds):
            c.added[group] += len(news) - len(olds)
            if len(c.examples) < show:
                c.examples.append("+ " + news[0])
    return c


# ---------------------------------------------------------------------- fixtures
# A captured fixture is a small project some test indexed (benchmarks/spec_capture.py, a
# pytest plugin, writes them while the suite runs): {"name", "files": {path: text or
# {"b64": ...}}}. The spec holds its files and the dump the 71c6acd code made of them, made by
# indexing the same files in a fresh folder (no git), so both sides see the same input.
FIXTURES = SPEC_DIR / "fixtures.json.xz"


def load_fixtures(path: Path = FIXTURES) -> dict[str, dict]:
    """name -> {"files": {...}, "dump": [lines]}."""
    with lzma.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def materialise(files: dict, root: Path) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            p.write_bytes(base64.b64decode(content["b64"]))
        else:
            p.write_bytes(content.encode("utf-8"))


def fixture_dump(files: dict, workdir: Path | None = None) -> list[str]:
    """Index `files` in a fresh folder and return the dump (paths are repo-relative)."""
    root = Path(tempfile.mkdtemp(prefix="spec-", dir=workdir))
    try:
        materialise(files, root)
        analyze(root, buffer_pool=32 << 20)  # a small project: a small pool is quicker to set up
        return dump_lines(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def record_fixtures(captured: Path, out: Path = FIXTURES) -> int:
    """Every captured project, with the dump this code makes of it, into one file."""
    spec: dict[str, dict] = {}
    for path in sorted(captured.glob("*.json")):
        fx = json.loads(path.read_text())
        name = fx["name"]
        while name in spec:  # the same test id twice (parametrised tests share no id)
            name += "+"
        spec[name] = {"files": fx["files"], "dump": fixture_dump(fx["files"])}
    data = json.dumps(spec, sort_keys=True, ensure_ascii=False, indent=0).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(lzma.compress(data, preset=9))
    return len(spec)


def rerecord_fixtures(path: Path = FIXTURES) -> list[str]:
    """Re-index every recorded fixture with this code and record the dumps that changed (an
    intended change of the graph): the names of those re-recorded."""
    spec = load_fixtures(path)
    changed = []
    for name, fx in sorted(spec.items()):
        dump = fixture_dump(fx["files"])
        if dump != fx["dump"]:
            fx["dump"] = dump
            changed.append(name)
    if changed:
        data = json.dumps(spec, sort_keys=True, ensure_ascii=False, indent=0).encode()
        path.write_bytes(lzma.compress(data, preset=9))
    return changed


def compare_fixtures(path: Path = FIXTURES, show: int = 10) -> tuple[int, list]:
    """(fixtures, [(name, comparison)] of those this code indexes differently)."""
    spec = load_fixtures(path)
    bad = []
    for name, fx in sorted(spec.items()):
        c = compare(fx["dump"], fixture_dump(fx["files"]), show)
        if not c.identical:
            bad.append((name, c))
    return len(spec), bad


# ---------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="dump the index of REPO")
    d.add_argument("repo", type=Path)
    d.add_argument(
        "-o", "--out", type=Path, help="write here (.xz, .gz: compressed); default stdout"
    )
    d.add_argument("--index", action="store_true", help="index a fresh copy of REPO first")
    d.add_argument("--workers", type=int, default=0)
    c = sub.add_parser("compare", help="compare two dumps (OLD, NEW)")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    c.add_argument("--show", type=int, default=20)
    r = sub.add_parser("fixtures-record", help="record captured fixture projects as the spec")
    r.add_argument("captured", type=Path)
    r.add_argument("out", type=Path, nargs="?", default=FIXTURES)
    f = sub.add_parser("fixtures-compare", help="re-index every recorded fixture and compare")
    f.add_argument("spec", type=Path, nargs="?", default=FIXTURES)
    u = sub.add_parser(
        "fixtures-rerecord", help="re-record the fixtures this code indexes differently"
    )
    u.add_argument("spec", type=Path, nargs="?", default=FIXTURES)
    args = ap.parse_args(argv)

    if args.cmd == "dump":
        repo = args.repo.resolve()
        tmp = None
        if args.index:
            tmp = Path(tempfile.mkdtemp(prefix="graph-dump-"))
            copy = tmp / repo.name
            shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".codeimpact"), symlinks=True)
            analyze(copy, args.workers)
            repo = copy
        try:
            lines = dump_lines(repo)
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
        if args.out is None:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
        else:
            write_dump(lines, args.out)
        counts = Counter(_key(ln)[0] for ln in lines)
        print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())), file=sys.stderr)
        return 0
    if args.cmd == "compare":
        cmp = compare(read_dump(args.old), read_dump(args.new), args.show)
        print(cmp.report())
        for ex in cmp.examples:
            print(ex)
        return 0 if cmp.identical else 1
    if args.cmd == "fixtures-record":
        print(f"{record_fixtures(args.captured, args.out)} fixtures recorded in {args.out}")
        return 0
    if args.cmd == "fixtures-compare":
        n, bad = compare_fixtures(args.spec)
        for name, cmp in bad:
            print(f"== {name}\n{cmp.report()}")
            for ex in cmp.examples:
                print(ex)
        print(f"{n - len(bad)} of {n} fixtures identical")
        return 1 if bad else 0
    if args.cmd == "fixtures-rerecord":
        changed = rerecord_fixtures(args.spec)
        print("\n".join(changed))
        print(f"{len(changed)} fixtures re-recorded")
        return 0
    return 2


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())
