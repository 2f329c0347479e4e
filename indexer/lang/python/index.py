"""The per-file index of Python resolution: each file's names by scope, parameters, returns,
`self.x` attributes and class members, built from its facts on first use; and the small
text helpers the lookups share (chain steps, the parts of an annotation).
"""

from __future__ import annotations

import builtins
import re
from itertools import repeat
from operator import itemgetter

from codeimpact.indexer.lang.api import (
    BindingFact,
    CallFact,
    FileFacts,
    ImportFact,
    ReturnFact,
    SymbolFact,
    native_core,
    shared_table,
)
from codeimpact.indexer.lang.engine.scopes import Lexical, first
from codeimpact.indexer.lang.python.exports import passes_on, value_parameters
from codeimpact.indexer.lang.python.registries import item_callers, stored_attr

BUILTINS = frozenset(dir(builtins))
# Every recursive lookup passes through a memoized step that detects cycles, so the depth
# bound only guards the interpreter's stack against absurdly long chains.
MAX_DEPTH = 120


_ACCESSORS = (".setter", ".deleter", ".getter")
_ENTERS = ("enter:", "aenter:")

# Entities a name or chain can evaluate to (plain tuples: cheap and hashable):
#   ("sym", path, local)           a definition in the repository (a class object, a function)
#   ("mod", path)                  a module of the repository
#   ("inst", path, local, exact)   an instance of a repository class; exact when constructed
#                                  here (a subclass instance is then impossible)
#   ("ext", dotted)                something outside the repository
#   ("builtin", name)
#   ("param", path, scope, name)   a parameter whose value we do not know
#   ("seq", path, scope, T)        a container of T items (T: annotation text in path/scope)
#   ("map", path, scope, K, V)     a mapping from K to V
#   ("tup", path, scope, (T, ...)) a fixed tuple
#   ("view", path, scope, K, V, m) the bound method m (items/keys/values) of a map
#   ("super", path, cls)           super() inside class cls
Entity = tuple

# Library functions that return one of their arguments (its position): a function returning
# `cast(T, update_wrapper(wrapper, f))` returns `wrapper`.
PASS_THROUGH = {
    "typing.cast": 1,
    "functools.update_wrapper": 0,
    "functools.wraps()": 0,  # wraps(f)(wrapper)
    "functools.partial": 0,  # calling partial(f, ...) calls f
}
PASS_THROUGH_NAMES = frozenset(k.rpartition(".")[2] for k in PASS_THROUGH)
# `with pytest.raises(E) as excinfo`: excinfo.value is an E (values.py RAISED); the call's
# arguments are kept with the pass-through calls'
RAISES = {"pytest.raises": 0, "_pytest.python_api.raises": 0, "_pytest.raises.raises": 0}
# `r = weakref.ref(obj)`: calling r gives obj back (values.py, a PROXIED value)
REFERRERS = {"weakref.ref": 0, "weakref.WeakMethod": 0}
ARGUMENTS_KEPT = PASS_THROUGH_NAMES | {k.rpartition(".")[2] for k in (*RAISES, *REFERRERS)}
NO_NAMES: dict = {}  # read-only: the names of a scope that binds none
# Implicit classmethods: their first parameter is the class.
CLASS_FIRST = frozenset(("__new__", "__init_subclass__", "__class_getitem__"))
_SECOND = itemgetter(1)  # the chain of an argument (position or keyword, chain)


