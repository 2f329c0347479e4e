"""Git's diff output as data: the hunks and files of `git diff --raw -p -z` (paths
unquoted, renames and modes kept), the line hunks between two texts, and whether bytes
are binary. Pure functions over bytes; query/gitdiff.py runs git and chooses what to diff."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

ZERO_SHA = re.compile(rb"^0+$")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f"}
_ESCAPES.update({"r": "\r", "v": "\v"})


@dataclass(frozen=True)
class Hunk:
    """One zero-context hunk: lines old_start.. (old_count of them) became new_start.. .

    With count 0 the start is the line *after which* the other side's lines go
    (git's convention). `removed` / `added` are the lines' text, in order.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()

    def old_lines(self) -> range:
        return range(self.old_start, self.old_start + self.old_count)

    def new_lines(self) -> range:
        return range(self.new_start, self.new_start + self.new_count)


@dataclass
class FileDiff:
    """One changed path. A blob id of None means: read that side from the working tree."""

    status: str  # added | modified | deleted | renamed | copied | typechange | unmerged
    old_path: str | None
    new_path: str | None
    old_blob: str | None = None
    new_blob: str | None = None
    old_mode: str = ""
    new_mode: str = ""
    similarity: int | None = None  # percent, for renames and copies
    binary: bool = False
    untracked: bool = False
    hunks: list[Hunk] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # unstaged scope: the path the old side had at HEAD when git's index holds it renamed
    # (`git mv` staged, then edited): its symbols' indexed uids are under that path
    origin_path: str | None = None

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def unquote(raw: bytes) -> str:
    """A path as git prints it in patch headers (C-quoted when it holds special bytes)."""
    text = raw.decode("utf-8", "surrogateescape")
    if not (len(text) >= 2 and text[0] == '"' and text[-1] == '"'):
        return text
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1:
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


_RAW_STATUS = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "typechange",
    "U": "unmerged",
}


def parse_raw(data: bytes) -> tuple[list[FileDiff], bytes]:
    """The raw part of `--raw -z` output -> entries, and the rest (the patch part)."""
    entries: list[FileDiff] = []
    pos = 0
    while pos < len(data) and data[pos : pos + 1] == b":":
        end = data.index(b"\0", pos)
        meta = data[pos:end].decode()
        pos = end + 1
        colons = len(meta) - len(meta.lstrip(":"))
        fields = meta.lstrip(":").split()
        letter = fields[-1][0]
        npaths = 2 if letter in "RC" else 1
        paths = []
        for _ in range(npaths):
            end = data.index(b"\0", pos)
            paths.append(data[pos:end].decode("utf-8", "surrogateescape"))
            pos = end + 1
        if colons > 1:
            continue  # a combined (merge) entry; the plain `U` entry for the path follows
        old_mode, new_mode, old_blob, new_blob = fields[0], fields[1], fields[2], fields[3]
        status = _RAW_STATUS.get(letter, "modified")
        old_path = paths[0] if status != "added" else None
        new_path = paths[-1] if status != "deleted" else None
        entries.append(
            FileDiff(
                status=status,
                old_path=old_path,
                new_path=new_path,
                old_blob=None if ZERO_SHA.match(old_blob.encode()) else old_blob,
                new_blob=None if ZERO_SHA.match(new_blob.encode()) else new_blob,
                old_mode=old_mode,
                new_mode=new_mode,
                similarity=int(fields[-1][1:]) if letter in "RC" and fields[-1][1:] else None,
            )
        )
    if data[pos : pos + 1] == b"\0":
        pos += 1
    return entries, data[pos:]


@dataclass
class _Section:
    old_path: str | None = None
    new_path: str | None = None
    header_path: str | None = None
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)


def _header_path(line: bytes) -> str | None:
    """The path of `diff --git a/P b/P` when both halves agree (always so unless renamed)."""
    rest = line[len(b"diff --git ") :]
    if rest.startswith(b'"'):
        return None
    n = (len(rest) - 1) // 2
    a, b = rest[:n], rest[n + 1 :]
    if a.startswith(b"a/") and b.startswith(b"b/") and a[2:] == b[2:]:
        return a[2:].decode("utf-8", "surrogateescape")
    return None


def _side_path(raw: bytes, prefix: bytes) -> str | None:
    raw = raw.rstrip(b"\t")  # git appends a tab to names holding spaces
    if raw == b"/dev/null":
        return None
    name = unquote(raw)
    return name[len(prefix) :] if name.startswith(prefix.decode()) else name


def parse_patch(data: bytes) -> list[_Section]:
    sections: list[_Section] = []
    cur: _Section | None = None
    hunk: list | None = None  # [old_start, old_count, new_start, new_count, removed, added]

    def close_hunk():
        nonlocal hunk
        if cur is not None and hunk is not None:
            o, oc, n, nc, rem, add = hunk
            cur.hunks.append(Hunk(o, oc, n, nc, tuple(rem), tuple(add)))
        hunk = None

    for line in data.split(b"\n"):
        if line.startswith(b"diff --git ") or line.startswith(b"diff --cc "):
            close_hunk()
            cur = _Section(header_path=_header_path(line))
            sections.append(cur)
            continue
        if cur is None:
            continue
        if hunk is not None:
            if line.startswith(b"-"):
                hunk[4].append(line[1:].decode("utf-8", "replace"))
                continue
            if line.startswith(b"+"):
                hunk[5].append(line[1:].decode("utf-8", "replace"))
                continue
            if line.startswith(b"\\"):
                continue  # "\ No newline at end of file"
            close_hunk()
        m = _HUNK.match(line)
        if m:
            oc = 1 if m.group(2) is None else int(m.group(2))
            nc = 1 if m.group(4) is None else int(m.group(4))
            hunk = [int(m.group(1)), oc, int(m.group(3)), nc, [], []]
        elif line.startswith(b"--- "):
            cur.old_path = _side_path(line[4:], b"a/")
        elif line.startswith(b"+++ "):
            cur.new_path = _side_path(line[4:], b"b/")
        elif line.startswith(b"rename from ") or line.startswith(b"copy from "):
            cur.old_path = unquote(line.split(b" from ", 1)[1])
        elif line.startswith(b"rename to ") or line.startswith(b"copy to "):
            cur.new_path = unquote(line.split(b" to ", 1)[1])
        elif line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
            cur.binary = True
    close_hunk()
    return sections


def parse_diff(data: bytes) -> list[FileDiff]:
    """`git diff --raw -p -z -U0 --no-abbrev` output -> one FileDiff per path, with hunks."""
    entries, patch = parse_raw(data)
    by_path: dict[str, FileDiff] = {}
    for e in entries:
        by_path.setdefault(e.path, e)
    for sec in parse_patch(patch):
        key = sec.new_path or sec.old_path or sec.header_path
        entry = by_path.get(key or "")
        if entry is None and sec.old_path:
            entry = by_path.get(sec.old_path)
        if entry is None:
            continue
        entry.binary = entry.binary or sec.binary
        entry.hunks.extend(sec.hunks)
    return entries


def line_hunks(old: bytes, new: bytes) -> list[Hunk]:
    """Zero-context hunks between two contents, for pairs git did not diff for us."""
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    hunks: list[Hunk] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        # git's convention: an empty side starts at the line before the change.
        old_start = i1 + 1 if i2 > i1 else i1
        new_start = j1 + 1 if j2 > j1 else j1
        hunks.append(Hunk(old_start, i2 - i1, new_start, j2 - j1, tuple(a[i1:i2]), tuple(b[j1:j2])))
    return hunks


def is_binary(data: bytes | None) -> bool:
    return data is not None and b"\0" in data[:8192]
