"""The runner identity: a digest of everything that can change what the indexer writes.

Components are plain JSON values; the digest is sha256 over their canonical
(sorted-keys, compact) JSON. Besides the versions of what is installed, each language
names its resolver version and digests of its query files and of its hooks (the code of
its package), and the resolution engine its version and a digest of its code: an upgrade
that changes how edges are made gets a new identity even where no version was bumped, so
an incremental run never mixes edges of two resolvers. `CODEIMPACT_IDENTITY_OVERRIDE` (a JSON object of
component -> value; a dotted key such as `"extractors.python"` sets one entry
of a nested component) is read only here, so tests can simulate an upgraded
component without installing one. A malformed override is an error, not a
silent no-op, so a test that sets one can never pass by accident.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
from functools import cache
from pathlib import Path

from codeimpact import __version__
from codeimpact.graph.errors import BadInput
from codeimpact.graph.schema import SCHEMA_VERSION
from codeimpact.indexer.config import IndexConfig
from codeimpact.indexer.lang import LANGUAGES
from codeimpact.native.runner import native_status
from codeimpact.native.sha import sha256

OVERRIDE_ENV = "CODEIMPACT_IDENTITY_OVERRIDE"


def _dist_version(name: str) -> str:
    """The installed version of distribution `name`, read from the name of its
    `<name>-<version>.dist-info` folder on sys.path (the naming pip and every wheel
    installer write) in sys.path's order. importlib.metadata says the same from the
    folder's METADATA, but importing it is ~40 ms of every run's start-up, a no-op's
    included; it is asked only when no single such folder is found."""
    prefix = re.sub(r"[-_.]+", "_", name).lower() + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found = [n for n in names if n.endswith(".dist-info") and n.lower().startswith(prefix)]
        if len(found) == 1:
            return found[0][len(prefix) : -len(".dist-info")]
        if found:
            break
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def grammar_fingerprint(grammar: str) -> str:
    """ABI version plus a hash of the grammar's node-kind and field tables."""
    from tree_sitter_language_pack import get_language

    lang = get_language(grammar)
    h = sha256()
    for i in range(lang.node_kind_count):
        h.update(f"{i}:{lang.node_kind_for_id(i)}:{int(lang.node_kind_is_named(i))};".encode())
    for i in range(1, lang.field_count + 1):
        h.update(f"f{i}:{lang.field_name_for_id(i)};".encode())
    return f"abi{lang.abi_version}-{h.hexdigest()[:16]}"


@cache
def package_digest(packages: tuple[str, ...] | str, suffix: str) -> str:
    """sha256 (16 hex digits) over the files of the packages with that suffix, by name."""
    from importlib import resources  # here: a run whose identity is kept never needs it

    h = sha256()
    for package in (packages,) if isinstance(packages, str) else packages:
        for entry in sorted(resources.files(package).iterdir(), key=lambda e: e.name):
            if entry.is_file() and entry.name.endswith(suffix):
                h.update(f"{package}/{entry.name}".encode() + b"\0" + entry.read_bytes() + b"\0")
    return h.hexdigest()[:16]


LANG = "codeimpact.indexer.lang"
# The code every language's extraction and resolution may run besides its own package: the
# contract and shared helpers (indexer/lang/*.py) and the engine (indexer/lang/engine/).
# What each language does run of it (and of another language's package) is its `uses`.
SHARED_CODE = (LANG, f"{LANG}.engine")
# the rest of an import statement naming a module of indexer/lang: its names when it is a
# `from m import a, b` (parenthesised over lines too)
_TAIL = re.compile(rb"(codeimpact\.indexer\.lang[\w.]*)(?:[ \t]+import[ \t]+(\([^)]*\)|[^\n]*))?")


def _import_statements(source: bytes):
    """(module, names or None) of each `from m import ...` / `import m` of a module under
    indexer/lang, at any indentation (imports inside functions count). Found by the
    literal first: a regular expression anchored at line starts is 50x slower here."""
    prefix = LANG.encode()
    pos = source.find(prefix)
    while pos >= 0:
        head = source[source.rfind(b"\n", 0, pos) + 1 : pos].strip()
        if head in (b"from", b"import"):
            match = _TAIL.match(source, pos)
            yield match[1].decode(), match[2] if head == b"from" else None
        pos = source.find(prefix, pos + 1)


