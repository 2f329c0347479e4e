"""The tree-sitter grammars of tree-sitter-language-pack, loaded without importing its package.

The package's `__init__` imports three grammar packages of its own (C#, YAML, embedded
templates: their shared objects loaded, importlib.resources and tempfile with them) before
it answers `get_language`: ~2.9 ms of CPU that a one-file edit of a Python file paid for
one grammar it loads in 0.3 ms. Its other grammars are the extension modules
`tree_sitter_language_pack.bindings.<name>`, each with a `language()` capsule: loaded here
from that file, under that name, as the package's own `import_module` would. The three it
ships as packages of their own, a grammar not found there, or a pack laid out otherwise
(pyproject pins its version) go through the package's `get_language`, as before.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from functools import cache
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader

import tree_sitter as ts

_PACK = "tree_sitter_language_pack"
_OWN_PACKAGES = frozenset({"yaml", "csharp", "embeddedtemplate"})
_LOCK = threading.Lock()  # one load of a binding at a time (a module is registered once)


@cache
def get_language(name: str) -> ts.Language:
    """The grammar `name` of the pack (tree_sitter_language_pack.get_language's answer)."""
    binding = _binding(name) if name not in _OWN_PACKAGES else None
    if binding is None:
        from tree_sitter_language_pack import get_language as pack_language

        return pack_language(name)
    return ts.Language(binding.language())


def get_parser(name: str) -> ts.Parser:
    """A new parser of the grammar `name` (tree_sitter_language_pack.get_parser's answer)."""
    return ts.Parser(get_language(name))


def _binding(name: str):
    """The pack's extension module of grammar `name`, or None where it is not a file of
    the pack's bindings folder (the package's own loader then answers)."""
    fullname = f"{_PACK}.bindings.{name}"
    module = sys.modules.get(fullname)
    if module is not None:
        return module
    spec = importlib.util.find_spec(_PACK)  # a top-level name: found, not imported
    if spec is None or spec.origin is None:
        return None
    folder = os.path.join(os.path.dirname(spec.origin), "bindings")
    for suffix in EXTENSION_SUFFIXES:
        path = os.path.join(folder, name + suffix)
        if os.path.isfile(path):
            break
    else:
        return None
    with _LOCK:
        module = sys.modules.get(fullname)
        if module is None:
            loader = ExtensionFileLoader(fullname, path)
            found = importlib.util.spec_from_file_location(fullname, path, loader=loader)
            if found is None:
                return None
            module = importlib.util.module_from_spec(found)
            loader.exec_module(module)
            # the package's own import of it (a later `import_module`) finds this one
            sys.modules[fullname] = module
    return module
