"""What a Python file's resolution writes without resolving (a mixin of PythonProject): its
definitions' rows, and its call sites with the calls that need no resolving played back.

A call without arguments of a name or a method of one (`f()`, `self.m()`) depends on its
scope and callee alone once the name's lookup is kept for the file (names.py `_lookups`)
and the outcome of calling that value is in the memo (resolve.py `_resolve_call`, which
records it at the first such site): 87K of Django's 110K sites without arguments. Those
are played back here, per (scope, callee), without the general path's frames.

A call with arguments plays back the same outcome (resolve.py `_resolve_call`'s tail: the
value called and the last name; 51K of Django's 68K such sites meet one kept), then makes what its own arguments make
(`_arguments`: their reads, and the outcome's steps that read them, kept with it).
"""

from __future__ import annotations

from functools import partial
from types import MappingProxyType

from codeimpact.indexer.lang.api import CallFact
from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.memo import MISSING
from codeimpact.indexer.lang.engine.rules import CONFIDENCE
from codeimpact.indexer.lang.engine.values import ALTS
from codeimpact.indexer.lang.python.containers import LIT
from codeimpact.indexer.lang.python.index import FileIndex, parse_steps
from codeimpact.indexer.lang.python.library_calls import BOUND, CLASS_MADE, FLOW, PROTOCOL, ROWS
from codeimpact.indexer.lang.python.reads import chain_reads
from codeimpact.indexer.resolved import Edge, ResolvedFile, SymbolRow, Unresolved, strip_dup

# a SymbolRow from its fields (engine/edges.py checks Edge's): the named tuples' own __new__
# is one more Python frame per row. An unresolved site is the plain tuple of Unresolved's
# fields (scope, name, line), as an edge is of Edge's: ~73K per Django resolution were each
# made an Unresolved through tuple.__new__; every reader indexes or unpacks them
_new = tuple.__new__
if Unresolved._fields != ("scope", "name", "line"):
    raise ImportError(
        f"playback.py builds unresolved sites of fields it does not know: {Unresolved._fields}"
    )
if CallFact._fields != ("scope", "callee", "line", "kind", "args", "literals"):
    raise ImportError(
        f"playback.py unpacks call facts of fields it does not know: {CallFact._fields}"
    )
_ROW = ("uid", "kind", "name", "qualified_name", "file", "start_line", "end_line", "start_byte",
        "end_byte", "signature", "exported", "is_test", "language")  # fmt: skip
if SymbolRow._fields != _ROW:
    raise ImportError(f"playback.py builds rows of fields it does not know: {SymbolRow._fields}")
_symbol_rows = None  # native/core_rows.c's, once imported
# native/core_playback.c's playback_calls (`_resolve_calls` in C), once imported; False: the
# Python loop
_playback_calls = None
# the kinds of a symbol passed as an argument that value-flow follows (`_arguments`)
_PASSED_KINDS = frozenset(("function", "method", "class"))
_FLOW_CONFIDENCE = CONFIDENCE["value-flow"]


