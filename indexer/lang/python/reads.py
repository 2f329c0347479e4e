"""Attribute reads inside expressions (a mixin of PythonProject): `if obj.p:`, `f"{obj.p}"`,
`obj.p + 1`, `x[obj.p]`, `assert r.output == ...` run the getter of a property (or of a
`cached_property`) `p`, or the `__get__` of a descriptor stored on the class as `p`.

Extraction keeps every such read as a ReferenceFact of kind `read` (the outermost member of
a chain that no other fact reads: extract.py `_member_read`). Most of them read plain
attributes, so resolution evaluates a read only when one of its chain's names is a
*read name* of the repository: the name of a property or cached_property method, or of a
class attribute bound to an instance of a class defining `__get__`. The names come from
each file's summary (`read_summary`), so an incremental run has them without indexing every
file. A read evaluated is followed like a call's receiver (`property_read` below): the
getter is called by the rule that typed the receiver.
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.memo import memoized
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.python.index import FileIndex, parse_steps
from codeimpact.indexer.lang.python.values import _member_rule

_METHODS = ("function", "method")


def property_decorated(decorators: tuple) -> bool:
    """A method whose reading runs it: `@property`, `@cached_property` (functools',
    werkzeug's, Django's...)."""
    if not decorators:  # (most methods)
        return False
    for d in decorators:  # noqa: SIM110 (a loop: no generator made)
        if d == "property" or d.endswith("cached_property"):
            return True
    return False


def class_body_calls(fi: FileIndex, out: list) -> list:
    """The bindings of the class bodies of a file to a call (`name = C(...)`): stored
    descriptors (read_summary), `__set_name__` (implicit.py), to `out`."""
    syms = fi.syms
    for b in fi.facts.bindings:
        if not b.is_call or "." in b.name:
            continue
        sym = syms.get(b.scope)
        if sym is not None and sym.kind == "class":
            out.append(b)
    return out


def read_summary(
    fi: FileIndex, decorated: list, class_calls: list, classes: list
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """(names of the file's property methods, (attribute, class name) of the class
    attributes bound to a call of a class name: descriptor instances when that class defines
    `__get__`, the class attributes bound otherwise: `aliases`), given the file's decorated
    definitions and its classes' locals; the class-body bindings to a call
    (`class_body_calls`) to `class_calls`.
    Plain tuples: summaries are marshalled for the next run.

    An alias is a class-body name bound to what is neither a call nor a literal container:
    a chain (`coords = tuple` in GEOS's LineString, `exterior_ring = shell`: reading it runs
    the property it names), an item, an unpacked value, an annotation. It is no read name
    (read_edges keeps the premise it was recorded with), but a chain read through it may
    run a getter: `member_names`."""
    props = sorted({s.name for s in decorated
                    if s.kind == "method" and property_decorated(s.decorators)})  # fmt: skip
    stored = set()
    aliases = set()
    if not classes:  # (no class body binds anything: ~1/3 of the files)
        return tuple(props), (), ()
    # (a set of the class scopes: every binding of a full build passes the test, most in
    # functions; one probe, not the definition's and its kind)
    classes = set(classes)
    for b in fi.facts.bindings:
        if b.scope not in classes or "." in b.name:
            continue
        value = b.value
        if b.is_call:  # (class_body_calls' test, written out: one pass over the bindings)
            class_calls.append(b)
            steps = parse_steps(value)
            if steps:
                stored.add((b.name, steps[-1][0]))
                # `name = C(...)` (a pytest fixture's value aside): what `stored` says
                if ":" not in value and not value.endswith(".getfixturevalue"):
                    continue
        if value != "lit:":  # (a literal container: no getter runs reading it)
            aliases.add(b.name)
    for imp in fi.facts.imports:  # (an import in a class body binds a class attribute too)
        if imp.scope in classes and imp.name != "*":
            aliases.add(imp.alias or imp.name or imp.module.split(".", 1)[0])
    return tuple(props), tuple(sorted(stored)), tuple(sorted(aliases))


def read_names(read_summaries, methods_by_name) -> frozenset[str]:
    """The read names of a project, from its files' read summaries (`read_summary`) and the
    methods by name (which classes define `__get__`)."""
    getters = {local.rpartition(".")[0].rpartition(".")[2].partition("#")[0]
               for _, local in methods_by_name.get("__get__", ())}  # fmt: skip
    out: set[str] = set()
    for summary in read_summaries:
        out.update(summary[0])
        out.update(attr for attr, cls in summary[1] if cls in getters)
    return frozenset(out)


def member_reads(read_summaries) -> frozenset[str]:
    """Every name a class body binds otherwise than by a `def` or to a literal container
    (the aliases, the attributes bound to a call). With the read names they are the member
    names (resolve.py `member_names`): reading a member of any other name runs no getter
    (`property_read`: the member is then a method, a class or nothing, and no subclass
    property can be named so). So a chain reading none of them runs no getter (`chain_reads`), which spares evaluating most of the dotted
    arguments of calls for their reads (playback.py `_arguments`)."""
    out: set[str] = set()
    for summary in read_summaries:
        out.update(attr for attr, _cls in summary[1])
        out.update(summary[2])
    return frozenset(out)


def chain_reads(chain: str, names: frozenset[str]) -> bool:
    """Whether a chain reads a member named in `names` (a head is a name looked up, not a
    member read)."""
    steps = parse_steps(chain) if chain[:1] != "?" else None
    if steps is None:
        return False
    for step in steps[1:]:  # noqa: SIM110 (a loop: no generator made)
        if step[0] in names:
            return True
    return False


def _read_steps(chain: str, names: frozenset[str]) -> tuple | None:
    """The steps of a read chain that may run a getter: up to its last member whose name is
    a read name, without that member's suffix (a getter runs when the member is read: what
    the member is, and the calls or subscripts after it, run none), or None when it reads
    no read name. A getter runs only when a read name is read (read_edges' premise), so
    the steps after the last one, which evaluating the whole chain would follow (~1/3 of
    Django's chains evaluated), add none. The last item is that name alone."""
    steps = parse_steps(chain) if chain[:1] != "?" else None
    if steps is None:
        return None
    last = 0
    for i in range(1, len(steps)):
        if steps[i][0] in names:
            last = i
    if not last:
        return None
    return (*steps[:last], steps[last][0])


class Reads:
    """The getters run by the attribute reads of a file."""

    # read chain -> the steps to evaluate (None: no member it reads is a read name): the
    # same chains are read in file after file (`response.status_code`; Django: 24K reads,
    # ~6K distinct chains)
    _read_chains: dict[str, tuple | None] | None = None

    def read_edges(self, fi: FileIndex, edges: Edges) -> None:
        names = self.read_names
        if not names:
            return
        chains = self._read_chains
        if chains is None:
            chains = self._read_chains = {}
        for ref in fi.facts.references:
            if ref.kind != "read":
                continue
            target = ref.target
            steps = chains.get(target, chains)  # (the dict itself: not seen yet)
            if steps is chains:
                steps = chains[target] = _read_steps(target, names)
            if steps is None:
                continue
            reads: list = []
            # the steps before the last read name, then that member's read alone (what
            # the member is does not matter)
            found = self.eval_chain(fi, ref.scope, None, ref.line, 0, reads, steps[:-1])
            if found is not None:
                self.member_reads(found, steps[-1], 0, reads)
            for getter, rule in reads:
                edges.call(self.here_uid(fi, ref.scope), self.ent_uid(getter), rule, ref.line)

    def property_read(self, receiver, name: str, depth: int, reads: list) -> None:
        """Reading `name` on an instance runs its property's getter or its descriptor's
        `__get__`: (getter, rule) to `reads`, the rule the member was found by. On an
        instance that may be of a subclass (declared, `self`), the properties subclasses
        define under that name may run instead (`dispatch`)."""
        if name not in self.member_names:  # (most members read: a method, a plain attribute)
            return
        ent, reason = receiver
        # what the class says is the same for every read of `name` on its instances (88K
        # reads on Django, most of them of nothing): kept per (class, name, exactness),
        # the receiver's rule applied after
        found = self._class_reads(ent[1], ent[2], name, not ent[3], depth)
        for getter, how, m in found:
            if how == "dispatch":
                reads.append((getter, "dispatch"))
            elif how == "entry":
                reads.append((getter, weakest(reason, "entry-point")))
            elif how == "get":
                reads.append((getter, weakest(_member_rule(reason, m), "local-type")))
            else:
                reads.append((getter, _member_rule(reason, m)))

    @memoized('("reads", path, cls, name, subclasses)', "()", per_file=True)
    def _class_reads(self, path: str, cls: str, name: str, subclasses: bool, depth: int) -> tuple:
        """(getter, how, member) of reading `name` on an instance of `cls` (property_read)."""
        out = []
        m = self.class_member(path, cls, name, depth + 1)
        if m is not None:
            if self._is_property(m[0]):
                out.append((m[0], "member", m))
            elif m[0][0] == "inst":  # a descriptor stored on the class
                get = self.class_member(m[0][1], m[0][2], "__get__", depth + 1)
                if get is not None and self._kind(get[0]) == "method":
                    out.append((get[0], "get", m))
        elif name in self.entry_table.read_hooks:
            out.extend((ent, "entry", None) for ent in self._library_read(path, cls, name, 0))
        # a subclass's getter is a property method named `name`: a read name (its file's
        # read summary names it), so for any other name there is none to look for
        if subclasses and name in self.read_names:
            found = m[0] if m is not None else None
            for p, local in self.overrides(path, cls, name):
                getter = ("sym", p, local)
                if getter != found and self._is_property(getter):
                    out.append((getter, "dispatch", None))
        return tuple(out)

    def _library_read(self, path: str, cls: str, name: str, hops: int) -> list:
        """The repository methods that reading `name`, which a library base of `cls` provides,
        runs on the instance (the table's rows for reads: werkzeug's `request.form` parses
        the body with `_load_form_data`, an override a subclass may define)."""
        out = []
        for base in self.library_bases(path, cls):
            _rows, calls = self.entry_table.method_rows(base, name)
            for hook in calls:
                m = self.class_member(path, cls, hook, 0)
                if m is not None and m[0][0] == "sym" and self._kind(m[0]) in _METHODS:
                    out.append(m[0])
                elif m is None and hops < 4:
                    out.extend(self._library_read(path, cls, hook, hops + 1))
            if calls:
                break
        return out
