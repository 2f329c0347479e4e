"""Human output at a terminal: aligned tables, counts before lists, "and N more", colour.

Colour only when the stream is a terminal and `NO_COLOR` is not set (no-color.org:
any non-empty value turns it off), so piped output and logs stay plain text. Every
function here is pure: the caller decides the stream and passes a `Style`.

Text read from the repository (file names, symbol names, source lines, messages
that quote them) is printed through `escape` (or a whole result through `escaped`):
a control character in a name must neither drive the terminal nor vanish (click
strips escape sequences from piped output), so it is shown as `\\x1b`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

from codeimpact.native.record import Hashed

T = TypeVar("T")

# C0 controls (tab and newline too: a name holding them would break a line or a column),
# DEL, C1 controls, the bidirectional overrides and isolates that reorder what a terminal
# shows ("Trojan Source"), and the lone surrogates that stand for undecodable bytes.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")


def _visible(m: re.Match) -> str:
    c = ord(m.group())
    if 0xDC80 <= c <= 0xDCFF:  # surrogateescape: the byte that was not UTF-8
        return f"\\x{c - 0xDC00:02x}"
    return f"\\x{c:02x}" if c <= 0xFF else f"\\u{c:04x}"


def escape(text: str) -> str:
    r"""`text` with every control character written as a visible escape (`\x1b`, `\u202e`).

    Printable text, backslashes included, is left as it is: a name without control
    characters prints exactly as it is spelled.
    """
    return _UNSAFE.sub(_visible, text) if _UNSAFE.search(text) else text


def escaped(obj: T) -> T:
    """A copy of a result with every string in it escaped, for text output (JSON escapes
    on its own). Dataclasses, lists, tuples and dicts are copied; other values kept."""
    return _escaped(obj)


def _escaped(obj: Any) -> Any:
    if isinstance(obj, str):
        return escape(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {
            f.name: _escaped(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init
        }
        return dataclasses.replace(obj, **changes)
    if isinstance(obj, list):
        return [_escaped(v) for v in obj]
    if isinstance(obj, tuple):
        items = [_escaped(v) for v in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if isinstance(obj, dict):
        return {_escaped(k): _escaped(v) for k, v in obj.items()}
    return obj


_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def colour_enabled(stream: IO | None = None, environ: dict | None = None) -> bool:
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Style(Hashed):
    enabled: bool
    __slots__ = ("enabled",)

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: IO | None = None) -> Style:
        return cls(colour_enabled(stream))

    def paint(self, text: str, name: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{_CODES[name]}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return self.paint(text, "bold")

    def dim(self, text: str) -> str:
        return self.paint(text, "dim")

    def risk(self, level: str) -> str:
        """A risk level in the colour of its urgency."""
        name = {"LOW": "green", "MEDIUM": "yellow", "HIGH": "red", "CRITICAL": "red"}.get(level)
        return self.paint(level, name) if name else level


PLAIN = Style(False)


def table(
    rows: Sequence[Sequence[str]],
    indent: str = "  ",
    header: Sequence[str] | None = None,
    colours: Sequence[Callable[[str], str] | None] | None = None,
) -> str:
    """Rows as left-aligned columns; widths from the plain text, colour applied after padding.

    The last column is not padded (no trailing blanks). `colours[i]` paints column i.
    """
    all_rows = ([list(header)] if header else []) + [list(r) for r in rows]
    if not all_rows:
        return ""
    ncols = max(len(r) for r in all_rows)
    all_rows = [r + [""] * (ncols - len(r)) for r in all_rows]
    widths = [max(len(r[i]) for r in all_rows) for i in range(ncols)]
    lines = []
    for k, r in enumerate(all_rows):
        cells = []
        for i, cell in enumerate(r):
            padded = cell if i == ncols - 1 else cell.ljust(widths[i])
            paint = colours[i] if colours and i < len(colours) else None
            if header and k == 0:
                paint = None
            if paint and cell:
                padded = paint(cell) + padded[len(cell) :]
            cells.append(padded)
        lines.append((indent + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def limited(items: Sequence[T], limit: int | None) -> tuple[list[T], int]:
    """The first `limit` items (all for 0 or None) and how many were left out."""
    shown = list(items if not limit else items[:limit])
    return shown, len(items) - len(shown)


def more_line(left_out: int, indent: str = "  ") -> str | None:
    return f"{indent}... and {left_out} more" if left_out > 0 else None


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def relpath(path: str | os.PathLike, repo: str | os.PathLike) -> str:
    """`path` relative to the repository when it is inside it, else as given."""
    p = Path(path)
    try:
        return p.resolve().relative_to(Path(repo).resolve()).as_posix() or "."
    except ValueError:
        return str(path)


def location(file: str, line: int | None) -> str:
    if not file:
        return "(external)"
    return f"{file}:{line}" if line else file
