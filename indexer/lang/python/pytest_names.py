"""The names pytest binds and requests in one file's facts: what the change plan needs of
fixtures (the resolver's rules are in fixtures.py).

A test file's lookups read fixtures by names no expression of it writes: the parameters of
its tests and fixtures, the literals of `usefixtures("db")` / `getfixturevalue("db")`, and
the autouse fixtures of the conftest.py files above (named here `AUTOUSE`). A file defines
its fixtures under the names pytest binds (`@pytest.fixture(name="db")`), and AUTOUSE when
it has autouse fixtures.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from codeimpact.indexer.lang.api import CallFact, FileFacts, SymbolFact, native_core

AUTOUSE = "<autouse>"  # the change plan's name for "the autouse fixtures of a file"
_FUNCTION_KINDS = ("function", "method")
_MARKS = ("usefixtures", "getfixturevalue")
_FUNCTION_SET = frozenset(_FUNCTION_KINDS)
# test_uses' fields: SymbolFact kind, is_test, params, decorators; CallFact callee, literals
_FIELDS = (*(SymbolFact._fields.index(f) for f in ("kind", "is_test", "params", "decorators")),
           *(CallFact._fields.index(f) for f in ("callee", "literals")))  # fmt: skip


def is_fixture(sym: SymbolFact | None) -> bool:
    """`@pytest.fixture`, `@pytest.fixture(...)`, `@fixture`, `@pytest_asyncio.fixture`."""
    if sym is None or not sym.decorators:  # (most definitions have none)
        return False
    for d in sym.decorators:  # noqa: SIM110 (a loop: no generator made)
        if d.removesuffix("()").rpartition(".")[2] == "fixture":
            return True
    return False


def literal_arguments(calls, last: str, key) -> list[str]:
    """The literal arguments at `key` (a keyword, or any position when None) of the calls
    whose callee's last name is `last`."""
    return [
        text
        for c in calls
        if c.callee.rpartition(".")[2] == last
        for k, text in c.literals
        if (isinstance(k, int) if key is None else k == key)
    ]


def fixture_names(symbols: Iterable[SymbolFact], calls: Iterable[CallFact]) -> dict[str, tuple]:
    """local -> (the name pytest binds, autouse) of each fixture function among `symbols`,
    given the file's calls (those with literal arguments suffice)."""
    fixtures = [s for s in symbols if s.kind in _FUNCTION_KINDS and is_fixture(s)]
    if not fixtures:
        return {}  # (most files: their calls are not read)
    decorator_calls: dict[str, list] = {}
    for c in calls:
        if c.kind == "decorator" and c.literals:
            decorator_calls.setdefault(c.scope, []).append(c)
    out = {}
    for s in fixtures:
        calls = decorator_calls.get(s.local, ())
        name = (literal_arguments(calls, "fixture", "name") or [s.name])[-1]
        out[s.local] = (name, "True" in literal_arguments(calls, "fixture", "autouse"))
    return out


def implicit_names(
    facts: FileFacts, used: Collection[str] | None = None
) -> tuple[set[str], set[str]]:
    """(names the file's lookups read that none of its expressions writes, names other files
    read of it that are not the names of its definitions): LanguageSpec.implicit_names.
    `used`: the names the file's expressions spell (plan.py `used_names`), when known: a
    hooked method none of them names is called by no callee of the file."""
    # the parameters of tests and fixtures (AUTOUSE for a test), the fixtures named by the
    # marks (`usefixtures("db")`) and by `getattr(c, "get")` (named_getattr.py), in C: every
    # file of a full build passes here (a Python loop over every symbol and call was ~30 ms
    # of Django's); whether the file defines a fixture (fixture_names' pass is skipped)
    uses, fixtures = native_core().test_uses(facts.symbols, facts.calls, _FIELDS, _FUNCTION_SET,
                                     _MARKS, AUTOUSE)  # fmt: skip
    from codeimpact.indexer.lang.python.entrypoints import TABLE

    calls = facts.calls
    # `env.get_template()` runs any loader's get_source: one search of every callee (each
    # ended by a NUL, which no callee holds) per hooked method, not a test per call; none
    # for a method the file does not name (Django: 48 files of 2.8K name one; the callees
    # of all were joined, ~18 ms)
    callees = None
    for method, names in TABLE.far_calls.items():
        if used is not None and method not in used:
            continue
        if callees is None:
            callees = "\0".join([c.callee for c in calls]) + "\0"
        if f".{method}\0" in callees:
            uses |= names
    defines: set[str] = set()
    for name, autouse in (fixture_names(facts.symbols, calls) if fixtures else {}).values():
        defines.add(name)
        if autouse:
            defines.add(AUTOUSE)
    return uses, defines
