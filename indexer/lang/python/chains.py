"""Python expressions as chains and types as text: the text functions of extraction.

`_chain` (`a.b.c`, whitespace allowed around dots) and `callee_chain` (bracket groups as
`()`/`[]` steps) answer through native/chains.c when the native path runs, the Python
reference versions here otherwise; `type_text` is an annotation as compact TYPE text.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

import tree_sitter as ts

from codeimpact.indexer.lang.python import chain_syntax
from codeimpact.native.runner import native_syntax

_WS = re.compile(rb"\s+")


@cache
def _patterns() -> tuple[re.Pattern, re.Pattern]:
    """The reference functions' patterns: a chain, and the tokens of a call's function
    expression (names, dots, brackets and string literals, skipped inside brackets so that a
    bracket in a string does not unbalance them). Compiled when the reference functions first
    run: the native path never runs them, and compiling both was ~0.4-0.7 ms of every process
    that imports extraction (an edit's main among them)."""
    return (re.compile(chain_syntax.CHAIN_PATTERN),
            re.compile(chain_syntax.TOKEN_PATTERN, re.S))  # fmt: skip


_MEMBER = chain_syntax.MEMBER
_GROUP_OF = {g[:1]: g.decode() for g in chain_syntax.GROUPS}  # opener -> its step suffix
_CLOSERS = frozenset(g[1:] for g in chain_syntax.GROUPS)
_MAX_TYPE = 200  # longer annotations are noise for resolution


def _named(node: ts.Node) -> list[ts.Node]:
    """`node.named_children`, built from `children`: about 2.5x cheaper in py-tree-sitter
    0.26 (measured over Django's call arguments), and extraction asks for it per call."""
    return [c for c in node.children if c.is_named]


_SPACE = chain_syntax.SPACE


# Chains repeat (`self.assertEqual`, `len`, `request`): over Django 86% of callee texts had
# been seen before, so the two chain functions remember recent answers.
_CHAIN_CACHE = 1 << 13


def _py_chain(text: bytes) -> str | None:
    """`a.b.c` (whitespace allowed around dots) -> "a.b.c"; anything else -> None."""
    if _patterns()[0].fullmatch(text):
        return text.translate(None, _SPACE).decode()
    return None


def _py_callee_chain(text: bytes) -> str | None:
    """The chain of an expression: `a.b`, `super().m`, `Foo(x).m`, `self.tags[k].m`, `A[int]`.

    Each bracket group becomes a `()` or `[]` step suffix; anything that is not a
    name, a dot or a balanced bracket group at the top level, or more than
    chain_syntax.MAX_GROUPS groups, gives None.
    """
    c = _chain(text)
    if c is not None:
        return c
    out: list[str] = []
    depth = groups = 0
    opener = b""
    expect_name = True
    for m in _patterns()[1].finditer(text):
        tok = m.group()
        if depth:
            if tok in _GROUP_OF:
                depth += 1
            elif tok in _CLOSERS:
                depth -= 1
                if depth == 0:
                    out.append(_GROUP_OF[opener])
                    groups += 1
                    if groups > chain_syntax.MAX_GROUPS:
                        return None
            continue
        first = tok[:1]
        if first in chain_syntax.SPACE:
            continue
        if tok == _MEMBER:
            if expect_name:
                return None
            out.append(_MEMBER.decode())
            expect_name = True
        elif first in chain_syntax.NAME_START:
            if not expect_name:
                return None
            out.append(tok.decode())
            expect_name = False
        elif tok in _GROUP_OF:
            if expect_name:
                return None
            depth, opener = 1, tok
        else:
            return None
    if depth or expect_name or not out:
        return None
    return "".join(out)


def _native_chains() -> tuple:
    """native/chains.c's versions of the two functions above with their answers kept per text
    (the same answers, tested against them: the Python ones are the reference), which the
    fact engine reads without calling back into Python; else the Python ones, cached."""
    ext = native_syntax()
    if ext is None:
        return (
            lru_cache(maxsize=_CHAIN_CACHE)(_py_chain),
            lru_cache(maxsize=_CHAIN_CACHE)(_py_callee_chain),
        )
    return ext.cached_chain, ext.cached_callee_chain


_chain, callee_chain = _native_chains()


def type_text(text: bytes) -> str:
    """An annotation as compact TYPE text: quotes of forward references and whitespace removed."""
    t = _WS.sub(b"", text).replace(b'"', b"").replace(b"'", b"")
    if len(t) > _MAX_TYPE:
        return ""
    return t.decode(errors="replace")
