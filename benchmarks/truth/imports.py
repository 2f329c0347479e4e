"""The baseline selection "tests whose files import the module, transitively", from `ast`.

A file imports a module when any ``import``/``from ... import`` in it (at any depth,
in functions too) names it; importing ``a.b.c`` runs ``a`` and ``a.b`` as well, and
``from a.b import c`` imports ``a.b.c`` when that is a module. Module names come from
the folders: a file's package is the chain of folders above it that hold an
``__init__.py`` or sit in a folder that does (a namespace subpackage such as
``flask/sansio/``), so ``src/flask/app.py`` is ``flask.app`` and
``tests/test_basic.py`` (no ``__init__.py``) is ``test_basic``. Made from the source
alone, so the baseline does not depend on the graph it is compared with.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path


def module_name(root: Path, path: str) -> str:
    parts = Path(path).with_suffix("").parts
    names = [parts[-1]]
    folder = (root / path).parent
    for part in reversed(parts[:-1]):
        # a folder without __init__.py inside a package is a namespace subpackage
        if not ((folder / "__init__.py").is_file() or (folder.parent / "__init__.py").is_file()):
            break
        names.append(part)
        folder = folder.parent
    if names[0] == "__init__":
        names = names[1:]
    return ".".join(reversed(names))


def _imported(tree: ast.AST, own: str, is_package: bool) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = own.split(".") if is_package else own.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            if prefix:
                names.add(prefix)
                names.update(f"{prefix}.{a.name}" for a in node.names if a.name != "*")
    out = set()
    for name in names:
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def import_closure(root: Path, files: list[str]) -> dict[str, set[str]]:
    """path -> every file of the tree it imports, directly or transitively (itself too)."""
    by_module = {module_name(root, p): p for p in files}
    direct: dict[str, set[str]] = {}
    for p in files:
        try:
            tree = ast.parse((root / p).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            direct[p] = set()
            continue
        own = module_name(root, p)
        names = _imported(tree, own, p.endswith("__init__.py"))
        direct[p] = {by_module[n] for n in names if n in by_module}
    closure: dict[str, set[str]] = {}
    for p in files:
        seen = {p}
        todo = deque([p])
        while todo:
            for q in direct.get(todo.popleft(), ()):
                if q not in seen:
                    seen.add(q)
                    todo.append(q)
        closure[p] = seen
    return closure