class FileIndex(Lexical):
    """What resolving reads of one Python file, made from its facts (`index_file`).

    A plain class, not a `@dataclass`: the dataclass's written-out methods cost every
    process that imports this module ~1.5 ms (an edit's run among them); no FileIndex is
    compared or shown. Its attributes are set in this order (its dict's layout: see
    `index_file`); the lazy tables (`_LAZY`) are absent until made (`_Table`)."""

    path: str
    module: str
    package: str  # the package relative imports start from
    facts: FileFacts
    syms: dict[str, SymbolFact]
    parent: dict[str, str]
    # scope -> name -> [(line, kind, payload)] candidates in source order (a 1-tuple for a name
    # bound once: `_bind`). A plain dict, not the engine's ScopeTable: CPython 3.11 specialises
    # a `get` call only on a receiver of the method's exact type (a dict subclass's took the
    # generic call path: ~87K per quarter of Django's resolution)
    names: dict[str, dict[str, list | tuple]]
    params: dict[str, dict[str, tuple[int, str]]]
    returns: dict[str, list]
    # function -> its `yield:` facts: the items of the generator it makes, which no call of it
    # returns (read by pytest's yield fixtures, fixtures.py)
    yields: dict[str, list]
    # class -> attr -> bindings of self.attr in its methods
    self_attrs: dict[str, dict[str, list]]
    # function -> parameter -> the scopes that call it (the function or a closure inside it)
    param_calls: dict[str, dict[str, set[str]]]
    # function -> parameter -> the scopes that call an item of it (`items[0]()`, `f()` in
    # `for f in items`, `h = table["go"]; h()`): what a container passed there holds runs
    param_item_calls: dict[str, dict[str, set[str]]]
    # function -> parameter -> calls passing it on as an argument: (scope, callee, key, line)
    param_passes: dict[str, dict[str, list[tuple]]]
    # class -> attribute -> the methods' parameters stored there (`self.cb = cb`): [(method,
    # parameter)]; the scopes calling `self.attr(...)`, the calls passing `self.attr` on
    param_attrs: dict[str, dict[str, list[tuple[str, str]]]]
    attr_calls: dict[str, dict[str, set[str]]]
    attr_passes: dict[str, dict[str, list[tuple]]]
    star_imports: list
    # class -> name -> local of the member definition (the last one wins, as at runtime)
    members: dict[str, dict[str, str]]
    # (scope, line) -> [(callee, args)] of the calls there that may return an argument
    # (`cast(T, x)`, `update_wrapper(w, f)`, `wraps(f)(w)`): kept past `release`, since a
    # function returning such a call returns that argument (values.py, PASS_THROUGH)
    pass_through: dict[tuple[str, int], list[tuple[str, tuple]]]
    # scope -> its calls with literal arguments (`usefixtures("db")`, `fixture(autouse=True)`):
    # kept past `release`, since another file's tests read a conftest's (fixtures.py)
    literal_calls: dict[str, list]
    # top-level function -> the calls of it by its plain name in this file that pass names
    # (`common_test(app)`): kept past `release`, since a test helper's parameter holds what
    # they pass (fixtures.py passed_value)
    name_calls: dict[str, list]
    # decorated definition -> its decorator calls passing names (`@click.group(cls=G)`):
    # kept past `release`, read where the definition is passed (library_calls.py)
    decorator_calls: dict[str, list]
    # scope -> the `param:` bindings of the definitions decorated in it: what pytest's
    # parametrize marks and fixtures' params= bind to their parameters (parametrize.py)
    parametrized: dict[str, list]
    # names bound to what a getattr call returns (`m = getattr(c, "get")`: named_getattr.py);
    # a set of its own once a name is added (2,696 of Django's 2,818 files bind none: an empty
    # set each was 0.6 MB of the resolve host's pages)
    getattr_bound: frozenset[str] | set[str] = frozenset()  # (the class's, shared)
    # what fixtures.py made of this file once: fixtures by the name pytest knows them by,
    # autouse fixtures, by enclosing scope
    fixture_table: object = None
    # the `with` items (enter:/aenter: bindings, named or not): managers entered and exited
    contexts: list
    # the `for` loops (iter: bindings, one per loop): iterables whose __iter__ runs
    loops: list
    # assignments to members (set: bindings): setters and descriptors' __set__ may run
    writes: list
    # container name (`x`, `self.x`) -> the `item:` bindings storing into it: `x[k] = v`, and
    # `x.append(v)` & co. as bindings (kept past `release`, like pass_through)
    item_adds: dict[str, list[BindingFact]]
    # registries on the instance (registries.py): class -> attribute -> the (function,
    # parameter) pairs stored as its items; class -> attribute -> the methods calling an item
    param_items: dict[str, dict[str, list[tuple[str, str]]]]
    # (keyed by `x` for the items of self.x, by `m()` for what `self.m(...)` returns), and
    # class -> attribute -> the names of its methods returning an item of self.attribute
    item_calls: dict[str, dict[str, set[str]]]
    item_getters: dict[str, dict[str, set[str]]]

    def __init__(self, path: str, module: str, package: str, facts: FileFacts) -> None:
        self.path = path
        self.module = module
        self.package = package
        self.facts = facts
        self.syms = {}
        self.parent = {}
        self.names = {}
        self.params = {}
        self.returns = {}
        self.yields = {}
        self.self_attrs = {}
        self.param_attrs = {}
        self.star_imports = []
        self.members = {}
        self.parametrized = {}
        self.getattr_bound = FileIndex.getattr_bound
        self.fixture_table = None
        self.contexts = []
        self.loops = []
        self.writes = []


