"""TypeScript/JavaScript definitions: the symbols of one file (declarations, `const f = () =>`,
`X.prototype.m = function`, `exports.f = ...`, `module.exports = {...}`), their scopes and
signatures, the facts of a function (parameters, returns) and of a class (heritage). A mixin
of extract.py's _Extraction, whose state (`facts`, `scopes`, `kind_of`, ...) it fills; the
other facts (calls, imports, exports, types) read the scopes it makes."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import BindingFact, HeritageFact, ReturnFact
from codeimpact.indexer.lang.syntax_common import NestedScopes, module_symbol, symbol_fact
from codeimpact.indexer.lang.typescript.syntax import (
    chain,
    clean_name,
    export_kind,
    is_overload,
    module_level_declarators,
    node_text,
    params_of,
    pattern_names,
    reindex,
    require_spec,
    signature_text,
    type_chain,
    value_binding,
)

# handler key -> symbol kind (None: decided by the value, a class or a function)
DEF_KIND = {
    "class": "class",
    "var_class": "class",
    "interface": "interface",
    "enum": "enum",
    "type_alias": "type_alias",
    "function": "function",
    "var_function": "function",
    "var_wrapped": "function",
    "function_sig": "function",
    "method": "method",
    "method_sig": "method",
    "field_function": "method",
    "namespace": "module",
    "assign_def": None,
    "default_def": None,
}

# what `X.m = function` can attach a member to, and receivers that are never such an X
_OWNER_KINDS = frozenset(["variable", "function", "class"])
_NOT_OWNERS = frozenset(["this", "exports", "module", "window", "global", "globalThis", "self"])


class Definitions:
    """The definitions pass of _Extraction (extract.py)."""

    def definitions(self, defs: list[tuple[str, ts.Node, dict]], declarators: list) -> None:
        items = []  # (node, name, body, kind, fn, heritage node)
        skip: list[tuple[int, int]] = []  # `declare module "x" {}`: describes another module
        self.module_level = module_level_declarators(
            self.root, [caps["body"] for key, _, caps in defs if key == "namespace"]
        )
        for key, node, caps in defs:
            item = self._def_item(key, node, caps, skip)
            if item is not None:
                items.append(item)
        for node, name in declarators:
            if node.start_byte in self.def_nodes or node.start_byte not in self.module_level:
                continue
            if require_spec(node.child_by_field_name("value")) is not None:
                continue  # a require() binds an import, not a variable
            names = [name] if name.type == "identifier" else pattern_names(name)
            for n in names:
                items.append((node, node_text(n), None, "variable", None, None, None))
        if skip:
            items = [it for it in items if not any(a <= it[0].start_byte < b for a, b in skip)]
        items.sort(key=lambda it: (it[0].start_byte, -it[0].end_byte))
        f = self.facts
        f.symbols.append(module_symbol(self.root, self.source))
        body_iv: list[tuple[int, int, str, int]] = []
        full_iv: list[tuple[int, int, str, int]] = []
        stack: list[tuple[int, str, int, int]] = []  # (end, local, body idx, full idx)
        seen: dict[str, int] = {}
        for node, name, body, kind, fn, heritage, owner in items:
            start = node.start_byte
            while stack and stack[-1][0] <= start:
                stack.pop()
            parent = stack[-1][1] if stack else ""
            if owner:
                # `A.prototype.m = function` / `obj.m = function` at the top level: a member of
                # the file's own A / obj, defined earlier; anywhere else it is no declaration
                if stack or self.kind_of.get(owner) not in _OWNER_KINDS:
                    continue
                parent = owner
            parent_body = stack[-1][2] if stack else -1
            parent_full = stack[-1][3] if stack else -1
            parent_kind = self.kind_of.get(parent, "module")
            if kind == "function" and (parent_kind in ("class", "interface") or owner):
                kind = "method"
            if kind == "variable" and parent_kind != "module":
                continue
            # "#" marks redefinitions in locals, so `#secret()` is local `C.secret`, name "#secret"
            bare = name.lstrip("#")
            local = f"{parent}.{bare}" if parent else bare
            n = seen.get(local, 0) + 1
            seen[local] = n
            if n > 1:
                local = f"{local}#{n}"
            self.kind_of[local] = kind
            self.local_at.setdefault(start, local)
            if owner is not None:
                self.unbound.append(local)
            full_idx = len(full_iv)
            full_iv.append((start, node.end_byte, local, parent_full))
            body_idx = parent_body
            if body is not None:
                body_idx = len(body_iv)
                body_iv.append((body.start_byte, body.end_byte, local, parent_body))
            stack.append((node.end_byte, local, body_idx, full_idx))
            self._symbol(node, local, name, body, kind, fn, parent, parent_kind)
            if heritage is not None:
                self._heritage(heritage, local)
        body_iv.sort(key=lambda iv: iv[0])
        self.scopes = NestedScopes(reindex(body_iv))
        self.sig_scopes = NestedScopes(full_iv)

    def _def_item(self, key: str, node: ts.Node, caps: dict, skip: list) -> tuple | None:
        name_node = caps.get("name")
        value = caps.get("value")
        body = caps.get("body")
        kind = DEF_KIND[key]
        name = node_text(name_node)
        fn = node
        heritage = node if kind in ("class", "interface") else None
        owner = None  # "" binds no name; "A": a member assigned onto the file's own A
        if key == "namespace":
            if name_node is not None and name_node.type == "string":
                skip.append((body.start_byte, body.end_byte))
                return None
            name = name.rpartition(".")[2]
            fn = None
        elif key in ("var_function", "var_wrapped", "field_function"):
            if key == "var_wrapped" and node.start_byte not in self.module_level:
                return None
            fn = value
            body = value.child_by_field_name("body")
            self.def_nodes.add(node.start_byte)
        elif key == "var_class":
            body = value.child_by_field_name("body")  # (javascript.scm keeps three captures)
            heritage = value
            self.def_nodes.add(node.start_byte)
            fn = None
        elif key == "method":
            if node.parent is None or node.parent.type != "class_body":
                return None  # an object-literal method: its calls stay with the enclosing scope
        elif key in ("function_sig", "method_sig"):
            parent_type = node.parent.type if node.parent is not None else ""
            if node.type == "method_signature" and parent_type not in (
                "class_body",
                "interface_body",
            ):
                return None  # a method of an object type literal
            if parent_type != "interface_body" and is_overload(node, name):
                return None  # the implementation that follows is the definition
        elif key in ("assign_def", "default_def"):
            if key == "assign_def":
                lhs = chain(caps["left"])
                if lhs is None:
                    return None
                if lhs.startswith(("exports.", "module.exports.")) and lhs.count(".") == (
                    1 if lhs.startswith("exports.") else 2
                ):
                    name = lhs.rpartition(".")[2]
                    self.exports.append([name, name])
                    owner = ""
                elif lhs == "module.exports":
                    name = node_text(value.child_by_field_name("name")) or "default"
                    self.exports.append(["=", name])
                    owner = ""
                else:
                    parts = lhs.split(".")
                    if (
                        len(parts) == 3
                        and parts[1] == "prototype"
                        or (len(parts) == 2 and parts[0] not in _NOT_OWNERS)
                    ):
                        owner, name = parts[0], parts[-1]
                    else:
                        return None  # a.b.c = function () {}: not a declaration
            else:
                name = "default"
                self.exports.append(["default", "default"])
                owner = ""
            kind = "class" if value.type == "class" else "function"
            body = value.child_by_field_name("body")
            heritage = value if kind == "class" else None
            fn = value if kind == "function" else None
        name = clean_name(name)
        if not name:
            return None
        return (node, name, body, kind, fn, heritage, owner)

    def _symbol(self, node, local, name, body, kind, fn, parent, parent_kind) -> None:
        source = self.source
        exported = False
        if parent == "" or parent_kind == "module":
            how = export_kind(node)
            if how is not None:
                exported = True
                if parent == "":
                    self.exports.append(["default" if how == "default" else name, name])
            elif parent == "" and any(e[1] == name for e in self.exports):
                exported = True  # exports.f = function () {} and the like
        elif parent_kind in ("class", "interface"):
            private = name.startswith("#") or any(
                c.type == "accessibility_modifier" and node_text(c) == "private"
                for c in node.children
            )
            exported = not private
        if kind == "variable":
            stmt = node.parent if node.parent is not None else node
            signature = node_text(stmt).split("\n", 1)[0].strip()[:300]
        else:
            signature = signature_text(source, node, body)
        params = params_of(fn) if kind in ("function", "method") else ()
        self.facts.symbols.append(
            symbol_fact(
                source, node, local, kind, name, exported=exported, params=params, sig=signature
            )
        )
        if fn is not None and kind in ("function", "method"):
            self._function_facts(fn, local, name, params)

    def _function_facts(self, fn: ts.Node, local: str, name: str, params: tuple) -> None:
        line = fn.start_point[0] + 1
        ret = type_chain(fn.child_by_field_name("return_type"))
        if ret:
            self.facts.returns.append(ReturnFact(local, ":" + ret, False, line))
        body = fn.child_by_field_name("body")
        if body is not None and body.type != "statement_block" and fn.type == "arrow_function":
            vb = value_binding(body)  # `() => new Foo()` returns its expression
            if vb is not None:
                self.facts.returns.append(ReturnFact(local, vb[0], vb[1], line))
        if name == "constructor":
            # constructor(private svc: Service): a parameter property is a typed field
            plist = fn.child_by_field_name("parameters")
            for p in plist.named_children if plist is not None else ():
                if p.type not in ("required_parameter", "optional_parameter"):
                    continue
                if not any(
                    c.type in ("accessibility_modifier", "readonly", "override_modifier")
                    for c in p.children
                ):
                    continue
                pat = p.child_by_field_name("pattern")
                typ = type_chain(p.child_by_field_name("type"))
                if pat is not None and pat.type == "identifier" and typ:
                    self.facts.bindings.append(
                        BindingFact(local, "this." + node_text(pat), ":" + typ, False, line)
                    )

    def _heritage(self, node: ts.Node, local: str) -> None:
        out = self.facts.heritage

        def add(expr: ts.Node, target: str | None, kind: str) -> None:
            if target:
                out.append(HeritageFact(local, target, expr.start_point[0] + 1, kind))

        for child in node.named_children:
            if child.type == "class_heritage":
                for h in child.named_children:
                    if h.type == "extends_clause":
                        for v in h.children_by_field_name("value"):
                            add(v, chain(v), "extends")
                    elif h.type == "implements_clause":
                        for t in h.named_children:
                            add(t, type_chain(t), "implements")
                    else:  # javascript: `extends <expression>`
                        add(h, chain(h), "extends")
            elif child.type == "extends_type_clause":
                for t in child.named_children:
                    add(t, type_chain(t), "extends")
