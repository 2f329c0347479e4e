"""`range()` bounds written as numbers become parameters before Kùzu reads the query.

Kùzu folds a constant expression while it binds a query: `range(1, 3000000)` becomes
a literal list of 3,000,000 values built before the first row exists, outside the
buffer pool and out of reach of the row cap (measured on Kùzu 0.11.3: 1.7 GB peak
for `UNWIND range(1, 3000000) AS x RETURN x`). The same call with parameters for
bounds is not constant, so Kùzu evaluates it as it runs the query, chunk by chunk
(~100 MB for the same 3,000,000 rows). Each integer written inside a `range(...)`
call is therefore passed as `CAST($p AS INT64)`: the value and its type (an integer
literal is an INT64 in Kùzu) stay those the user wrote. The column name Kùzu derives
from an unaliased `range(...)` is given back as it reads for the literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from codeimpact.query.cypher_guard import Token, function_name, tokenize

_INT64 = range(-(2**63), 2**63)
PREFIX = "__codeimpact_range_"  # names of the parameters this module adds
# how Kùzu writes an added parameter back: in the text (a parser's message), as an
# expression (a column's name, a binder's message), or with its cast folded away
_WRITTEN = re.compile(
    rf"CAST\(\$({PREFIX}\d+) AS INT64\)|CAST\(\$({PREFIX}\d+), INT64\)|\$({PREFIX}\d+)\b"
)
_OFFSET = re.compile(r"\boffset: (\d+)")


@dataclass(frozen=True)
class Literal:
    text: str  # as the user wrote it (`-5`, `- 5`)
    value: int
    pos: int  # where it starts in the user's query
    new_pos: int  # where its parameter starts in the query Kùzu runs
    new_len: int  # the length of `CAST($p AS INT64)`


@dataclass(frozen=True)
class Unfolded:
    query: str  # the query Kùzu runs
    params: dict[str, Any]  # the user's parameters and the ones added here
    literals: dict[str, Literal] = field(default_factory=dict)  # by added parameter

    def column(self, name: str) -> str:
        """A result column's name as Kùzu names it for the query the user wrote."""
        return self._restore(name, lambda lit: str(lit.value))

    def message(self, text: str) -> str:
        """Kùzu's error message as it reads for the query the user wrote: its text and
        the offset a parser's message gives."""
        if not self.literals:
            return text
        text = _OFFSET.sub(lambda m: f"offset: {self._user_offset(int(m.group(1)))}", text)
        return self._restore(text, lambda lit: lit.text)

    def _restore(self, text: str, shown) -> str:
        if not self.literals:
            return text
        return _WRITTEN.sub(lambda m: shown(self.literals[m.group(m.lastindex)]), text)

    def _user_offset(self, offset: int) -> int:
        shift = 0
        for lit in self.literals.values():
            if offset < lit.new_pos:
                break
            if offset < lit.new_pos + lit.new_len:
                return lit.pos
            shift += lit.new_len - len(lit.text)
        return offset - shift


def unfold_ranges(query: str, params: dict[str, Any] | None) -> Unfolded:
    """`query` with the integers inside its `range(...)` calls made parameters.

    The query has passed `cypher_guard.check_read_only`: only number tokens change
    (a number's text is exactly its token), so what it may do stays the same."""
    params = dict(params or {})
    tokens = tokenize(query)
    if not any(function_name(tokens, k) == "RANGE" for k in range(len(tokens))):
        return Unfolded(query, params)
    taken = set(params) | {t.text for t in tokens if t.kind == "param"}
    pieces: list[str] = []
    literals: dict[str, Literal] = {}
    done = 0  # the text up to here is in `pieces`
    size = 0  # the length of `pieces`' text
    for start, value in _range_integers(tokens):
        name = f"{PREFIX}{len(literals)}"
        if name in taken:
            return Unfolded(query, params)  # the user's names clash: leave it to Kùzu
        begin = tokens[start].pos  # a sign folded in starts at the `-`
        number = next(t for t in tokens[start:] if t.kind == "number")
        end = number.pos + len(number.text)
        written = f"CAST(${name} AS INT64)"
        before = query[done:begin]
        pieces += [before, written]
        literals[name] = Literal(query[begin:end], value, begin, size + len(before), len(written))
        size += len(before) + len(written)
        done = end
    if not literals:
        return Unfolded(query, params)
    pieces.append(query[done:])
    added = {name: lit.value for name, lit in literals.items()}
    return Unfolded("".join(pieces), params | added, literals)


def _range_integers(tokens: list[Token]) -> list[tuple[int, int]]:
    """(index of the first token, value) of each INT64 integer written inside a
    `range(...)` call, a leading minus of an argument included, in text order."""
    out: list[tuple[int, int]] = []
    depth = 0  # parentheses open inside the outermost range call
    for k, t in enumerate(tokens):
        if depth == 0:
            if function_name(tokens, k) == "RANGE":
                depth = -1  # its `(` comes next
            continue
        if t.kind == "punct" and t.text == "(":
            depth = 1 if depth == -1 else depth + 1
        elif t.kind == "punct" and t.text == ")":
            depth -= 1
        elif t.kind == "number" and t.text.isdigit():
            signed = _negated(tokens, k)
            value = -int(t.text) if signed else int(t.text)
            if value in _INT64:
                out.append((k - 1 if signed else k, value))
    return out


def _negated(tokens: list[Token], k: int) -> bool:
    """Whether number k has a unary minus: `-` at the start of an argument."""
    if k < 2 or tokens[k - 1].kind != "punct" or tokens[k - 1].text != "-":
        return False
    before = tokens[k - 2]
    return before.kind == "punct" and before.text in ("(", ",")