class Playback:
    """`definitions` and `resolve_calls`: the engine's per-file loops (engine/project.py); the
    calls without arguments from their value on (in `resolve_calls`, and resolve.py
    `_resolve_call`'s tail for them, which records what is played back)."""

    def definitions(self, fi: FileIndex, rows: list, edges: Edges, file_is_test: bool) -> None:
        """engine/project.py's loop with Python's hooks written in (every definition of a
        build passes here): `symbol_row` (qualified, module_symbol_name; the row is a test's
        when the file is, in Python's language), `container_uid` (the lexical parent). In C
        (native/core_rows.c); `_definitions` is the same loop in Python."""
        global _symbol_rows
        if _symbol_rows is None:
            from codeimpact.native import _core  # (loaded where first used)

            _symbol_rows = getattr(_core, "symbol_rows", False)  # (False: an older build)
        if not _symbol_rows:
            self._definitions(fi, rows, edges, file_is_test)
            return
        _symbol_rows(fi.facts.symbols, rows, edges, fi.path, fi.module, self.language,
                     file_is_test, CONFIDENCE["scope"], partial(self.module_symbol_name, fi),
                     strip_dup, SymbolRow, Edge)  # fmt: skip

    def _definitions(self, fi: FileIndex, rows: list, edges: Edges, file_is_test: bool) -> None:
        path, module, language = fi.path, fi.module, self.language
        prefix = path + "::"
        unnamed = None  # the module symbol's name
        append = edges.append
        contains = CONFIDENCE["scope"]
        for s in fi.facts.symbols:
            local = s.local
            name = s.name
            if not name:
                if unnamed is None:
                    unnamed = self.module_symbol_name(fi)
                name = unnamed
            uid = prefix + local
            if not local:
                qualified = module
            else:
                qualified = strip_dup(local) if "#" in local else local
                if module:
                    qualified = f"{module}.{qualified}"
            rows.append(_new(SymbolRow, (uid, s.kind, name, qualified, path, s.start_line,
                                         s.end_line, s.start_byte, s.end_byte, s.signature,
                                         s.exported, file_is_test, language)))  # fmt: skip
            if local:
                append(_new(Edge, ("CONTAINS", prefix + local.rpartition(".")[0], uid, contains,
                                   "scope", s.start_line)))  # fmt: skip

    def resolve_calls(self, fi: FileIndex, edges: Edges, out: ResolvedFile) -> None:
        """The file's call sites, in order: played back when they can be, else resolved by
        `resolve_call`. A repeat at a later line in the same scope adds no edge: the same
        edges at an earlier line are what dedupe_edges keeps of them. A site's arguments
        make their own edges at each site (`_arguments`). In C (native/core_playback.c, the
        played sites there, the rest called back); `_resolve_calls` is the same loop."""
        global _playback_calls
        if _playback_calls is None:
            from codeimpact.native import _core  # (loaded where first used)

            # (C appends to the lists itself: the edges' append must be list's)
            ok = Edges.append is list.append
            _playback_calls = ok and getattr(_core, "playback_calls", False)
        if not _playback_calls:
            self._resolve_calls(fi, edges, out)
            return
        _playback_calls(self, fi, fi.facts.calls, edges, out, self._lookups, self.memo.table,
                        self._srcs, _PLAYBACK_KIT)  # fmt: skip

    def _resolve_calls(self, fi: FileIndex, edges: Edges, out: ResolvedFile) -> None:
        calls = fi.facts.calls
        out.calls_total += len(calls)
        # scope -> callee -> [src, edge ends, names, builtin, first line, follow], or False
        # for a site whose form is never played back (per scope: a file's sites come scope
        # by scope, so the scope's table is looked up again only where the scope changes,
        # no (scope, callee) key is made per site)
        here: dict = {}
        cur_scope, cur = None, here
        srcs = self._srcs  # (names.py here_uid: the scope's uid, made once per scope)
        append = edges.append
        unresolved = out.unresolved
        # (resolve.py `resolve_call`'s guard written out: one frame less per site, ~100K per
        # Django; a try costs nothing in CPython 3.11 until it catches)
        resolve = self._resolve_call
        path, bound = fi.path, fi.getattr_bound
        # (the file's lookups and the memo's table: the same objects while the file is
        # resolved, `_too_deep` empties the table in place)
        lookups, table = self._lookups, self.memo.table
        played_builtin = 0  # (added to out.calls_builtin at the end: not an attribute per site)
        for call in calls:
            # (each field a slot read: api's fact types, native/core_fields.c; an unpacking of
            # a tuple subclass is the generic one, an iterator's steps)
            scope = call.scope
            callee = call.callee
            line = call.line
            kind = call.kind
            args = call.args
            # (`**kw` first: whether the call forwards its own keywords only, per site) (the
            # tests jump a short way: CPython 3.11 specialises no comparison followed by a
            # long jump, an EXTENDED_ARG between them)
            if kind == "decorator" or args and args[0][0] == "**":
                pass  # never played: the general path, below
            else:
                if scope != cur_scope:
                    cur = here.get(scope)
                    if cur is None:
                        cur = here[scope] = {}
                    cur_scope = scope
                    src = srcs.get(scope)
                    if src is None:
                        src = srcs[scope] = f"{path}::{scope}"
                hit = cur.get(callee)
                if hit is None:
                    # a call played back (`f(...)` or `x.m(...)`, not a decorator nor a
                    # getattr, the lookup of f or x kept, the outcome in the memo): [src, edge
                    # ends, unresolved names, builtin count, None, follow]; False when no site
                    # of its scope and callee ever is (by its form); else (name, method, last,
                    # value or MISSING), resolved below. (`method` is `dotted` too: the forms
                    # played are `f` and `x.m`.) Written out: a method's frame per new key was
                    # ~81K per Django.
                    shape = _SHAPES.get(callee) or callee_shape(callee)
                    play = shape[7]
                    if play is None or bound and shape[1] in bound:
                        hit = False
                    else:
                        name, method, last = play
                        lk = (path, scope, name)
                        value = lookups.get(lk, MISSING)
                        played = (
                            None
                            if value is MISSING
                            else table.get(("call outcome", method, method, value, last))
                        )
                        hit = (
                            (name, method, last, value)
                            if played is None
                            else [src, played[0], played[1], played[2], None, played[3]]
                        )
                    # (not yet: what it resolves, a next site plays) (type(), not `__class__`:
                    # CPython 3.11 specialises no read of that descriptor)
                    if type(hit) is tuple:
                        # (`resolve_call` from the value of the first name on, and its played
                        # outcome, written out here: a method's frame per site was ~40K per
                        # Django)
                        name, method, last, value = hit
                        kept = True  # (the lookup kept for the file: not line-dependent)
                        try:
                            if value is MISSING:  # (the lookups read above: lk missed)
                                value = self.lookup_name(fi, scope, name, line, 0, lk)
                                kept = lk in lookups
                            outcome = ("call outcome", method, method, value, last)
                            played = table.get(outcome)
                            if played is None:
                                follow = self._record_outcome(outcome, fi, call, method, value,
                                                              last, edges, src, out)  # fmt: skip
                                if args:
                                    if not follow:  # (nothing to make: no frame, see below)
                                        for _, chain in args:
                                            if "." in chain:
                                                break
                                        else:
                                            continue
                                    self._arguments(fi, call, src, edges, follow)
                                continue
                        except RecursionError:
                            self._too_deep(fi, call, out)
                            continue
                        hit = [
                            src,
                            played[0],
                            played[1],
                            played[2],
                            None,
                            played[3],
                        ]  # (played below)
                        if kept:  # (else the next site looks its value up again)
                            cur[callee] = hit
                    else:
                        cur[callee] = hit
                if hit is not False:
                    src, ends, names, builtin, first, follow = hit
                    if first is None or line < first:
                        hit[4] = line
                        for rel, dst, conf, reason in ends:
                            append((rel, src, dst, conf, reason, line))  # (engine/edges.py)
                    for name in names:
                        unresolved.append((src, name, line))
                    played_builtin += builtin
                    if args:
                        # (no step of the outcome's and no dotted argument, whose reads
                        # `_arguments` looks for: nothing to make, no frame; 21K per Django)
                        if not follow:
                            for _, chain in args:
                                if "." in chain:
                                    break
                            else:
                                continue
                        try:
                            self._arguments(fi, call, src, edges, follow)
                        except RecursionError:
                            self._too_deep(fi, call, out)
                    continue
            try:
                resolve(fi, call, scope, callee, line, kind, args, edges, out)
            except RecursionError:  # an absurdly deep chain: unresolved, not a crash
                self._too_deep(fi, call, out)
        out.calls_builtin += played_builtin

    def _record_outcome(self, key, fi, call, method, value, last, edges, src, out) -> list:
        """The general path for a call, its arguments aside: the edges of calling `value`
        (`method`: of calling `last` on the receiver `value`) at `call`, kept as the outcome
        of `key` when nothing in it depended on where it ran: no memo cut (a cycle, the depth
        bound) and no comparison with the calling scope (`_src_read`: a callee that is the
        caller itself is left out by some rules); every edge made starts at the site with its
        line. What would read the call's arguments is not done: the steps returned (kept with
        the outcome; `_arguments` runs them per site). (The general path and its dispatch to
        subclasses' overrides written in here, their one caller: two frames per outcome
        recorded, 32K per Django.)"""
        unresolved = out.unresolved
        first_edge, first_unresolved, builtin = len(edges), len(unresolved), out.calls_builtin
        cuts = self.memo.cuts
        self._src_read = False
        follow: list = []
        line = call.line  # (a field of a named tuple: read once)
        receiver = None
        if method:
            receiver = value
            r = None
            if receiver is not None and receiver[0][0] == "sym":
                receiver = self.made_instance(receiver) or receiver
            if receiver is not None:
                # `obj.prop()` reads prop, then calls its value (property_read's first test
                # here: most names called are no member a getter may run for, 13K per Django)
                if receiver[0][0] == "inst" and last in self.member_names:
                    reads: list = []
                    self.property_read(receiver, last, 0, reads)
                    r = self.getattr(receiver[0], last, receiver[1], 1)
                    for getter, rule in reads:
                        edges.call(src, self.ent_uid(getter), rule, line)
                else:
                    r = self.getattr(receiver[0], last, receiver[1], 1)
        else:
            r = value
        if r is not None:
            ent, reason = r
            if ent[0] == ALTS:  # one of several values (a container's items): each may run
                if receiver is not None and receiver[0][0] == ALTS:
                    made = self._arms_call(fi, call, receiver, last, reason, edges, src, out,
                                           follow)  # fmt: skip
                else:
                    made = [self._call_value(fi, call, e, reason, receiver, edges, src, out,
                                             True, follow) for e in ent[1]]  # fmt: skip
                if not any(made):
                    unresolved.append((src, last, line))
            elif not self._call_value(fi, call, ent, reason, receiver, edges, src, out, False,
                                      follow):  # fmt: skip
                unresolved.append((src, last, line))
        elif receiver is None:
            if not (key[2] and self._unique_name(last, edges, src, line)):
                unresolved.append((src, last, line))
        else:
            rv, how = receiver
            k = rv[0]
            # C has no `last`, but subclasses define it (an abstract base, a mixin): the
            # static class of a receiver whose runtime class may be a subclass (resolve.py
            # `_dispatch`'s test); most classes have no subclass (`overrides`' first test)
            found = (
                self.overrides(rv[1], rv[2], last)
                if (k == "inst" and not rv[3] or k == "sym" and how == "self")
                and (rv[1], rv[2]) in self.subclasses
                else None
            )
            if found:
                edges.dispatch(src, [self.uid(p, m) for p, m in found], line)
            # (library_method's first test here: an instance, super() or a class)
            elif (k == "inst" or k == "super" or k == "sym") and self.library_method(
                receiver, last, src, line, edges, follow
            ):
                pass
            # (items of a container we follow only in part are no evidence against a guess)
            elif not (
                (k == "param" or k == "unknown" or k == ALTS)
                and key[2]
                and self._unique_name(last, edges, src, line)
            ):
                unresolved.append((src, last, line))
        if self.memo.cuts != cuts or self._src_read:
            return follow
        # (loops, not any() nor tuple() over generators: a function and a generator made
        # per outcome, ~32K recorded per Django resolution)
        ends = []
        for e in edges[first_edge:]:
            if e[1] != src or e[5] != line:
                return follow
            ends.append((e[0], e[2], e[3], e[4]))
        names = []
        for u in unresolved[first_unresolved:]:
            if u[0] != src or u[2] != line:
                return follow
            names.append(u[1])
        self.memo.table[key] = (tuple(ends), tuple(names), out.calls_builtin - builtin,
                                tuple(follow))  # fmt: skip
        return follow

    def _arguments(self, fi: FileIndex, call, src: str, edges: Edges, follow) -> None:
        """What a call's arguments make beside the outcome of calling its callee: the getters
        its dotted arguments read, then the outcome's steps that read the arguments (`follow`,
        library_calls.py: the same for every site of the outcome's form, each a lookup of
        the table or the class done once)."""
        scope, line = call.scope, call.line
        # the values of the dotted arguments, for the value flow (with the reads, made only when
        # one is evaluated: not a dict and a list per site, 68K per Django)
        passed = _NONE_PASSED
        for _, chain in call.args:  # `f(self.prop)` reads prop
            if "." in chain:
                # (a chain reading no member a getter may run for: not evaluated, ~3/4 of
                # Django's; the value flow evaluates it if it needs its value)
                hit = self._argument_reads.get(chain)
                if hit is None:
                    hit = self._argument_reads[chain] = chain_reads(chain, self.member_names)
                if hit:
                    if passed is _NONE_PASSED:
                        passed, reads = {}, []
                    passed[chain] = self.eval_chain(fi, scope, chain, line, 0, reads)
        if passed is not _NONE_PASSED:
            for getter, rule in reads:
                edges.call(src, self.ent_uid(getter), rule, line)
        for step, value, rule in follow:
            if step == FLOW:
                # Functions passed as arguments (to `value`, a definition called): a reference
                # from the caller, a call from each scope that calls what the parameter holds
                # (flows.py `sinks`). (Written in here, its one caller: a frame per call
                # passing arguments to a definition, 29K per Django.)
                ent = value
                through_attribute = "." in call.callee
                lookups, file_path = self._lookups, fi.path
                for key, chain in call.args:
                    if chain.isidentifier():  # a name alone (~3/4 of the arguments): eval_chain's
                        # lookup written out, the file's lookups first (a frame less each)
                        lk = (file_path, scope, chain)
                        r = lookups.get(lk, MISSING) if lookups is not None else MISSING
                        if r is MISSING:
                            r = self.lookup_name(fi, scope, chain, line, 0, lk)
                    elif "$" in chain and chain.startswith("arg$"):  # a literal collection
                        self.items_flow(fi, call, ent, key, chain, through_attribute, edges, src)
                        continue
                    elif chain in passed:
                        r = passed[chain]
                    else:
                        r = self.eval_chain(fi, scope, chain, line)
                    if r is None:
                        continue
                    kind = r[0][0]
                    if kind == LIT:  # a container (`fs = [f, g]; run(fs)`, `run(**opts)`)
                        if key == "**":
                            self.spread_flow(fi, call, ent, r, through_attribute, edges, src)
                        else:
                            self.items_flow(fi, call, ent, key, r, through_attribute, edges, src)
                        continue
                    if kind != "sym" and kind != ALTS:  # (no function nor class among them)
                        continue
                    # one of several values (`for cls in self.default_tags: self.register(cls)`)
                    values = []  # (a loop: a list comprehension is a function made per call)
                    files = self.files
                    # (members, _kind, ent_uid of a symbol and edges.add written out: ~9K each)
                    for e in r[0][1] if kind == ALTS else (r[0],):
                        if e[0] == "sym":
                            s = files[e[1]].syms.get(e[2])
                            if s and s.kind in _PASSED_KINDS:
                                values.append(e)
                    if not values:
                        continue
                    # (a keyword into `**kwargs`: flows.py `keyword_sinks`)
                    sinks = sorted(self.landing_sinks(ent, key, through_attribute, 0))
                    for v in values:
                        dst = f"{v[1]}::{v[2]}"
                        edges.append(("REFERENCES", src, dst, _FLOW_CONFIDENCE, "value-flow", line))
                        init = self._init_of(v) if sinks else None  # a class called constructs
                        if init is not None:  # the sink constructs it for src: impact follows src
                            edges.add("REFERENCES", src, init, "value-flow", line)
                        for path, caller in sinks:
                            caller_uid = f"{path}::{caller}"
                            if caller_uid != dst:
                                edges.call(caller_uid, dst, "value-flow", line)
                                if init is not None:
                                    edges.call(caller_uid, init, "value-flow", line)
            elif step == ROWS:
                self._apply_rows(fi, call, value, src, edges, rule)
            elif step == PROTOCOL:
                self.builtin_edges(fi, call, value, edges, src)
            elif step == BOUND:
                self._bound_call(fi, call, src, edges, rule)
            elif step == CLASS_MADE:
                self._class_made(fi, call, value, src, edges, rule)


