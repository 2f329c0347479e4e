"""Rust values: the types of expressions, from `self`, parameters, `let`s, fields, literals and
declared return types (a mixin of RustProject)."""

from __future__ import annotations

from operator import attrgetter

from codeimpact.indexer.lang.engine.chains import evaluate
from codeimpact.indexer.lang.engine.rules import weakest
from codeimpact.indexer.lang.engine.scopes import in_effect
from codeimpact.indexer.lang.rust.index import (
    CHAIN_TOKEN,
    ELEMENT,
    LOCKS,
    MAX_DEPTH,
    PRIMITIVES,
    SAME,
    UNWRAP,
    Entity,
    File,
)

_line = attrgetter("line")


class Values:
    """(value, reason) of expression chains; a value is an entity of index.ENTITIES."""

    def _dyn_traits(self, fi: File, scope: str, enc: str, depth: int) -> list[tuple]:
        out = []
        for p in enc[4:].split("+") if enc.startswith("dyn ") else ():
            r = self.resolve_path(fi, scope, p.split("::"), depth + 1)
            if r is not None and r[0][0] == "sym" and self._kind(r[0]) == "trait":
                out.append((r[0][1], r[0][2]))
        return out

    def type_value(self, fi: File, scope: str, enc: str, self_value=None, depth: int = 0):
        """The value of an encoded type written in `scope` (extract.py docstring)."""
        if not enc or depth > MAX_DEPTH:
            return None
        if enc.startswith("?"):
            return ("wrap", self.type_value(fi, scope, enc[1:], self_value, depth + 1))
        if enc.startswith("[]"):
            return ("seq", self.type_value(fi, scope, enc[2:], self_value, depth + 1))
        if enc in PRIMITIVES:
            return ("builtin", enc)
        if enc.startswith("dyn "):
            traits = self._dyn_traits(fi, scope, enc, depth)
            if traits:
                return ("dyn", tuple(traits))
            r = self.resolve_path(fi, scope, enc[4:].split("+")[0].split("::"), depth + 1)
            return ("ext", r[0][1]) if r is not None and r[0][0] == "ext" else ("builtin", enc)
        if enc == "Self" and self_value is not None:
            return self_value
        r = self.resolve_path(fi, scope, enc.split("::"), depth + 1)
        if r is None:
            return None
        return self._as_value(r[0], depth)

    def _as_value(self, ent: Entity, depth: int = 0):
        ent = self._follow_alias(ent)
        k = ent[0]
        if k in ("ext", "builtin"):
            return ent
        if k == "variant":
            return ("inst", ent[1], ent[2])
        kind = self._kind(ent)
        if kind in ("struct", "enum"):
            return ("inst", ent[1], ent[2])
        if kind == "trait":
            return ("dyn", ((ent[1], ent[2]),))
        if kind == "type_alias":
            fi = self.files[ent[1]]
            enc = fi.facts.extra.get("alias", {}).get(ent[2], "")
            return self.type_value(fi, self._container(fi, ent[2]), enc, None, depth + 1)
        return None

    # `a::b(x)?.c.d()[i]` on the engine's evaluator (engine/chains.py): the head is a path
    # (followed by `()`: its value is ("callable", entity) for that step to call), then one
    # step a token: `()`, `?` (unwraps an Option/Result), `[]` (a sequence's item), `.f` a
    # field, `.m()` a method's result. Too deep: None, no memo cut (nothing partial is kept).
    chain_depth = MAX_DEPTH

    def chain_cut(self):
        return None

    def chain_steps(self, chain: str) -> list[tuple]:
        tokens = CHAIN_TOKEN.findall(chain)
        if not tokens:
            return []
        head = [tokens[0]]
        i = 1
        while i + 1 < len(tokens) and tokens[i] == "::":
            head.append(tokens[i + 1])
            i += 2
        steps: list[tuple] = [(head, tokens[i : i + 1] == ["()"])]
        while i < len(tokens):
            if tokens[i] == ".":
                is_call = tokens[i + 2 : i + 3] == ["()"]
                steps.append((".", tokens[i + 1] if i + 1 < len(tokens) else "", is_call))
                i += 3 if is_call else 2
            else:
                steps.append((tokens[i],))
                i += 1
        return steps

    def eval_value(self, fi: File, scope: str, chain: str, line: int, depth: int = 0):
        """(value, reason) of an expression chain, or None when its type is not evident."""
        return evaluate(self, fi, scope, chain, line, depth)

    def chain_head(self, fi: File, scope: str, step, line: int, depth: int, _option):
        head, calls = step
        return self._head_value(fi, scope, head, line, depth, calls=calls)

    def chain_step(self, found, step, depth: int, _option):
        val, reason = found
        tok = step[0]
        if tok == "()":
            if val is None or val[0] != "callable":
                return None
            val, reason = self._call_result(val[1], reason, depth)
        elif tok == "?":
            val = val[1] if val is not None and val[0] == "wrap" else val
        elif tok == "[]":
            val = val[1] if val is not None and val[0] == "seq" else None
        elif tok == ".":
            _, name, is_call = step
            if is_call:
                val, reason = self._method_result(val, name, reason, depth)
            else:
                val = self._field(val, name, depth)
                reason = weakest(reason, "local-type")
        else:
            return None
        return None if val is None else (val, reason)

    def chain_end(self, found, depth: int, _option):
        return None if found[0] is None or found[0][0] == "callable" else found

    def _head_value(
        self, fi: File, scope: str, head: list[str], line: int, depth: int, calls: bool
    ):
        """The value a chain starts from; ("callable", entity) when a call follows."""
        if len(head) == 1:
            name = head[0]
            if name == "self":
                st = self._self_type(fi, scope)
                if st is None:
                    return None
                return self._as_value(st), "self"
            b = self._binding(fi, scope, name, line)
            if b is not None:
                return self._binding_value(fi, b, depth)
            ptype = self._param(fi, scope, name)
            if ptype is not None:
                v = self.type_value(fi, scope, ptype, None, depth + 1)
                return (v, "local-type") if v is not None else None
        r = self.resolve_path(fi, scope, head, depth + 1)
        if r is None:
            return None
        ent, reason = r
        if calls:
            return ("callable", ent), reason
        if ent[0] == "sym" and self._kind(ent) == "variable":
            vfi = self.files[ent[1]]
            enc = vfi.facts.extra.get("vartypes", {}).get(ent[2], "")
            v = self.type_value(vfi, self._container(vfi, ent[2]), enc, None, depth + 1)
            return (v, weakest(reason, "local-type")) if v is not None else None
        if ent[0] == "variant" or (ent[0] == "sym" and self._kind(ent) == "struct"):
            return self._as_value(ent), reason
        return None

    def _binding(self, fi: File, scope: str, name: str, line: int):
        cands = fi.bindings.get(scope, {}).get(name)
        return in_effect(cands, line, _line) if cands else None

    def _param(self, fi: File, scope: str, name: str) -> str | None:
        ps = fi.params.get(scope)
        return ps.get(name) if ps else None

    def _binding_value(self, fi: File, b, depth: int):
        if b.value.startswith("type:"):
            v = self.type_value(fi, b.scope, b.value[5:], None, depth + 1)
            return (v, "local-type") if v is not None else None
        # `let x = x.parse()?` reads the x bound before this line
        head = CHAIN_TOKEN.match(b.value)
        line = b.line - 1 if head is not None and head.group(0) == b.name else b.line
        r = self.eval_value(fi, b.scope, b.value, line, depth + 1)
        if r is None:
            return None
        return r[0], weakest(r[1], "local-type")

    def _call_result(self, ent: Entity, reason: str, depth: int):
        """The value of calling a function, a tuple struct or variant: (value, reason)."""
        k = ent[0]
        if k == "variant":
            return ("inst", ent[1], ent[2]), weakest(reason, "local-type")
        if k != "sym":
            return None, reason
        kind = self._kind(ent)
        if kind == "struct":
            return ("inst", ent[1], ent[2]), weakest(reason, "local-type")
        if kind not in ("function", "method"):
            return None, reason
        fi = self.files[ent[1]]
        enc = fi.facts.extra.get("ret", {}).get(ent[2], "")
        owner = self._self_type(fi, ent[2])
        v = self.type_value(fi, ent[2], enc, self._as_value(owner) if owner else None, depth + 1)
        return v, weakest(reason, "local-type")

    def _method_result(self, recv, name: str, reason: str, depth: int):
        if recv is None:
            return None, reason
        if recv[0] == "wrap":
            return (recv[1] if name in UNWRAP else None), reason
        if recv[0] == "seq":
            return (("wrap", recv[1]) if name in ELEMENT else None), reason
        targets, how = self._method_targets(recv, name, reason)
        if targets:
            ent = targets[0]
            fi = self.files[ent[1]]
            enc = fi.facts.extra.get("ret", {}).get(ent[2], "")
            self_value = recv if recv[0] in ("inst", "dyn") else None
            v = self.type_value(fi, ent[2], enc, self_value, depth + 1)
            return v, weakest(how, "local-type")
        if recv[0] == "inst":
            if name in SAME or name in UNWRAP:
                return recv, reason
            if name in LOCKS:
                return ("wrap", recv), reason
        return None, reason

    def _field(self, val, name: str, depth: int):
        if val is None or val[0] != "inst":
            return None
        fi = self.files[val[1]]
        binds = fi.bindings.get(val[2], {}).get(name)
        enc = binds[0].value[5:] if binds else ""
        return self.type_value(fi, val[2], enc, val, depth + 1) if enc else None

    def _method_targets(self, recv, name: str, reason: str):
        """Definitions a method call on a value reaches: ([("sym", p, l)...], reason)."""
        k = recv[0]
        if k == "inst":
            found, how = self.methods_of((recv[1], recv[2]), name)
            if len(found) == 1:
                return [("sym", *found[0])], weakest(reason, how)
            return [("sym", *f) for f in found], "dispatch"
        if k == "dyn":
            for t in recv[1]:
                m = self.trait_method(t, name)
                if m is not None:
                    return [("sym", *m[0])], weakest(reason, m[1])
        return [], reason
