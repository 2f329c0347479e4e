"""Whether a C-family file holds C++: the content decides, not the project.

`.h` is both languages' header extension. A file the C spec takes (`.c`, `.h`) is C++ when
its code (comments, string and character literals, and `#if` blocks taken only by C++
compilers (`#ifdef __cplusplus`) left out) uses something C has not: `namespace`,
`class X {`, `template <`, an access label (`public:`), `::`, `using namespace`,
`operator==`, `virtual`, `nullptr`, `constexpr`, `typename`, `decltype`, a `*_cast` or an
extensionless standard include (`#include <vector>`). Anything else is C: a header of plain
prototypes compiles as both, and C is what it then is. The rule depends only on the bytes,
so a file's facts stay a function of its content (the facts cache is keyed by it); which
other files the project holds never changes a header's language.
"""

from __future__ import annotations

import bisect
import re

# Where a marker may stand (found with bytes.find: a regex alternation over the whole of a
# 9 MB file costs ~0.4 s, these scans ~20 ms); each hit is then checked: the marker itself,
# in code.
_WORDS = (b"::", b"namespace", b"class", b"template", b"public", b"private", b"protected",
          b"using", b"operator", b"virtual", b"nullptr", b"constexpr", b"typename",
          b"decltype", b"_cast", b"include")  # fmt: skip
_WORD_CHAR = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_MARKER = re.compile(
    rb"::|namespace\b|class[ \t\r\n]+\w+[^;()]*?[{:]|template[ \t\r\n]*<"
    rb"|(?:public|private|protected)[ \t\r\n]*:(?!:)|using[ \t\r\n]+namespace\b"
    rb"|operator[ \t]*(?:[-+*/%^&|~!=<>\[(]|new\b|delete\b)|virtual\b|nullptr\b"
    rb"|constexpr\b|typename\b|decltype\b|(?:static|dynamic|reinterpret|const)_cast\b"
    rb"|include[ \t]*<[A-Za-z_]+>"
)
_CAST_HEADS = (b"static", b"dynamic", b"reinterpret", b"const")
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", re.M)
_CPLUSPLUS = re.compile(rb"__cplusplus")
_NEGATED = re.compile(rb"^\s*!|^\s*0\s*$")


def _in_comment_or_literal(source: bytes, pos: int) -> bool:
    """Whether `pos` is inside a comment or a literal (by the text before it: a block
    comment opened and not closed, a `//` earlier on its line, an odd count of quotes)."""
    if source.rfind(b"/*", 0, pos) > source.rfind(b"*/", 0, pos):
        return True
    start = source.rfind(b"\n", 0, pos) + 1
    head = source[start:pos]
    if b"//" in head:
        return True
    head = head.replace(b"\\\\", b"").replace(b'\\"', b"").replace(b"\\'", b"")
    return head.count(b'"') % 2 == 1 or head.count(b"'") % 2 == 1


class _CppOnly:
    """The spans of `#if` branches that only a C++ compiler takes (`#ifdef __cplusplus`,
    `#if defined(__cplusplus)`, the `#else` of `#ifndef __cplusplus`)."""

    def __init__(self, source: bytes):
        # (position, depth of C++-only branches open from there on)
        self.starts: list[int] = [0]
        self.depths: list[int] = [0]
        stack: list[tuple[bool, bool, bool]] = []  # (names __cplusplus, negated, C++-only)
        depth = 0
        for m in _CONDITIONAL.finditer(source):
            word, rest = m.group(1), m.group(2)
            names = bool(_CPLUSPLUS.search(rest))
            if word in (b"if", b"ifdef", b"ifndef"):
                negated = word == b"ifndef" or bool(_NEGATED.search(rest))
                branch = names and not negated
                stack.append((names, negated, branch))
                depth += branch
            elif stack and word in (b"else", b"elif"):
                was_names, was_negated, was = stack[-1]
                if word == b"else":  # `#else` of `#ifndef __cplusplus` is C++-only
                    now = was_names and was_negated
                else:
                    now = names and not _NEGATED.search(rest)
                stack[-1] = (was_names or names, was_negated, now)
                depth += now - was
            elif stack and word == b"endif":
                depth -= stack.pop()[2]
            self.starts.append(m.end())
            self.depths.append(depth)

    def at(self, pos: int) -> bool:
        return self.depths[bisect.bisect_right(self.starts, pos) - 1] > 0


def _candidates(source: bytes):
    """Positions where a marker word starts (at a word boundary)."""
    for word in _WORDS:
        pos = source.find(word)
        while pos >= 0:
            at = pos
            if word == b"_cast":  # static_cast: back to the start of the word
                at = next((pos - len(h) for h in _CAST_HEADS
                           if source[pos - len(h):pos] == h), -1)  # fmt: skip
            elif word == b"include" and source[max(0, pos - 16) : pos].rstrip(b" \t")[-1:] != b"#":
                at = -1
            if at >= 0 and (word == b"::" or at == 0 or source[at - 1] not in _WORD_CHAR):
                yield at
            pos = source.find(word, pos + len(word))


def is_cpp(source: bytes) -> bool:
    """Whether the code of a C-family file uses C++ (see the module docstring)."""
    cpp_only: _CppOnly | None = None
    for pos in _candidates(source):
        if _MARKER.match(source, pos) is None or _in_comment_or_literal(source, pos):
            continue
        if cpp_only is None:
            cpp_only = _CppOnly(source)
        if not cpp_only.at(pos):
            return True
    return False


def language_of(source: bytes) -> str:
    """`cpp` or `c`: the language of a file the C spec takes (`.c`, `.h`)."""
    return "cpp" if is_cpp(source) else "c"