# the tables made when first read (`_Table`), in the order they were declared
_LAZY = ("param_calls", "param_item_calls", "param_passes", "attr_calls", "attr_passes",
         "pass_through", "literal_calls", "name_calls", "decorator_calls", "item_adds",
         "param_items", "item_calls", "item_getters")  # fmt: skip


# The tables made from a file's calls (and its references: item_callers), when one is first
# read. A full build's resolve host indexes every file before it forks its workers: made
# there, every file's calls were decoded by the host and again by the file's resolver
# (Django: ~1% of the CPU), and the tables were in every page the workers copy. The item
# tables (item_callers, the costlier half, reads the references too) are made apart: few
# files' are ever read.
ITEM_TABLES = ("item_calls", "item_getters")
CALL_TABLES = tuple(n for n in _LAZY if n not in ITEM_TABLES)


class _Table:
    """A lazy table of FileIndex: read before it is made, it makes its group (`make`), whose
    instance attributes then shadow it (a non-data descriptor). Not a `__getattr__` on the
    class: with one, CPython 3.11 specialises no attribute read of any FileIndex (`fi.names`,
    `fi.path`: ~700K per quarter of Django's resolution, each through the hook's two type
    lookups and the generic path, ~4% of resolving)."""

    __slots__ = ("_name", "_mark", "_make")

    def __init__(self, name: str, mark: str, make) -> None:
        self._name, self._mark, self._make = name, mark, make

    def __get__(self, fi, owner=None):
        if fi is None:
            return self
        d = fi.__dict__
        if self._mark not in d:  # (not indexed: no table to make)
            raise AttributeError(self._name)
        self._make(fi)
        return d[self._name]


def split_top(text: str, sep: str) -> list[str]:
    """Split TYPE text on `sep` outside brackets."""
    out, depth, cur = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[cur:i])
            cur = i + 1
    out.append(text[cur:])
    return out


# a name (`$` joins a comprehension variable to its comprehension) and its suffixes
_STEP = re.compile(r"([A-Za-z_][\w$]*)((?:\(\)|\[\])*)")


# chain -> its steps: the same chains are parsed again and again (`self.assertEqual`). A plain
# dict, not lru_cache (whose hit costs twice a dict's on ~400K parses of Django), emptied when
# it grows past the bound lru_cache had.
_STEPS: dict[str, tuple[tuple[str, str], ...] | None] = {}
_STEPS_MAX = 65536


def _cached_steps(chain: str) -> tuple[tuple[str, str], ...] | None:
    """`a.b().c[]` -> (("a", ""), ("b", "()"), ("c", "[]")): names with their suffixes."""
    out = _STEPS.get(chain, _STEPS)  # (the dict itself: no chain's steps)
    if out is not _STEPS:
        return out
    if len(_STEPS) >= _STEPS_MAX:
        _STEPS.clear()
    out = _STEPS[chain] = _parse_steps(chain)
    return out


def __getattr__(name: str):
    # `parse_steps` (`_cached_steps`' answers) is native/core_steps.c's where the extension
    # has it: the resolvers' lookups ask for a chain's steps ~110K times on Django, a Python
    # call and a dict lookup each, a regex match per part of the 36K parsed. Bound here when
    # a module first imports it (the resolvers': an extraction never loads the extension for
    # it), then a plain global of this module.
    if name == "parse_steps":
        found = globals()["parse_steps"] = getattr(native_core(), "parse_steps", _cached_steps)
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _parse_steps(chain: str) -> tuple[tuple[str, str], ...] | None:
    if "(" not in chain and "[" not in chain:  # (zip, not a generator: 32K per Django)
        return tuple(zip(chain.split("."), repeat("")))
    steps = []
    for part in chain.split("."):
        m = _STEP.fullmatch(part)
        if m is None:
            return None
        steps.append((m.group(1), m.group(2)))
    return tuple(steps)


