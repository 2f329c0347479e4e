"""Python call arguments and import statements as facts: what a call passes by name or as a
literal (CallFact.args, CallFact.literals) and the ImportFacts of `import` / `from ... import`.
The native fact engine (native/facts_bind.c) makes the same for the native path."""

from __future__ import annotations

import tree_sitter as ts

from codeimpact.indexer.lang.api import FileFacts, ImportFact
from codeimpact.indexer.lang.python.chains import _chain, _named
from codeimpact.indexer.lang.python.items import Known, passes_items


def _args(args: ts.Node, source: bytes, held: list | None = None,
          known: Known | None = None) -> tuple[tuple, tuple]:  # fmt: skip
    """(CallFact.args, CallFact.literals) of an argument list. A literal collection passed
    (items.py passes_items) is the argument `arg$<start byte>`, a name no identifier
    spells: (name, node) goes to `held`, whose literal the caller binds to it (`known`: the
    file's defined and imported names, with `held`). An argument
    spread as keywords (`f(**opts)`) is keyed `**`."""
    # native/facts_bind.c (call_args) computes the same for the native path: change both
    if args.named_child_count == 0 or args.type != "argument_list":
        return (), ()  # `()` is 15% of Django's calls
    out = []
    literals = []
    pos = 0
    for a in _named(args):
        t = a.type
        if t in ("identifier", "attribute"):
            chain = _chain(source[a.start_byte : a.end_byte])
            if chain and pos >= 0:
                out.append((pos, chain))
            pos += 1
        elif t in _COLLECTIONS:
            if pos >= 0 and held is not None and passes_items(a, source, known):
                name = f"arg${a.start_byte}"
                out.append((pos, name))
                held.append((name, a))
            pos += 1
        elif t in _LITERALS:
            text = _literal(a, source) if pos >= 0 else None
            if text:
                literals.append((pos, text))
            pos += 1
        elif t == "keyword_argument":
            name = a.child_by_field_name("name")
            value = a.child_by_field_name("value")
            if name is None or value is None:
                continue
            if value.type in _LITERALS:
                text = _literal(value, source)
                if text:
                    literals.append((name.text.decode(), text))
            elif value.type in _COLLECTIONS:
                if held is not None and passes_items(value, source, known):
                    bound = f"arg${value.start_byte}"
                    out.append((name.text.decode(), bound))
                    held.append((bound, value))
            elif value.type in ("identifier", "attribute"):
                chain = _chain(source[value.start_byte : value.end_byte])
                if chain:
                    out.append((name.text.decode(), chain))
        elif t == "list_splat":
            pos = -(1 << 30)  # positions after a *args splat are unknown
        elif t == "dictionary_splat":  # `f(**opts)`: its keywords are opts's items
            inner = a.named_children[0] if a.named_child_count else None
            if inner is not None and inner.type in ("identifier", "attribute"):
                chain = _chain(source[inner.start_byte : inner.end_byte])
                if chain:
                    out.append(("**", chain))
        else:
            pos += 1
    return tuple(out), tuple(literals)


_LITERALS = frozenset(("string", "true", "false"))
_COLLECTIONS = frozenset(("list", "tuple", "set", "dictionary"))


def _literal(node: ts.Node, source: bytes) -> str | None:
    """A literal argument's text (CallFact.literals): `True`/`False`, or the content of a
    string quoted by one character each side (no prefix, no triple quotes) that is a name or
    dotted name (`"db"`, `'a.b'`)."""
    if node.type != "string":
        return _chain(source[node.start_byte : node.end_byte])
    parts = node.children
    if len(parts) != 3 or parts[0].end_byte - parts[0].start_byte != 1:
        return None
    return _chain(source[parts[1].start_byte : parts[1].end_byte])


def _imports(node: ts.Node, construct: str, scope: str, source: bytes, facts: FileFacts) -> None:
    line = node.start_point[0] + 1
    if construct == "import":  # import a.b [as c], ...
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                facts.imports.append(
                    ImportFact(scope, name.text.decode(), 0, "", alias.text.decode(), line)
                )
            else:
                facts.imports.append(ImportFact(scope, child.text.decode(), 0, "", "", line))
        return
    mod = node.child_by_field_name("module_name")
    level = 0
    module = ""
    if mod is not None:
        if mod.type == "relative_import":
            for c in mod.children:
                if c.type == "import_prefix":
                    level = c.end_byte - c.start_byte
                elif c.type == "dotted_name":
                    module = c.text.decode()
        else:
            module = mod.text.decode()
    names = node.children_by_field_name("name")
    if not names:
        if any(c.type == "wildcard_import" for c in node.children):
            facts.imports.append(ImportFact(scope, module, level, "*", "", line))
        return
    for child in names:
        if child.type == "aliased_import":
            name = child.child_by_field_name("name")
            alias = child.child_by_field_name("alias")
            facts.imports.append(
                ImportFact(scope, module, level, name.text.decode(), alias.text.decode(), line)
            )
        else:
            facts.imports.append(ImportFact(scope, module, level, child.text.decode(), "", line))