@cache
def lang_modules() -> dict[str, bytes]:
    """Every module under indexer/lang by dotted name (a package by its `__init__.py`) ->
    its source, read where the package is installed."""
    from importlib import resources

    out: dict[str, bytes] = {}

    def walk(package: str, folder) -> None:
        for entry in folder.iterdir():
            if entry.is_file() and entry.name.endswith(".py"):
                stem = entry.name[:-3]
                out[package if stem == "__init__" else f"{package}.{stem}"] = entry.read_bytes()
            elif entry.is_dir() and entry.joinpath("__init__.py").is_file():
                walk(f"{package}.{entry.name}", entry)

    walk(LANG, resources.files(LANG))
    return out


@cache
def _import_graph() -> dict[str, frozenset[str]]:
    """Module -> the modules under indexer/lang it imports: `from m import x` is `m.x` when
    that is a module (a submodule import), else `m`."""
    modules = lang_modules()
    graph = {}
    for name, source in modules.items():
        found = set()
        for base, names in _import_statements(source):
            for item in re.sub(rb"#[^\n]*", b"", names or b"").strip(b"()").split(b","):
                words = item.split()
                sub = f"{base}.{words[0].decode()}" if words else base
                found.add(sub if sub in modules else base)
        graph[name] = frozenset(found & modules.keys())
    return graph


@cache
def used_modules(package: str) -> tuple[str, ...]:
    """The modules under indexer/lang outside `package` that its modules import, directly
    or through each other: derived from the sources, so code a language shares with another
    (the Java model's extraction and resolver under C#, Kotlin, PHP...) and the engine are
    in its identity without being listed by hand."""
    graph = _import_graph()
    own = [m for m in graph if m == package or m.startswith(package + ".")]
    seen, todo = set(own), list(own)
    while todo:
        for dep in graph[todo.pop()] - seen:
            seen.add(dep)
            todo.append(dep)
    return tuple(sorted(seen.difference(own)))


def language_components(name: str) -> dict:
    """What of a language (beyond its extractor version and grammar, listed apart) can
    change the graph: its resolver version, its queries, its hooks (its package's code)
    and the code it uses from the rest of indexer/lang (`uses`: the engine, another
    language's model)."""
    spec = LANGUAGES[name]
    return {
        "resolve": spec.resolve_version,
        "queries": package_digest(spec.package, ".scm"),
        "hooks": package_digest(spec.package, ".py"),
        "uses": _hashed(used_modules(spec.package)).hexdigest()[:16],
    }


@cache
def _hashed(modules: tuple[str, ...]):
    """sha256 over each module's name and source in turn (never updated again: a copy is).
    Languages whose used modules start alike share the state of that start: hashed once per
    language, the engine's modules were 2.3 MB of the 3.7 MB hashed when the identity is
    computed (~80M instructions of a fresh index's serial start); the digests are the same."""
    if not modules:
        return sha256()
    h = _hashed(modules[:-1]).copy()
    h.update(modules[-1].encode() + b"\0" + lang_modules()[modules[-1]] + b"\0")
    return h


def components(config: IndexConfig) -> dict:
    comps = _components(config)
    apply_override(comps, os.environ.get(OVERRIDE_ENV))
    return comps