# native/core_index.c's index_passes (the loops of `_index_file` below in C), once loaded;
# False: the Python loops (an older extension, or fact tuples of another layout)
_passes = None
_LAYOUT = (
    (SymbolFact, ("local", "kind", "name", "start_line"), 0),
    (SymbolFact, ("params", "decorators"), 10),
    (ImportFact, ("scope", "module", "level", "name", "alias", "line"), 0),
    (BindingFact, ("scope", "name", "value", "is_call", "line"), 0),
    (ReturnFact, ("scope", "value"), 0),
)


def index_file(fi: FileIndex) -> None:
    """A file's tables from its facts: names by scope, parents, members, parameters, loops,
    contexts, writes, `self.x` attributes, returns (`_index_file`'s loops, in C: every
    definition, import, binding and return of a build passes there; ~0.26 cpu-s per Django
    build in Python)."""
    global _passes
    if _passes is None:
        from codeimpact.native import _core  # (loaded where first used)

        ok = all(t._fields[at : at + len(names)] == names for t, names, at in _LAYOUT)
        _passes = ok and getattr(_core, "index_passes", False)
    if not _passes:
        _index_file(fi)
    else:
        f = fi.facts
        # (while make_projects runs, a parameter list's dict is made once for every file:
        # api.shared_table; the resolvers never change these dicts)
        by_params = shared_table("python.params")
        adds, aliases, item_aliases, unsorted = _passes(
            fi, f.symbols, f.imports, f.bindings, f.returns, by_params
        )
        fi.__dict__.update(_adds=adds, _aliases=aliases, _item_aliases=item_aliases, _items=True)
        # (ScopeTable.finish, for the few lists out of line order: the passes found them)
        for bindings in unsorted:
            bindings.sort(key=first)
    # A dict of its own, not the class's shared keys with a values array (a "split" dict, as
    # CPython 3.11 makes an instance's __dict__ when first read): it specialises a read of a
    # split dict's attribute (LOAD_ATTR_WITH_HINT), then finds no value in the shared keys and
    # falls back to the generic lookup at every read of `fi.names`, `fi.path`, `fi.syms`, ...
    # (~1M per quarter of Django's resolution). dict() of a split dict is a combined one.
    fi.__dict__ = dict(fi.__dict__)


def _bind(names: dict, scope: str, name: str, binding: tuple) -> None:
    """ScopeTable.add, a name bound once in its scope held as a 1-tuple (most: a list and its
    items are twice the memory), a list from its second binding (native/core_index.c
    names_add); the readers of fi.names index and iterate either."""
    by_name = names.get(scope)
    if by_name is None:
        by_name = names[scope] = {}
    held = by_name.get(name)
    if held is None:
        by_name[name] = (binding,)
    elif held.__class__ is tuple:
        by_name[name] = [held[0], binding]
    else:
        held.append(binding)


