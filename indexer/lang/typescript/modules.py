"""Where a TS/JS module specifier leads: a repository file, nothing we index, or outside.

The rules are those of TypeScript's `bundler`/`node` resolution, reduced to what
can be decided from the repository alone:
- relative specifiers (`./x`, `../x`) probe extensions, then `x/index.*`, then
  a `package.json` entry of the folder; a TS importer of `./x.js` finds `./x.ts`
  first, as tsc does;
- the nearest `tsconfig.json` / `jsconfig.json` above the importer (following
  relative `extends` to a conventionally named file) maps `compilerOptions.paths` patterns (best prefix
  first) and then `baseUrl`;
- a bare specifier naming a package of the repository (a workspace, by the
  `name` of its package.json) resolves into that package;
- anything else (`react`, `node:fs`, `@scope/pkg/sub`) is external.
Everything here is pure: the inputs are the indexed paths and the config texts.
"""

from __future__ import annotations

import json
import posixpath
from typing import NamedTuple

from codeimpact.indexer.lang.engine.memo import Memo

# Probe order per importer family: TS sources before their compiled JS, and the reverse
# for a JS importer (node would load the .js).
TS_ORDER = (
    ".ts",
    ".tsx",
    ".d.ts",
    ".mts",
    ".cts",
    ".d.mts",
    ".d.cts",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
)
JS_ORDER = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".d.ts", ".mts", ".cts")
# `import "./x.js"` in TypeScript means the source file x.ts
JS_TO_TS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx",),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
}
SOURCE_SUFFIXES = (
    ".d.mts",
    ".d.cts",
    ".d.ts",
    ".tsx",
    ".mts",
    ".cts",
    ".ts",
    ".jsx",
    ".mjs",
    ".cjs",
    ".js",
)
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
# Discovery hands over files by basename, so an `extends` target is readable only under a
# conventional name; another name is skipped (its baseUrl/paths are then unknown).
EXTENDED_NAMES = ("tsconfig.base.json", "tsconfig.paths.json", "tsconfig.common.json")
_ENTRY_FIELDS = ("types", "typings", "source", "module", "main")


class Target(NamedTuple):
    kind: str  # "file" (path is a repo file), "missing" (inside the repo, not indexed), "external"
    path: str  # the file, or the specifier for "external"


def module_path(path: str) -> str:
    """`src/utils/str.ts` -> `src/utils/str`: the module part of a qualified name."""
    for suf in SOURCE_SUFFIXES:
        if path.endswith(suf):
            return path[: -len(suf)]
    return path


def is_ts_path(path: str) -> bool:
    return path.endswith((".ts", ".tsx", ".mts", ".cts"))


def parse_jsonc(text: str) -> dict:
    """JSON with comments and trailing commas (tsconfig's dialect); {} when unreadable."""
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif ch in "}]":
            # drop a trailing comma before a closing bracket
            k = len(out) - 1
            while k >= 0 and out[k].isspace():
                k -= 1
            if k >= 0 and out[k] == ",":
                del out[k]
            out.append(ch)
            i += 1
        else:
            out.append(ch)
            i += 1
    try:
        data = json.loads("".join(out))
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _join(base: str, rel: str) -> str | None:
    """Repo-relative normalised join; None when the result leaves the repository."""
    p = posixpath.normpath(posixpath.join(base, rel)) if base else posixpath.normpath(rel)
    if p == ".":
        return ""
    if p.startswith("../") or p == ".." or p.startswith("/"):
        return None
    return p


class _PathsConfig(NamedTuple):
    base_url: str | None  # repo-relative folder, or None
    paths_base: str  # folder the `paths` targets are relative to
    paths: tuple[tuple[str, str, tuple[str, ...]], ...]  # (prefix, suffix, targets); exact: no "*"
    exact: frozenset[str]


