"""Python's chain syntax as data: what reading a call's function expression as a chain
(`a.b`, `super().m`, `self.tags[k].m`) needs to know of the language's text.

Declared once, here. python/chains.py compiles its two regular expressions from it (the
reference versions of `_chain` and `callee_chain`), and setup.py writes the tables of
native/chains.c from it at build time (build/codeimpact-generated/chain_syntax.h), so the C
tokenizer holds no knowledge of Python: which bytes start and continue a name, which are
space, the member operator, the bracket groups and the string literals it skips.

This file imports only the standard library: setup.py runs it as plain code, before the
package it builds can be imported (native/build_digest.py digests it with the C sources).
"""

from __future__ import annotations

import re

NAME_START = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
NAME_REST = NAME_START + b"0123456789"  # what `\w` matches in a bytes pattern
SPACE = b" \t\n\r\x0b\x0c"  # what `\s` matches in a bytes pattern
MEMBER = b"."
# bracket groups, each read as one step suffix `()` / `[]`; a group closes at any closer
# (depth counts both kinds), as in the Python reference
GROUPS = (b"()", b"[]")
# a chain of more bracket steps than this is no chain (its call is unresolvable, `?`): every
# call of `a.b().b()...` has the chain of all before it, so 20,000 of them (a 40 KB file)
# made 800 MB of facts; real chains have a few
MAX_GROUPS = 32
ESCAPE = b"\\"  # in a one-line string literal, escapes the next byte


class StringForm:
    """A string literal the tokenizer skips whole inside a bracket group (a bracket in a
    string does not unbalance the group): from `quote` to the next `quote`; a `multiline`
    form runs across lines and has no escapes (`'''.*?'''`), a one-line form ends at a
    newline and ESCAPE escapes the next byte (`'(?:\\\\.|[^'\\\\\\n])*'`)."""

    __slots__ = ("multiline", "quote")

    def __init__(self, quote: bytes, multiline: bool):
        if not multiline and len(quote) != 1:
            raise ValueError("a one-line string form's quote is one byte")
        self.quote = quote
        self.multiline = multiline

    def pattern(self) -> bytes:
        q = re.escape(self.quote)
        if self.multiline:
            return q + rb".*?" + q
        e = re.escape(ESCAPE)
        return q + b"(?:" + e + b".|[^" + q + e + b"\n])*" + q


# tried in this order where a token starts (a triple quote before a one-line string)
STRINGS = (
    StringForm(b"'''", multiline=True),
    StringForm(b'"""', multiline=True),
    StringForm(b"'", multiline=False),
    StringForm(b'"', multiline=False),
)


def _byte_class(chars: bytes) -> bytes:
    return b"[" + b"".join(re.escape(bytes([c])) for c in chars) + b"]"


NAME = _byte_class(NAME_START) + _byte_class(NAME_REST) + b"*"
_GAP = _byte_class(SPACE) + b"*"
# a plain chain, `a . b.c` (space around the member operator): its fullmatch
CHAIN_PATTERN = NAME + b"(?:" + _GAP + re.escape(MEMBER) + _GAP + NAME + b")*"
# the tokens of a function expression (compiled with re.S): space, a name, the member
# operator, a bracket, a string literal, else any one byte
TOKEN_PATTERN = b"|".join(
    [
        _byte_class(SPACE) + b"+",
        NAME,
        re.escape(MEMBER),
        _byte_class(b"".join(GROUPS)),
        *(s.pattern() for s in STRINGS),
        b".",
    ]
)