def _index_file(fi: FileIndex) -> None:
    f = fi.facts
    names = fi.names
    syms = fi.syms
    for s in f.symbols:
        local = s.local
        syms[local] = s
        if not local:
            continue
        head = local.rpartition(".")[0]
        fi.parent[local] = head
        kind = "var" if s.kind == "variable" else "def"
        _bind(names, head, s.name, (s.start_line, kind, local))
        if kind == "def" and head in syms and syms[head].kind == "class":
            # a property's setter or deleter is the same attribute: the getter stands for it
            if not any(d.endswith(_ACCESSORS) for d in s.decorators):
                fi.members.setdefault(head, {})[s.name] = local
        if s.params and s.kind in ("function", "method"):
            fi.params[local] = {
                name.lstrip("*"): (i, ann) for i, (name, ann) in enumerate(s.params)
            }
    for imp in f.imports:
        if imp.name == "*":
            if imp.scope == "":
                fi.star_imports.append(imp)
            continue
        if imp.name:
            bound = imp.alias or imp.name
        else:
            bound = imp.alias or imp.module.split(".", 1)[0]
        _bind(names, imp.scope, bound, (imp.line, "import", imp))
    looped = set()
    adds: dict[str, list[BindingFact]] = {}  # item_adds' bindings: `x[k] = v`
    aliases: dict[tuple[str, str], str] = {}  # (scope, local) -> the parameter it was bound to
    item_aliases: dict[tuple[str, str], str] = {}  # (scope, local) -> the parameter, an item
    stored = []  # `self.x = v` (not a call): what may store a parameter (param_attrs below)
    # (every binding of the project passes here: the prefixed values all hold a ":", and
    # most bindings have none)
    for b in f.bindings:
        name, value = b.name, b.value
        mine = "self." in name and name.startswith("self.")  # (`in` first: a cheap test)
        if mine and not b.is_call:
            stored.append(b)
        if "[" in name and name.endswith("[]"):  # `x[k] = v`: an item stored into what x holds
            adds.setdefault(name[:-2], []).append(b)
            continue
        if ":" in value:
            # (a form's first letter is tested first: str.startswith is a slow call in CPython
            # 3.11, its arguments parsed at each, and most of the project's bindings hold a form)
            lead = value[0]
            if lead == "p" and value.startswith("param:"):  # pytest's parametrize values
                fi.parametrized.setdefault(b.scope, []).append(b)
                continue
            if lead == "i" and value.startswith("iter:"):
                chain = value.split(":", 2)[2]
                loop = (b.scope, b.line, chain)
                if loop not in looped:
                    looped.add(loop)
                    fi.loops.append(b)
                if not mine and not b.is_call and chain in fi.params.get(b.scope, NO_NAMES):
                    item_aliases[(b.scope, name)] = chain  # `for f in items: f()`
            elif lead == "k" and value.startswith("key:"):
                chain = value.split(":", 2)[2]
                if not mine and not b.is_call and chain in fi.params.get(b.scope, NO_NAMES):
                    item_aliases[(b.scope, name)] = chain  # `h = table["go"]; h()`
            elif lead == "s" and value.startswith("set:"):
                fi.writes.append(b)
                continue
            elif (lead == "e" or lead == "a") and value.startswith(_ENTERS):
                fi.contexts.append(b)
                if not name:
                    continue  # `with lock:` binds nothing
        if mine:
            cls = fi.parent.get(b.scope)
            if cls is not None and cls in syms and syms[cls].kind == "class":
                fi.self_attrs.setdefault(cls, {}).setdefault(name[5:], []).append(b)
            continue
        _bind(names, b.scope, name, (b.line, "bind", b))
        if b.is_call:
            if value == "getattr":
                bound = fi.getattr_bound
                if bound.__class__ is not set:
                    bound = fi.getattr_bound = set()
                bound.add(name)
        elif value in fi.params.get(b.scope, NO_NAMES):  # `alias = cb`: alias() calls cb
            aliases[(b.scope, name)] = value
    for b in stored:
        if b.value in fi.params.get(b.scope, ()):
            cls = fi.parent.get(b.scope, "")
            fi.param_attrs.setdefault(cls, {}).setdefault(b.name[5:], []).append((b.scope, b.value))
    for r in f.returns:
        held = fi.yields if r.value.startswith("yield:") else fi.returns
        held.setdefault(r.scope, []).append(r)
    fi.__dict__.update(_adds=adds, _aliases=aliases, _item_aliases=item_aliases, _items=True)
    for by_name in names.values():  # (ScopeTable.finish: the lists in line order)
        for bindings in by_name.values():
            if len(bindings) > 1:
                bindings.sort(key=first)


def index_calls(fi: FileIndex) -> None:
    """Make the call tables (`CALL_TABLES`) of an indexed file, unless made: its calls and
    references are decoded here, not by `index_file`."""
    global _calls_pass
    d = fi.__dict__
    if "_aliases" not in d:
        return
    item_adds, aliases = d.pop("_adds"), d.pop("_aliases")
    item_aliases = d.pop("_item_aliases")
    d.update((name, {}) for name in CALL_TABLES)
    d["item_adds"] = item_adds
    f = fi.facts
    decoded = f.decoded()
    for name, bound in item_adds.items():  # `self.x[k] = p`, `self.x.append(p)`
        if name.startswith("self."):
            for b in bound:
                _register(fi, b.scope, name[5:], b.value.partition(":")[2].partition(":")[2])
    param_names = {n for ps in fi.params.values() for n in ps}
    param_items = {n + "[]" for n in param_names}  # (a set: no substring test per call site)
    if _calls_pass is None:
        from codeimpact.native import _core  # (loaded where first used)

        ok = CallFact._fields[:6] == ("scope", "callee", "line", "kind", "args", "literals")
        ok = ok and all(t._fields[at : at + len(names)] == names for t, names, at in _LAYOUT)
        _calls_pass = ok and getattr(_core, "index_calls_pass", False)
    # (the plain tuples of a blob not decoded: most sites are only read, and the C loop makes
    # a CallFact of those a table keeps, not one made and freed per site)
    calls = f.plain_calls() if _calls_pass else None
    if type(calls) is list:
        _calls_pass(fi, calls, param_names, param_items, aliases, item_aliases, _CALLS_KIT)
    else:
        _index_calls(fi, f.calls, param_names, param_items, aliases, item_aliases)
    if not decoded:  # read for another file's resolution: kept only as the tables
        f.unload()