class ModuleResolver:
    """Import specifiers -> files. What it computes (parsed config files, each folder's
    paths config, each (folder, importer family, specifier)) is kept in the resolver
    project's one memo (`memo`; a fresh one when used alone): pure functions of the paths
    and config texts, so stored unconditionally (Memo.cached)."""

    def __init__(
        self,
        paths: set[str] | frozenset[str],
        configs: dict[str, str],
        memo: Memo | None = None,
    ):
        self.paths = paths
        self.texts = configs
        self.memo = memo if memo is not None else Memo()
        dirs = set()
        for p in paths:
            d = posixpath.dirname(p)
            while d not in dirs:
                dirs.add(d)
                if not d:
                    break
                d = posixpath.dirname(d)
        self.dirs = frozenset(dirs)  # every folder that holds an indexed file, at any depth
        self.config_dirs: dict[str, str] = {}  # folder -> its tsconfig/jsconfig path
        self.packages: dict[str, str] = {}  # workspace package name -> folder
        for path in sorted(configs):
            base = posixpath.basename(path)
            folder = posixpath.dirname(path)
            if base in CONFIG_NAMES:
                # tsconfig.json wins over jsconfig.json in the same folder
                if folder not in self.config_dirs or base == "tsconfig.json":
                    self.config_dirs[folder] = path
            elif base == "package.json":
                name = self._load(path).get("name")
                if isinstance(name, str) and name:
                    self.packages.setdefault(name, folder)

    def _load(self, path: str) -> dict:
        return self.memo.cached(("ts-json", path), lambda: self._parse(path))

    def _parse(self, path: str) -> dict:
        text = self.texts.get(path)
        return parse_jsonc(text) if text is not None else {}

    # ---------------------------------------------------------------- tsconfig
    def _compiler_options(self, path: str, depth: int = 0) -> tuple[dict, dict]:
        """(baseUrl/paths values, folder each was declared in), following relative `extends`."""
        data = self._load(path)
        values: dict = {}
        where: dict = {}
        ext = data.get("extends")
        for parent in [ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []:
            if not isinstance(parent, str) or not parent.startswith(".") or depth > 8:
                continue  # a package preset (`@tsconfig/node18`) is outside the repository
            target = _join(posixpath.dirname(path), parent)
            if target is None:
                continue
            if target not in self.texts and target + ".json" in self.texts:
                target += ".json"
            if target in self.texts:
                v, w = self._compiler_options(target, depth + 1)
                values.update(v)
                where.update(w)
        opts = data.get("compilerOptions")
        if isinstance(opts, dict):
            for key in ("baseUrl", "paths"):
                if key in opts:
                    values[key] = opts[key]
                    where[key] = posixpath.dirname(path)
        return values, where

    def _config(self, folder: str) -> _PathsConfig | None:
        return self.memo.cached(("ts-config", folder), lambda: self._find_config(folder))

    def _find_config(self, folder: str) -> _PathsConfig | None:
        d = folder
        cfg_path = None
        while True:
            if d in self.config_dirs:
                cfg_path = self.config_dirs[d]
                break
            if not d:
                break
            d = posixpath.dirname(d)
        result = None
        if cfg_path is not None:
            values, where = self._compiler_options(cfg_path)
            base_url = None
            if isinstance(values.get("baseUrl"), str):
                base_url = _join(where["baseUrl"], values["baseUrl"])
            paths = values.get("paths") if isinstance(values.get("paths"), dict) else {}
            paths_base = base_url if base_url is not None else where.get("paths", "")
            patterns = []
            exact = set()
            for pattern, targets in paths.items():
                if not isinstance(targets, list):
                    continue
                ts_ = tuple(t for t in targets if isinstance(t, str))
                prefix, star, suffix = pattern.partition("*")
                if not star:
                    exact.add(pattern)
                patterns.append((prefix, suffix if star else "\0", ts_))
            # TypeScript: an exact pattern first, then the longest matching prefix
            patterns.sort(key=lambda p: -len(p[0]))
            if base_url is not None or patterns:
                result = _PathsConfig(base_url, paths_base, tuple(patterns), frozenset(exact))
        return result

    # ---------------------------------------------------------------- probing
    def probe(self, base: str, ts_first: bool) -> str | None:
        paths = self.paths
        order = TS_ORDER if ts_first else JS_ORDER
        stem, ext = posixpath.splitext(base)
        if ext in JS_TO_TS:
            subs = [stem + e for e in JS_TO_TS[ext]]
            for cand in [*subs, base] if ts_first else [base, *subs]:
                if cand in paths:
                    return cand
        elif base in paths:
            return base
        for e in order:
            if base + e in paths:
                return base + e
        if base in self.dirs:
            pkg = posixpath.join(base, "package.json") if base else "package.json"
            if pkg in self.texts:
                hit = self._package_entry(base, pkg, ts_first)
                if hit is not None:
                    return hit
            index = posixpath.join(base, "index") if base else "index"
            for e in order:
                if index + e in paths:
                    return index + e
        return None

    def _package_entry(self, folder: str, pkg: str, ts_first: bool) -> str | None:
        data = self._load(pkg)
        for key in _ENTRY_FIELDS:
            entry = data.get(key)
            if isinstance(entry, str) and entry:
                target = _join(folder, entry)
                if target is not None and target != folder:
                    hit = self.probe(target, ts_first)
                    if hit is not None:
                        return hit
        return None

    # ---------------------------------------------------------------- resolve
    def resolve(self, importer: str, spec: str) -> Target:
        folder = posixpath.dirname(importer)
        ts_first = is_ts_path(importer)
        return self.memo.cached(
            ("ts-module", folder, ts_first, spec), lambda: self._resolve(folder, ts_first, spec)
        )

    def _resolve(self, folder: str, ts_first: bool, spec: str) -> Target:
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            base = _join(folder, spec.rstrip("/"))
            found = self.probe(base, ts_first) if base is not None else None
            return Target("file", found) if found else Target("missing", spec)
        if spec.startswith("/") or ":" in spec.split("/", 1)[0]:
            return Target("external", spec)  # node:fs, an absolute path, a URL
        cfg = self._config(folder)
        if cfg is not None:
            matched = False
            for prefix, suffix, targets in cfg.paths:
                if suffix == "\0":
                    if spec != prefix:
                        continue
                    star = ""
                elif (
                    spec.startswith(prefix)
                    and spec.endswith(suffix)
                    and len(spec) >= len(prefix) + len(suffix)
                ):
                    star = spec[len(prefix) : len(spec) - len(suffix)]
                else:
                    continue
                matched = True
                for t in targets:
                    base = _join(cfg.paths_base, t.replace("*", star))
                    found = self.probe(base, ts_first) if base is not None else None
                    if found:
                        return Target("file", found)
                break
            if cfg.base_url is not None:
                base = _join(cfg.base_url, spec)
                found = self.probe(base, ts_first) if base is not None else None
                if found:
                    return Target("file", found)
            if matched:
                return Target("missing", spec)  # an alias of the project, not a package
        found = self._workspace(spec, ts_first)
        if found is not None:
            return found
        return Target("external", spec)

    def _workspace(self, spec: str, ts_first: bool) -> Target | None:
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        folder = self.packages.get(name)
        if folder is None:
            return None
        sub = spec[len(name) :].lstrip("/")
        if not sub:
            pkg = posixpath.join(folder, "package.json") if folder else "package.json"
            found = self._package_entry(folder, pkg, ts_first)
            for cand in ("src/index", "index"):
                if found is None:
                    found = self.probe(posixpath.join(folder, cand), ts_first)
        else:
            base = _join(folder, sub)
            found = None
            if base is not None:
                found = self.probe(base, ts_first) or self.probe(
                    posixpath.join(folder, "src", sub), ts_first
                )
        return Target("file", found) if found else Target("missing", spec)
