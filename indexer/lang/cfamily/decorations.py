"""Macros that decorate declarations, blanked before parsing so tree-sitter sees plain C.

`SQLITE_API int sqlite3_open(...)` or `static int __init ext4_init(void)` put a macro
where the grammar wants a type: tree-sitter, which does not preprocess, then reads
`SQLITE_API` as the type and `int` as a variable, and the function is lost. A preprocessor
would expand these macros to nothing (or to a storage keyword), so that is what is done
here, in place: each use in code is overwritten by its expansion padded with spaces, which
keeps every byte offset and line of the file. The macros are those the file itself defines
as empty or as storage keywords (`#define SQLITE_API`, `#define SQLITE_EXTERN extern`) and a
fixed list of the common ones defined in headers we may not have (the Linux kernel's
section and address-space annotations, Windows calling conventions). Facts stay a function
of the file's bytes. Names are never blanked on preprocessor lines (`#ifdef SQLITE_API`).
"""

from __future__ import annotations

import re

_KEYWORDS = frozenset({b"extern", b"static", b"inline", b"__inline", b"__inline__", b"const"})
_NAME = re.compile(rb"[A-Z_][A-Z0-9_]*\Z")
KNOWN = (
    b"__init", b"__exit", b"__initdata", b"__initconst", b"__exitdata", b"__ref", b"__user",
    b"__iomem", b"__rcu", b"__percpu", b"__force", b"__bitwise", b"__must_check",
    b"__always_inline", b"noinline", b"__cold", b"__hot", b"__maybe_unused", b"__used",
    b"__weak", b"asmlinkage", b"__visible", b"notrace", b"__read_mostly", b"__sched",
    b"__latent_entropy", b"__noreturn", b"__pure", b"__printf", b"__acquires", b"__releases",
    b"__must_hold", b"__private", b"__randomize_layout", b"__packed", b"__aligned",
    b"WINAPI", b"CALLBACK", b"APIENTRY", b"__cdecl", b"__stdcall", b"__fastcall",
    b"NAPI_EXTERN", b"NAPI_CDECL", b"V8_EXPORT", b"V8_INLINE", b"NODE_EXTERN",
)  # fmt: skip
_WITH_ARGS = frozenset({b"__printf", b"__aligned", b"__acquires", b"__releases", b"__must_hold"})
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _defines(source: bytes):
    """(name, value words) of each `#define NAME words` line (no parameters, no comment)."""
    pos = source.find(b"define")
    while pos >= 0:
        start = source.rfind(b"\n", 0, pos) + 1
        end = source.find(b"\n", pos)
        end = len(source) if end < 0 else end
        head = source[start:pos].replace(b" ", b"").replace(b"\t", b"")
        if head == b"#" and source[end - 1 : end] != b"\\":
            words = source[pos + 6 : end].split(b"/*", 1)[0].split(b"//", 1)[0].split()
            if words and _NAME.match(words[0]):
                yield words[0], words[1:]
        pos = source.find(b"define", end)


def _expansions(source: bytes) -> dict[bytes, bytes]:
    out: dict[bytes, bytes] = {}
    for name, words in _defines(source):
        if name.endswith((b"_H", b"_H_", b"_INCLUDED")):
            continue  # an include guard: used on directive lines only
        if all(w in _KEYWORDS for w in words):
            exp = b" ".join(words)
            if len(exp) <= len(name):
                out.setdefault(name, exp)
    for name in KNOWN:
        out.setdefault(name, b"")
    return out


def _on_directive_line(source: bytes, pos: int) -> bool:
    start = source.rfind(b"\n", 0, pos) + 1
    return source[start:pos].lstrip(b" \t")[:1] == b"#"


def blank_decorations(source: bytes) -> bytes:
    """The source with decoration macros expanded in place (same length, same lines)."""
    buf: bytearray | None = None
    for name, exp in _expansions(source).items():
        pos = source.find(name)
        while pos >= 0:
            end = pos + len(name)
            if (
                (pos == 0 or source[pos - 1] not in _WORD)
                and (end >= len(source) or source[end] not in _WORD)
                and not _on_directive_line(source, pos)
            ):
                if buf is None:
                    buf = bytearray(source)
                buf[pos:end] = exp.ljust(len(name))
                if name in _WITH_ARGS and source[end : end + 1] == b"(":  # `__printf(1, 2)`
                    close = source.find(b")", end)
                    if close >= 0 and b"\n" not in source[end:close]:
                        buf[end : close + 1] = b" " * (close + 1 - end)
            pos = source.find(name, end)
    return bytes(buf) if buf is not None else source