# native/core_calls.c's index_calls_pass (`_index_calls` below in C: every call site of the
# files whose tables a resolution reads passes there; ~0.26 cpu-s of a Django build's resolve
# phase in Python), once loaded; False: the Python loop
_calls_pass = None


def _index_calls(fi: FileIndex, calls: list, param_names: set, param_items: set,
                 aliases: dict, item_aliases: dict) -> None:  # fmt: skip
    syms = fi.syms
    param_attrs = fi.param_attrs  # (complete here; empty in most files)
    # (the tables as locals: each name is also a class attribute (`_Table`), whose reads
    # CPython 3.11 does not specialise)
    d = fi.__dict__
    literal_calls, decorator_calls = d["literal_calls"], d["decorator_calls"]
    name_calls, pass_through = d["name_calls"], d["pass_through"]
    param_calls, param_item_calls = d["param_calls"], d["param_item_calls"]
    attr_calls, param_passes, attr_passes = d["attr_calls"], d["param_passes"], d["attr_passes"]
    for c in calls:  # (every call site of the project passes here: the cheap tests first)
        callee, args = c.callee, c.args
        if c.literals:
            literal_calls.setdefault(c.scope, []).append(c)
        if args:
            if c.kind == "decorator":
                decorator_calls.setdefault(c.scope, []).append(c)
            if callee in syms and syms[callee].kind == "function":
                name_calls.setdefault(callee, []).append(c)
            head, _, last = callee.rpartition(".")
            if last in ARGUMENTS_KEPT:
                pass_through.setdefault((c.scope, c.line), []).append((callee, args))
            elif last in ADDERS and head and "(" not in head and "[" not in head:
                _stored_by_call(fi, c, head, ADDERS[last])
            if last in ADDERS and head.startswith("self."):
                _registered(fi, c, head, ADDERS[last])
        # a plain name that is some function's parameter: a call of what it was passed
        if callee in param_names:
            owner = param_owner(fi, c.scope, callee)
            if owner is not None:
                param_calls.setdefault(owner, {}).setdefault(callee, set()).add(c.scope)
        elif param_attrs and callee.startswith("self.") and callee.count(".") == 1:
            cls = _method_class(fi, c.scope)
            if cls in param_attrs:
                attr_calls.setdefault(cls, {}).setdefault(callee[5:], set()).add(c.scope)
        elif aliases and (c.scope, callee) in aliases:
            pname = aliases[(c.scope, callee)]
            param_calls.setdefault(c.scope, {}).setdefault(pname, set()).add(c.scope)
        elif callee in param_items:  # `items[0]()` calls `items[]`
            owner = param_owner(fi, c.scope, callee[:-2])
            if owner is not None:
                calls = param_item_calls.setdefault(owner, {})
                calls.setdefault(callee[:-2], set()).add(c.scope)
        elif item_aliases and (c.scope, callee) in item_aliases:
            pname = item_aliases[(c.scope, callee)]
            param_item_calls.setdefault(c.scope, {}).setdefault(pname, set()).add(c.scope)
        # the arguments matter only when one is a parameter or `self.x` may hold one
        if not args or not (param_attrs or not param_names.isdisjoint(map(_SECOND, args))):
            continue
        for key, chain in args:
            if chain in param_names:
                if not passes_on(callee):
                    continue
                owner = param_owner(fi, c.scope, chain)
                if owner is not None and chain in value_parameters(fi.syms[owner]):
                    passes = param_passes.setdefault(owner, {}).setdefault(chain, [])
                    passes.append((c.scope, callee, key, c.line))
            elif param_attrs and chain.startswith("self.") and chain.count(".") == 1:
                cls = _method_class(fi, c.scope)
                if cls in param_attrs:
                    passes = attr_passes.setdefault(cls, {}).setdefault(chain[5:], [])
                    passes.append((c.scope, callee, key, c.line))