# `_arguments`' dotted arguments' values when none was evaluated (read-only)
_NONE_PASSED = MappingProxyType({})

# callee -> what `_resolve_call` and the playback read of it, the same in every file: (a
# getattr() call's result, its head name, its steps (None: not a chain parse_steps reads),
# its last name, dotted, method, `f` or `x.m` (the form of a name alone, or a method of one),
# and for those forms what the playback reads, (head name, method, last name), else None)
_SHAPES: dict[str, tuple] = {}
_SHAPES_MAX = 65536


def callee_shape(callee: str) -> tuple:
    """`_SHAPES`' entry of `callee`, made on a miss (the hot callers read the table first:
    this is their miss, one frame)."""
    shape = _SHAPES.get(callee)
    if shape is not None:
        return shape
    if len(_SHAPES) >= _SHAPES_MAX:
        _SHAPES.clear()
    # (slices, not str.startswith: a slow call in CPython 3.11, its arguments parsed per call)
    of_getattr, head = callee[:9] == "getattr()", callee.partition(".")[0]
    steps = parse_steps(callee) if callee[:1] != "?" else None
    if steps is None:
        last = callee.rpartition(".")[2].split("(", 1)[0].split("[", 1)[0]
        shape = (of_getattr, head, None, last, False, False, False, None)
    else:
        dotted = len(steps) > 1
        method = dotted and not steps[-1][1]
        simple = (len(steps) == 2 if method else not dotted) and not steps[0][1]
        play = (steps[0][0], method, steps[-1][0]) if simple else None
        shape = (of_getattr, head, steps, steps[-1][0], dotted, method, simple, play)
    _SHAPES[callee] = shape
    return shape


# what playback_calls reads of this module (the table is cleared in place, never replaced)
_PLAYBACK_KIT = (_SHAPES, callee_shape)
