"""Python: the parameters of a lambda passed to a call, typed by the callee's declared
callable type (a mixin of PythonProject).

`self.record(lambda s: s.add_url_rule(...))` with `def record(self, func:
DeferredSetupFunction)` and `DeferredSetupFunction = t.Callable[["BlueprintSetupState"],
None]`: `s` holds a BlueprintSetupState, so `s.add_url_rule` is its method (and the
overrides'). The extraction binds each parameter as `callback:<argument position>:<parameter
position>:<callee chain>` (bindings.py `_callback_binding`); this reads the callee's
parameter at that argument's position, its annotation (through a module-level type alias,
whose text is the variable's signature), and the type at the lambda parameter's position.
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.python.index import MAX_DEPTH, FileIndex, split_top

# The annotation heads of a callable type (`typing.Callable`, `collections.abc.Callable`).
_CALLABLE = frozenset(("Callable",))
# Heads whose first argument is the type itself (`Optional[Callable[...]]`), or any argument
# (`Union[...]`, whose first callable arm is read).
_WRAPPERS = frozenset(("Optional", "Annotated", "Final", "Union"))
# Type aliases followed in a row (`F = G`, `G = Callable[...]`): a cycle stops here.
_MAX_ALIASES = 4


class Callbacks:
    """What a lambda's parameters hold when the lambda is passed to a typed callee."""

    def callback_value(self, fi: FileIndex, b, depth: int):
        """(entity, rule) of a `callback:` binding, or None."""
        _, position, index, chain = b.value.split(":", 3)
        r = self.eval_chain(fi, b.scope, chain, b.line, depth + 1)
        if r is None or r[0][0] != "sym":
            return None
        target = self._callee_parameter(fi, b.scope, chain, r[0], int(position), depth)
        if target is None:
            return None
        cfi, scope, ann = target
        ent = self._callable_argument(cfi, scope, ann, int(index), 0, depth + 1)
        # the callee's declared type says what the lambda is called with: a declared type
        return (ent, weakest(r[1], "local-type")) if ent is not None else None

    def _callee_parameter(self, fi: FileIndex, scope: str, chain: str, ent, position: int,
                          depth: int):  # fmt: skip
        """(file, function, annotation) of the parameter of callee `ent` (called as `chain`)
        that the argument at `position` goes to, or None when it is not annotated."""
        cfi = self.files[ent[1]]
        sym = cfi.syms.get(ent[2])
        if sym is None:
            return None
        offset = 0
        if sym.kind == "class":  # a constructor: its __init__ gets the arguments after self
            m = self.class_member(ent[1], ent[2], "__init__", depth + 1)
            if m is None or m[0][0] != "sym":
                return None
            cfi = self.files[m[0][1]]
            sym = cfi.syms.get(m[0][2])
            if sym is None or sym.kind != "method":
                return None
            offset = 1
        elif sym.kind == "method":
            offset = self._bound_offset(fi, scope, chain, sym, depth)
        elif sym.kind != "function":
            return None
        at = position + offset
        if at >= len(sym.params):
            return None
        name, ann = sym.params[at]
        if not ann or name.startswith("*"):
            return None
        return cfi, sym.local, ann

    def _bound_offset(self, fi: FileIndex, scope: str, chain: str, sym, depth: int) -> int:
        """1 when method `sym` is called bound (`obj.m(...)`, `cls.m(...)` of a
        classmethod): its first parameter is not the first argument."""
        decorators = sym.decorators
        if "staticmethod" in decorators:
            return 0
        receiver = chain.rpartition(".")[0]
        if not receiver:
            return 0
        if "classmethod" in decorators:
            return 1
        r = self.eval_chain(fi, scope, receiver, None, depth + 1)
        return 1 if r is not None and r[0][0] in ("inst", "super") else 0

    def _callable_argument(self, fi: FileIndex, scope: str, text: str, index: int,
                           aliases: int, depth: int):  # fmt: skip
        """The value of the `index`th parameter of callable type TEXT (in fi/scope), or None.
        A name is followed to the module-level type alias it names."""
        if depth > MAX_DEPTH:
            return self._cut()
        for arm in split_top(text, "|"):
            if not arm or arm == "None":
                continue
            head, args = arm, []
            if arm.endswith("]") and "[" in arm:
                i = arm.index("[")
                head, args = arm[:i], split_top(arm[i + 1 : -1], ",")
            last = head.rpartition(".")[2]
            found = None
            if last in _CALLABLE:
                params = args[0] if args else ""
                if params.startswith("[") and params.endswith("]"):
                    types = split_top(params[1:-1], ",")
                    if index < len(types) and types[index]:
                        found = self.eval_type(fi, scope, types[index], depth + 1)
            elif last in _WRAPPERS:
                for a in args if last == "Union" else args[:1]:
                    found = self._callable_argument(fi, scope, a, index, aliases, depth + 1)
                    if found is not None:
                        break
            elif not args and aliases < _MAX_ALIASES:
                found = self._aliased_argument(fi, scope, head, index, aliases, depth)
            if found is not None:
                return found
        return None

    def _aliased_argument(self, fi: FileIndex, scope: str, name: str, index: int,
                          aliases: int, depth: int):  # fmt: skip
        """`_callable_argument` of the type alias `name` (`F = Callable[[A], None]`)."""
        r = self.eval_chain(fi, scope, name, None, depth + 1)
        if r is None or r[0][0] != "sym":
            return None
        afi = self.files[r[0][1]]
        sym = afi.syms.get(r[0][2])
        if sym is None or sym.kind != "variable":
            return None
        text = alias_text(sym.signature)
        if text is None:
            return None
        return self._callable_argument(
            afi, afi.parent.get(sym.local, ""), text, index, aliases + 1, depth + 1
        )


def alias_text(signature: str) -> str | None:
    """The TYPE text (whitespace and quotes removed, as annotations are kept) of the value a
    variable's one-line signature assigns (`F = t.Callable[["A"], None]`), or None when the
    statement goes on past its first line (unbalanced brackets)."""
    _, eq, value = signature.partition("=")
    if not eq:
        return None
    text = "".join(value.split()).replace('"', "").replace("'", "")
    if not text or text.count("[") != text.count("]"):
        return None
    return text