def _components(config: IndexConfig) -> dict:
    """The components, before the test override."""
    from codeimpact.indexer.lang.api import FACTS_FORMAT
    from codeimpact.indexer.lang.engine import ENGINE_VERSION

    langs = sorted(config.languages) if config.languages is not None else sorted(LANGUAGES)
    langs = [name for name in langs if name in LANGUAGES]
    comps = {
        "codeimpact": __version__,
        "schema": SCHEMA_VERSION,
        "facts_format": FACTS_FORMAT,
        "extractors": {name: LANGUAGES[name].extract_version for name in langs},
        "grammars": {name: grammar_fingerprint(LANGUAGES[name].grammar) for name in langs},
        **{name: language_components(name) for name in langs},
        "engine": {
            "version": ENGINE_VERSION,
            "code": package_digest(SHARED_CODE, ".py"),
        },
        "tree_sitter": _dist_version("tree-sitter"),
        # the native extraction (native/runner.py) or the pure Python path: the same facts,
        # but an index is written by one of them, never by both
        "native_extraction": native_status().used,
        # which build of it: the digest compiled into the extension and that of the sources
        # beside the package (None when absent); a stale build is not used (native/runner.py)
        "native_build": {
            "extension": native_status().built,
            "sources": native_status().sources,
        },
        "tree_sitter_language_pack": _dist_version("tree-sitter-language-pack"),
        "kuzu": _dist_version("kuzu"),
        "interpreter": f"{sys.version_info.major}.{sys.version_info.minor}",
        "config": config.identity(),
    }
    return comps


def apply_override(comps: dict, override: str | None) -> None:
    """Merge the test hook's JSON object into `comps` (dotted keys reach one level down)."""
    if not override:
        return
    try:
        extra = json.loads(override)
    except ValueError:
        extra = None
    if not isinstance(extra, dict):
        raise BadInput(f"{OVERRIDE_ENV} must be a JSON object of component -> value")
    for key, value in extra.items():
        head, _, sub = key.partition(".")
        if sub:
            nested = comps.get(head)
            comps[head] = {**nested, sub: value} if isinstance(nested, dict) else {sub: value}
        else:
            comps[key] = value