def index_items(fi: FileIndex) -> None:
    """Make the item tables (`ITEM_TABLES`) of an indexed file, unless made."""
    d = fi.__dict__
    if d.pop("_items", None) is None:
        return
    d.update((name, {}) for name in ITEM_TABLES)
    f = fi.facts
    decoded = f.decoded()
    syms = fi.syms
    callers, getters = item_callers(f, fi.loops)
    for scope, key in callers:
        cls = _method_class(fi, scope)
        if cls is not None:
            fi.item_calls.setdefault(cls, {}).setdefault(key, set()).add(scope)
    for scope, attr in getters:
        cls = fi.parent.get(scope)
        if cls is not None and cls in syms and syms[cls].kind == "class":
            fi.item_getters.setdefault(cls, {}).setdefault(attr, set()).add(syms[scope].name)
    if not decoded:  # read for another file's resolution: kept only as the tables
        f.unload()


def _registered(fi: FileIndex, c, head: str, position: int) -> None:
    """`self.x.setdefault(k, []).append(p)`, `self.x[k].append(p)`: p is an item of self.x
    (`self.x.append(p)` is an item_adds binding, read by the loop over them)."""
    attr = stored_attr(head)
    if attr is None or head == "self." + attr:
        return
    for key, chain in c.args:
        if key == position:
            _register(fi, c.scope, attr, chain)


def _register(fi: FileIndex, scope: str, attr: str, chain: str) -> None:
    """A parameter stored as an item of `self.attr`: a registry of its class."""
    owner = param_owner(fi, scope, chain)
    cls = _method_class(fi, scope) if owner is not None else None
    if cls is not None and chain in value_parameters(fi.syms[owner]):
        fi.param_items.setdefault(cls, {}).setdefault(attr, []).append((owner, chain))


# Methods storing an argument (its position) as an item of their receiver.
ADDERS = {"append": 0, "add": 0, "appendleft": 0, "insert": 1}


def _stored_by_call(fi: FileIndex, c, container: str, position: int) -> None:
    """`x.append(v)`: v is an item of x (read by containers.py as `x[] = v`)."""
    if container.count(".") > (1 if container.startswith("self.") else 0):
        return
    for key, chain in c.args:
        if key == position:
            b = BindingFact(c.scope, container + "[]", "item:*:" + chain, False, c.line)
            fi.item_adds.setdefault(container, []).append(b)


def _method_class(fi: FileIndex, scope: str) -> str | None:
    """The class whose method `scope` is (or is a closure in), or None."""
    s = scope
    while s:
        up = fi.parent.get(s, "")
        sym = fi.syms.get(up)
        if sym is not None and sym.kind == "class":
            return up
        s = up
    return None


def param_owner(fi: FileIndex, scope: str, name: str) -> str | None:
    """The function whose parameter `name` is, seen from `scope` (closures included)."""
    s = scope
    while s:
        sym = fi.syms.get(s)
        if sym is None or sym.kind not in ("function", "method"):
            return None
        if name in fi.params.get(s, ()):
            return s
        if name in fi.names.get(s, ()):
            return None  # rebound locally
        s = fi.parent.get(s, "")
    return None


def candidate_rank(c) -> int:
    """Order of the candidates bound on one line, most telling first.

    `x: type[Base] = Impl` holds Impl (an alias names the very definition), while
    `x: Base = make()` holds some Base (the declared type also covers subclasses,
    which a call result typed by its own return would not).
    """
    kind = c[1]
    if kind == "bind":
        b = c[2]
        # (":" first: most values are plain chains, and str.startswith is a slow call)
        value = b.value
        if ":" in value and value.startswith("ann:"):
            return 1
        return 3 if b.is_call or ":" in value and value.startswith("iter:") else 0
    if kind == "var":
        return 4
    return 2


# what index_calls_pass reads of this module: the rules' names and the rare cases' helpers
_CALLS_KIT = (ARGUMENTS_KEPT, ADDERS, passes_on, _stored_by_call, _registered, CallFact)

for _name in CALL_TABLES:
    setattr(FileIndex, _name, _Table(_name, "_aliases", index_calls))
for _name in ITEM_TABLES:
    setattr(FileIndex, _name, _Table(_name, "_items", index_items))
