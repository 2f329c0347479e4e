"""The native fact engine (native/facts.c): a file's facts from a query in the shared
capture vocabulary, made in C by rules keyed by construct, for the languages that give it
their node roles as data.

A language hands over, besides its query:

- `FactRules`: which of its node types play which node role of native/vocabulary.py
  (ROLES: a plain name, a member access, an argument list, a decorated wrapper, ...), the
  grammar fields behind the field roles (FIELDS), and a few string options (see OPTIONS);
- hooks, the language's own callables (the rules call them, as its Python path does):
  `chain(bytes) -> str | None` and `callee_chain(bytes) -> str | None` (the chain text of an
  expression, usually cached, so that equal chains are one object), `local_scopes(matches)`
  (an object with `names: set[str]` and `rename(chain, start) -> str | None`, built from
  the scope.* and binding.comprehension matches as (construct, {capture: Node}); a
  function of the matches, never changed once made: its object for no matches is made once
  per engine and shared by the files that have none),
  `other(facts, source, module_vars, local_scopes, construct, captures, scope)` for every
  construct without a rule in C, and `exports(facts, node, source)` for the value assigned
  to the module's export list;
- the seven fact types (indexer/facts.py), which this floor does not import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import contextmanager

import tree_sitter as ts

from codeimpact.native.record import Hashed
from codeimpact.native.runner import native_syntax
from codeimpact.native.sha import sha256
from codeimpact.native.vocabulary import FIELDS, ROLES

__all__ = ["OPTIONS", "FactRules", "fact_engine", "keep_steps"]

OPTIONS = {
    "export_rule": 'how a name says it is exported: "underscore" (not _x, or __x__)',
    "test_class": "the name prefix of a test class",
    "test_function": "the name prefix of a test function or method",
    "signature_strip": "characters stripped from the end of a signature (`:`)",
    "self_member": "the receiver prefix of member bindings kept (`self.`)",
    "type_prefix": "the value prefix of a declared type (`ann:`)",
    "none_type": "a declared return type that says nothing (`None`)",
    "exports_name": "the module variable that lists the exported names (`__all__`)",
    "heritage_kind": "the kind of a base's heritage fact (`extends`)",
    "class_member": "the receiver prefix of a classmethod's member bindings, named as "
    "self_member's (`cls.x` binds `self.x`: the class's attribute)",
    "parameter_callees": "space-separated last names of the decorator callees whose "
    "binding.parameter matches the `other` hook reads (`parametrize fixture`); the others "
    "are skipped after the chain hook read the callee (empty: the hook reads every one)",
    # the forms of binding values the language's resolver reads: the engine writes the
    # language's own text (kept as the str given: marshal tells interned strings apart)
    "value_enter": "the value prefix of what a context manager's entry gives (`enter:`)",
    "value_enter_async": "the same under the async keyword (`aenter:`)",
    "value_store": 'the value prefix of a store into a member (`set:`, named "")',
    "value_iteration": "the value prefix of a loop variable (`iter:`, then `N:chain`)",
    "value_literal": "the value of a name bound to a literal container (`lit:`)",
    "value_item": "the value prefix of an item of a container (`item:`, then `KEY:chain`)",
    "value_position": "the value prefix of an unpacking target (`at:`, then `N:chain`)",
    "names_suffix": "a variable whose name ends so lists names, not values: its literal's "
    "items are not bound (`__`: `__all__`, `__slots__`; empty: none)",
    "local_returned": "the name prefix of the local a returned literal collection is bound "
    "to, then the function's count of them (`ret$`, spelling no identifier)",
    "local_iterated": "the name prefix of the local a literal collection iterated by a loop "
    "is bound to, then its start byte (`it$`, spelling no identifier)",
    "local_passed": "the name prefix of the local a literal collection passed as an argument "
    "is bound to, then its start byte (`arg$`, spelling no identifier)",
    "argument_spread": "the key of an argument spread as keywords (`**`: `f(**opts)`)",
}


class FactRules(Hashed):
    roles: Mapping[str, str]  # node type -> node role
    fields: Mapping[str, str]  # field role -> grammar field
    options: Mapping[str, str]
    __slots__ = ("roles", "fields", "options")

    def __init__(
        self, roles: Mapping[str, str], fields: Mapping[str, str], options: Mapping[str, str]
    ) -> None:
        self.roles = roles
        self.fields = fields
        self.options = options
        self.__post_init__()

    def __post_init__(self) -> None:
        known_roles = {name for name, _ in ROLES}
        known_fields = {name for name, _ in FIELDS}
        bad = (
            [r for r in self.roles.values() if r not in known_roles]
            + [f for f in self.fields if f not in known_fields]
            + [o for o in self.options if o not in OPTIONS]
        )
        if bad:
            raise ValueError(f"not in native/vocabulary.py or OPTIONS: {sorted(bad)}")


# Where engines keep their compiled steps between processes (`keep_steps`): (get, put).
_STEPS: list[tuple[Callable[[str], bytes | None], Callable[[str, bytes], None]]] = []


@contextmanager
def keep_steps(get: Callable[[str], bytes | None], put: Callable[[str, bytes], None]):
    """While in it, an engine made in this process takes its query's compiled steps from
    `get(key)` and hands them to `put(key, steps)` when it compiled them itself: the query's
    compilation (ts_query_new's analysis of every pattern against the grammar: 6-10 ms of
    CPU for Python's) is paid once per store, not by every process that extracts a file (an
    edit of one file). The store must be private to the code and grammars that made them
    (the facts cache of a runner identity: indexer/extraction.py); the engine also refuses
    steps made for another query text, grammar or build."""
    _STEPS.append((get, put))
    try:
        yield
    finally:
        _STEPS.pop()


def fact_engine(
    language: ts.Language,
    query: str,
    rules: FactRules,
    hooks: tuple[Callable, ...],
    types: tuple[type, ...],
):
    """The compiled engine, or None when the native path does not run (native_status)."""
    ext = native_syntax()
    if ext is None:
        return None
    args = (language, query, dict(rules.roles), dict(rules.fields), dict(rules.options))
    if not _STEPS:
        return ext.FactEngine(*args, hooks, types)
    get, put = _STEPS[-1]
    key = f"engine:{language.name}:{sha256(query.encode()).hexdigest()[:16]}"
    engine = ext.FactEngine(*args, hooks, types, steps=get(key))
    if not engine.from_steps:
        put(key, engine.steps())
    return engine