def digest(comps: dict) -> str:
    return sha256(json.dumps(comps, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def runner_identity(config: IndexConfig, cache_dir: Path | None = None) -> tuple[str, dict]:
    """(digest, components) of this runner; with `cache_dir` (an index folder) the
    components are kept there and taken again while their sources are unchanged
    (`cache_key`): computing them imports every language and loads every grammar, ~0.05 s of
    CPU that was most of a no-op `analyze`'s work and a part of every query's freshness."""
    return _identity(config, cache_dir, cache_key(config) if cache_dir is not None else "")


def _identity(config: IndexConfig, cache_dir: Path | None, key: str) -> tuple[str, dict]:
    comps = _cached_components(key, cache_dir) if cache_dir is not None else None
    if comps is None:
        comps = _computed_and_kept(config, cache_dir, key)
    apply_override(comps, os.environ.get(OVERRIDE_ENV))
    return digest(comps), comps


def _computed_and_kept(config: IndexConfig, cache_dir: Path | None, key: str) -> dict:
    comps = _components(config)
    if cache_dir is not None:
        _keep_components(key, cache_dir, comps)
    return comps


class IdentitySoon:
    """`runner_identity(config, cache_dir)`, had from `result()`. When `cache_dir` holds no
    components under their key (a new index, or new code), a forked child computes and
    keeps them (`beside`) while this process goes on: on a new index ~0.13 s of CPU (every
    language imported, its grammar loaded, its code hashed) that came before the files were
    listed and scanned, the other core idle. `result()` then waits for the child and takes
    them from the cache (the same components: computed by the same code from the same
    files); when the child could not keep them (it failed, or was killed), they are computed
    there, as before. `fork=False` (one process asked for): computed at once, here. `path`:
    which way they came ("cached", "forked", or why in this process: indexer/fork_guard.py)."""

    def __init__(self, config: IndexConfig, cache_dir: Path, *, fork: bool = True) -> None:
        self._config, self._dir = config, cache_dir
        self._key = cache_key(config)
        self._job = None
        if _cached_components(self._key, cache_dir) is not None:
            self.path = "cached"
            return
        from codeimpact.indexer.forked_job import ForkedJob

        job = functools.partial(_computed_and_kept, config, cache_dir, self._key)
        self._job = ForkedJob(job, fork=fork, name="the runner identity",
                              why_not="one process asked for (--workers 1)")  # fmt: skip
        self.path = self._job.path

    def result(self) -> tuple[str, dict]:
        job, self._job = self._job, None
        if job is not None:
            with contextlib.suppress(Exception):  # (then computed below, as it raised there)
                job.wait()
        return _identity(self._config, self._dir, self._key)

    def cancel(self) -> None:
        """Stop the child, if one still runs (the run failed before it needed the result)."""
        job, self._job = self._job, None
        if job is not None:
            job.cancel()


CACHE_NAME = "identity.json"


def code_stamp(roots: tuple[Path, ...]) -> list:
    """(path, size, mtime_ns) of every file under `roots` (a file or a folder, walked),
    compiled bytecode left out: what the components are computed from, by the test Python
    itself uses to trust a module's compiled code (its source's size and mtime)."""
    out: list = []

    def walk(folder: str) -> None:
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        walk(entry.path)
                elif entry.is_file():
                    st = entry.stat()
                    out.append((entry.path, st.st_size, st.st_mtime_ns))

    for root in roots:
        if root.is_dir():
            walk(str(root))
        else:
            st = root.stat()
            out.append((str(root), st.st_size, st.st_mtime_ns))
    return out


def cache_key(config: IndexConfig) -> str:
    """A digest of what the components are computed from: the code of every language, the
    contract and the engine (the indexer/lang folder) and of this module, the installed
    distributions, the native extension's build and the configuration. The versions in
    other modules (the schema's, the package's) are taken by value."""
    from codeimpact.indexer import lang

    parts = [
        code_stamp((Path(lang.__file__).parent, Path(__file__))),
        __version__,
        SCHEMA_VERSION,
        sys.version,
        config.identity(),
        native_status().as_json(),
        [_dist_version(n) for n in ("tree-sitter", "tree-sitter-language-pack", "kuzu")],
    ]
    return sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _cached_components(key: str, cache_dir: Path) -> dict | None:
    try:
        kept = json.loads((cache_dir / CACHE_NAME).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("key") != key:
        return None
    comps = kept.get("components")
    return comps if isinstance(comps, dict) else None


def _keep_components(key: str, cache_dir: Path, comps: dict) -> None:
    """Write the cache (no fsync: a cache lost in a crash is computed again); a folder that
    cannot be written (a read-only index) keeps none."""
    data = json.dumps({"key": key, "components": comps}).encode()
    tmp = cache_dir / f"{CACHE_NAME}.tmp{os.getpid()}"
    try:
        tmp.write_bytes(data)
        os.replace(tmp, cache_dir / CACHE_NAME)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def flatten(comps: dict) -> dict:
    """Every component by its dotted name (`python.resolve`, `tree_sitter`) -> its value."""
    out = {}
    for key, value in sorted(comps.items()):
        if isinstance(value, dict):
            out.update((f"{key}.{k}", v) for k, v in sorted(value.items()))
        else:
            out[key] = value
    return out


def component_changes(old: dict, new: dict) -> list[dict]:
    """`[{component, indexed, current}]` for each component that differs (None: absent)."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        # a group of components that came or went is named member by member too
        if isinstance(a, dict) and b is None:
            b = {}
        elif isinstance(b, dict) and a is None:
            a = {}
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(
                {"component": f"{key}.{k}", "indexed": a.get(k), "current": b.get(k)}
                for k in sorted(set(a) | set(b))
                if a.get(k) != b.get(k)
            )
        else:
            out.append({"component": key, "indexed": a, "current": b})
    return out


def config_from_identity(stored: object) -> IndexConfig | None:
    """The IndexConfig an index was built with, from its stored `config` component.

    None when the stored value is not one this version wrote; status then
    judges the index with the default configuration and says the config changed.
    """
    if not isinstance(stored, dict):
        return None
    try:
        langs = stored["languages"]
        config = IndexConfig(
            max_file_size=int(stored["max_file_size"]),
            ignore=tuple(str(p) for p in stored["ignore"]),
            languages=None if langs == "all" else frozenset(str(x) for x in langs),
            parse_timeout_ms=int(stored["parse_timeout_ms"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    # a config this version would store differently was not written by it
    return config if config.identity() == stored else None
