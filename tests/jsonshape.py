"""The JSON shapes documented in docs/json.md, read from the page itself, and a strict checker.

The page is the one definition: each ```json block under a heading is a shape,
written like a sample of the output (see docs/json.md, "How to read the shapes"):

- a type name: "string", "int", "number" (int or float), "bool", "null", "any";
- any other string is a literal ("codeimpact.impact/1", "LOW");
- alternatives with "|" ("string|null", "LOW|MEDIUM|HIGH|CRITICAL", "@counts|null");
- "@name": the shape defined under the heading `### @name`;
- [S]: an array of S; [S1, S2, ...]: an array of exactly those, in order;
- {...}: an object with exactly those keys; "key?" may be absent; "*" matches any other key;
- `//` starts a comment to the end of the line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TYPE_NAMES = {"string", "int", "number", "bool", "null", "any"}
DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"


@dataclass
class Shapes:
    commands: dict[str, Any]  # "codeimpact.impact/1" -> shape
    named: dict[str, Any]  # "@symbol" -> shape
    visited: set[str] = field(default_factory=set)  # named shapes a check went through


def _strip_comments(block: str) -> str:
    # Only a `//` outside a JSON string starts a comment (a literal may hold one).
    out = []
    for line in block.splitlines():
        in_string = False
        cut = len(line)
        for i, ch in enumerate(line):
            if ch == '"' and (i == 0 or line[i - 1] != "\\"):
                in_string = not in_string
            elif not in_string and line.startswith("//", i):
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def parse(text: str) -> Shapes:
    commands: dict[str, Any] = {}
    named: dict[str, Any] = {}
    heading = ""
    for m in re.finditer(r"^(#{2,3}) ([^\n]+)$|^```json\n(.*?)^```", text, re.M | re.S):
        if m.group(1):
            heading = m.group(2).strip()
            continue
        try:
            shape = json.loads(_strip_comments(m.group(3)))
        except ValueError as e:
            raise ValueError(f"docs/json.md, under {heading!r}: not JSON: {e}") from None
        if heading.startswith("@"):
            name = heading.split()[0]
            if name in named:
                raise ValueError(f"docs/json.md: {name} defined twice")
            named[name] = shape
        elif isinstance(shape, dict) and isinstance(shape.get("schema"), str):
            if shape["schema"] in commands:
                raise ValueError(f"docs/json.md: {shape['schema']} documented twice")
            commands[shape["schema"]] = shape
        else:
            raise ValueError(f"docs/json.md, under {heading!r}: a shape needs a schema or @name")
    return Shapes(commands, named)


def load() -> Shapes:
    return parse(DOC.read_text(encoding="utf-8"))


def check(shapes: Shapes, shape: Any, value: Any, where: str = "$") -> list[str]:
    """Every way `value` differs from `shape` (empty: it matches)."""
    if isinstance(shape, str):
        return _check_alternatives(shapes, shape, value, where)
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where}: expected an array, got {_show(value)}"]
        if len(shape) == 1:
            errs: list[str] = []
            for i, item in enumerate(value):
                errs += check(shapes, shape[0], item, f"{where}[{i}]")
            return errs
        if len(value) != len(shape):
            return [f"{where}: expected {len(shape)} items, got {len(value)}"]
        errs = []
        for i, (s, v) in enumerate(zip(shape, value)):
            errs += check(shapes, s, v, f"{where}[{i}]")
        return errs
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {_show(value)}"]
        errs = []
        keys = {k.rstrip("?"): (k.endswith("?"), s) for k, s in shape.items() if k != "*"}
        for key, (optional, s) in keys.items():
            if key not in value:
                if not optional:
                    errs.append(f"{where}: missing key {key!r}")
                continue
            errs += check(shapes, s, value[key], f"{where}.{key}")
        for key in value:
            if key in keys:
                continue
            if "*" in shape:
                errs += check(shapes, shape["*"], value[key], f"{where}.{key}")
            else:
                errs.append(f"{where}: undocumented key {key!r}")
        return errs
    raise ValueError(f"bad shape at {where}: {shape!r}")


def _check_alternatives(shapes: Shapes, spec: str, value: Any, where: str) -> list[str]:
    failures = []
    for alt in spec.split("|"):
        if alt.startswith("@"):
            if alt not in shapes.named:
                raise ValueError(f"{where}: {alt} is not defined in docs/json.md")
            errs = check(shapes, shapes.named[alt], value, where)
            if not errs:
                shapes.visited.add(alt)
                return []
            failures += errs
        elif _scalar_ok(alt, value):
            return []
    if failures and len(spec.split("|")) == 1:
        return failures  # one reference: its own, precise errors
    return [f"{where}: expected {spec}, got {_show(value)}"] + failures[:3]


def _scalar_ok(alt: str, value: Any) -> bool:
    if alt == "any":
        return True
    if alt == "null":
        return value is None
    if alt == "string":
        return isinstance(value, str)
    if alt == "bool":
        return isinstance(value, bool)
    if alt == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if alt == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return value == alt  # a literal


def _show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
