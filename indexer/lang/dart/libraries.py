"""Dart libraries: the file a URI names, the library a file belongs to (a `part` belongs to
the library that lists it), and the libraries an import makes visible (the imported one and
what it exports, transitively).

`package:NAME/x.dart` is `lib/x.dart` under the folder of the pubspec.yaml whose `name:` is
NAME (a package of the repository); another package, `dart:` and other schemes are outside
(named `NAME.x`, `dart.async`). A relative URI is relative to the importing file's folder.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

_PUBSPEC_NAME = re.compile(r"^name:\s*['\"]?([A-Za-z_]\w*)", re.M)


def pubspec_packages(configs: Mapping[str, str]) -> dict[str, str]:
    """package name -> its folder ("" at the repository's top), from pubspec.yaml texts."""
    out: dict[str, str] = {}
    for path, text in sorted(configs.items()):
        if posixpath.basename(path) == "pubspec.yaml":
            m = _PUBSPEC_NAME.search(text)
            if m:
                out.setdefault(m.group(1), posixpath.dirname(path))
    return out


def external_name(uri: str) -> str:
    """`dart:async` -> dart.async, `package:http/http.dart` -> http, `package:a/b/c.dart` ->
    a.b.c: how a library outside the repository is named in external uids."""
    scheme, _, rest = uri.partition(":")
    if scheme == "dart":
        return f"dart.{rest}"
    rest = rest[:-5] if rest.endswith(".dart") else rest
    parts = [p for p in rest.split("/") if p]
    if len(parts) == 2 and parts[0] == parts[1]:
        return parts[0]
    return ".".join(parts) or uri


class Libraries:
    """The repository's Dart files as libraries (files: path -> its extraction's extra)."""

    def __init__(self, files: Mapping[str, Mapping], configs: Mapping[str, str]):
        self.packages = pubspec_packages(configs)
        self.paths = frozenset(files)
        self.owner: dict[str, str] = {}  # part path -> library path
        by_name = {ex.get("library"): p for p, ex in sorted(files.items()) if ex.get("library")}
        for path, ex in sorted(files.items()):
            for uri, _line in ex.get("parts", ()):
                t = self.target(path, uri)
                if t in self.paths and t != path:
                    self.owner.setdefault(t, path)
        for path, ex in sorted(files.items()):
            of = ex.get("part_of", "")
            if of and path not in self.owner:
                t = self.target(path, of) if of.endswith(".dart") or ":" in of else by_name.get(of)
                if t in self.paths and t != path:
                    self.owner[path] = t
        self.exports: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for path, ex in files.items():
            self.exports[path] = [(u, tuple(shown)) for u, shown, _line in ex.get("exports", ())]

    def library_of(self, path: str) -> str:
        return self.owner.get(path, path)

    def target(self, importer: str, uri: str) -> str | None:
        """The repository path a URI names (None: outside the repository)."""
        if uri.startswith("package:"):
            name, _, rest = uri[len("package:") :].partition("/")
            root = self.packages.get(name)
            if root is None:
                return None
            return posixpath.join(root, "lib", rest) if root else posixpath.join("lib", rest)
        if ":" in uri:
            return None
        found = posixpath.normpath(posixpath.join(posixpath.dirname(importer), uri))
        return None if found.startswith("../") else found

    def visible(self, library: str) -> list[tuple[str, frozenset[str] | None]]:
        """The libraries whose names `import library` makes visible, with the names each
        shows (None: all): the library, then what it exports, transitively."""
        out: list[tuple[str, frozenset[str] | None]] = []
        seen: set[str] = set()
        todo: list[tuple[str, frozenset[str] | None]] = [(library, None)]
        while todo:
            lib, shown = todo.pop(0)
            if lib in seen:
                continue
            seen.add(lib)
            out.append((lib, shown))
            for uri, names in self.exports.get(lib, ()):
                t = self.target(lib, uri)
                if t in self.paths:
                    todo.append((self.library_of(t), frozenset(names) if names else shown))
        return out

    def dotted(self, path: str) -> str:
        """A library's name in qualified names: its package and its path below lib/
        (`shop.src.cart`), or below the package's folder (`shop.test.cart_test`)."""
        stem = path[:-5] if path.endswith(".dart") else path
        best = ""
        for name, root in self.packages.items():
            prefix = f"{root}/" if root else ""
            if stem.startswith(prefix) and (best == "" or len(root) > len(self.packages[best])):
                best = name
        if not best:
            return stem.replace("/", ".")
        root = self.packages[best]
        rel = stem[len(root) + 1 :] if root else stem
        rel = rel[len("lib/") :] if rel.startswith("lib/") else rel
        return f"{best}.{rel.replace('/', '.')}"
