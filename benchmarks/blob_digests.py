"""The sha256 of every file's facts blob, as one installation extracts them: what a change
to extraction that must not change the facts (a faster encoder, a cheaper rule) is checked
with. The blobs are what the facts cache keeps and every digest over facts reads, so "the
same graph" is not enough there: the same bytes.

    python benchmarks/blob_digests.py dump /work/src/django-5.2.8 -o /tmp/new.txt
    /work/venvs/leadbase/bin/python benchmarks/blob_digests.py dump \\
        /work/src/django-5.2.8 -o /tmp/old.txt
    python benchmarks/blob_digests.py compare /tmp/old.txt /tmp/new.txt

`dump` runs in the interpreter given (its installation's extraction), over the files the
indexer would list (discover, with the default configuration), each through the workers'
own entry point (reading.extract_source). `compare` prints the files whose blobs differ
and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def dump(tree: Path, out: Path) -> int:
    from hashlib import sha256

    from codeimpact.indexer.config import IndexConfig
    from codeimpact.indexer.discover import discover
    from codeimpact.indexer.lang import content_language
    from codeimpact.indexer.reading import extract_source

    lines = []
    for f in discover(tree, IndexConfig()):
        data = (tree / f.path).read_bytes()
        language = content_language(f.language, data)
        try:
            blob = extract_source(language, data)
        except Exception as e:  # (an extractor's error is a line of its own: compared too)
            lines.append(f"{f.path}\terror: {type(e).__name__}")
            continue
        lines.append(f"{f.path}\t{language}\t{sha256(blob).hexdigest()}")
    out.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} files -> {out}")
    return 0


def compare(old: Path, new: Path) -> int:
    def read(p: Path) -> dict[str, str]:
        return dict(line.split("\t", 1) for line in p.read_text().splitlines() if line)

    a, b = read(old), read(new)
    differ = sorted(p for p in a.keys() | b.keys() if a.get(p) != b.get(p))
    for p in differ[:20]:
        print(f"{p}: {a.get(p, '(none)')} -> {b.get(p, '(none)')}")
    print(f"{len(a)} vs {len(b)} files, {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("tree", type=Path)
    d.add_argument("-o", "--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "dump":
        return dump(args.tree.resolve(), args.out)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
