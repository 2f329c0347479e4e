"""Calls through `getattr` with a name the facts know (a mixin of PythonProject).

`getattr(client, "get")("/")` and `m = getattr(client, "get")` then `m("/")` call
`client.get`: the call is resolved as that call, with everything a written `client.get("/")`
gets (the receiver's type, inherited library methods, dispatch). The attribute's name is the
string literal passed second (CallFact.literals), or each string a pytest parametrize mark
binds to the parameter passed second (`getattr(client, method)`). A name computed at run time
(`getattr(self, "do_" + method)`) stays unresolved.
"""

from __future__ import annotations

from codeimpact.indexer.lang.python.index import FileIndex, param_owner


class NamedGetattr:
    """A call of what `getattr(obj, "name")` returned, as the call `obj.name(...)`."""

    def getattr_calls(self, fi: FileIndex, call) -> list:
        """The calls `call` stands for when its callee starts with what a getattr with known
        names returned (empty when it does not)."""
        head, dot, rest = call.callee.partition(".")
        if head == "getattr()":
            site = (call.scope, call.line)
        elif "(" in head or "[" in head:
            return []
        else:
            cands = fi.names.get(call.scope, {}).get(head)
            if not cands:
                return []
            c = self._pick(cands, call.line)[0]
            b = c[2]
            if c[1] != "bind" or not b.is_call or b.value != "getattr":
                return []
            site = (b.scope, b.line)
        sites = self.memo.cached(("getattr sites", fi.path), lambda: _getattr_sites(fi), True)
        out = []
        for g in sites.get(site, ()):
            obj = next((chain for k, chain in g.args if k == 0), None)
            if obj is None:
                continue
            for name in self.getattr_names_of(fi, g):
                callee = f"{obj}.{name}" + (dot + rest if rest else "")
                out.append(call._replace(callee=callee))
        return out

    def getattr_names_of(self, fi: FileIndex, g) -> list[str]:
        """The attribute names the getattr call `g` may read: its literal, or the strings a
        parametrize mark binds the parameter it passes to (`getattr(client, method)`)."""
        names = [text for k, text in g.literals if k == 1]
        chain = next((ch for k, ch in g.args if k == 1), None)
        owner = param_owner(fi, g.scope, chain) if chain and "." not in chain else None
        if owner is not None:
            names += [v[4:] for v in self.parametrized(fi, owner, chain) if v[:4] == "str:"]
        return names


def _getattr_sites(fi: FileIndex) -> dict[tuple[str, int], list]:
    out: dict[tuple[str, int], list] = {}
    for c in fi.facts.calls:
        if c.callee == "getattr" and c.args:
            out.setdefault((c.scope, c.line), []).append(c)
    return out
