"""The resolver projects of a run (one per language group, lang/api.py's ResolverProject), what
incremental runs compare between them (summaries, hierarchy and module-name changes), and
resolving a set of paths with them."""

from __future__ import annotations

import marshal
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from codeimpact.graph.layout import atomic_write, fsync_dir, fsync_fd
from codeimpact.indexer.lang import LANGUAGES, group_of
from codeimpact.indexer.lang.api import Prior, shared_values
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.plan import (
    lookup_keys_blob,
)
from codeimpact.indexer.resolved import ResolvedFile
from codeimpact.indexer.state import (
    SHARED_PREFIX,
    resolved_blob,
)


def make_projects(
    facts: LazyFacts,
    lang_of: dict[str, str],
    configs: dict[str, str],
    prior: Prior | None = None,
    prior_groups: set[str] | None = None,
) -> dict[str, object]:
    """language -> its resolver project; languages of one resolver group share the project.
    `prior_groups`: the groups `prior` is handed to (None: every group). The facts decoded
    meanwhile share their values across files (lang/api.py shared_values)."""
    with shared_values():
        return _make_projects(facts, lang_of, configs, prior, prior_groups)


def _make_projects(facts: LazyFacts, lang_of: dict[str, str], configs: dict[str, str],
                   prior: Prior | None, prior_groups: set[str] | None) -> dict[str, object]:  # fmt: skip
    langs = {lang_of[p] for p in facts}
    group = {lang: group_of(lang) for lang in langs}
    # (one resolver group, an edit's: its project takes every file, no list of them made)
    one = len(set(group.values())) == 1
    by_group: dict[str, list[str]] = {}
    if not one:
        for path in facts:
            by_group.setdefault(group[lang_of[path]], []).append(path)
    built: dict[str, object] = {}
    projects: dict[str, object] = {}
    for lang in sorted(langs):
        spec = LANGUAGES[lang]
        if spec.group not in built:
            files = facts if one else facts.subset(by_group[spec.group])
            given = prior if prior_groups is None or spec.group in prior_groups else None
            built[spec.group] = spec.make_project(files, configs, given)
        projects[lang] = built[spec.group]
    return projects


def _resolve_encoded(
    projects: dict[str, object], lang_of: dict[str, str], facts: LazyFacts, path: str
) -> tuple[bytes, bytes]:
    """One file's resolved output and lookup keys, encoded to travel from a worker (which
    then forgets the file's decoded facts, as the serial loop does)."""
    project = projects[lang_of[path]]
    rf = project.resolve_file(path)
    keys = lookup_keys_blob(facts[path])
    release = getattr(project, "release", None)
    if release is not None:
        release(path)
    facts.forget(path)
    return resolved_blob(rf), keys


def summaries_of(
    projects: dict[str, object], before: Mapping[str, bytes] | None = None
) -> dict[str, bytes]:
    """path -> the resolver's summary of the file, for the next run's `Prior`; `before`: the
    previous run's encoded summaries, kept as they are for the files whose summary stands
    (a kernel edit encoded 55,000 summaries again to write the same bytes)."""
    out: dict[str, bytes] = {}
    for project in {id(p): p for p in projects.values()}.values():
        encoded = getattr(project, "encoded_summaries", None)
        if encoded is not None:
            out.update(encoded(before))
            continue
        summaries = getattr(project, "summaries", None)
        if summaries is not None:
            out.update((p, marshal.dumps(v)) for p, v in summaries().items())
    return out


def fresh_summaries(projects: dict[str, object]) -> dict[str, bytes] | None:
    """path -> its summary's bytes, for the files the projects summarised again, when every
    project's other files' summaries stand as the previous run handed them on (the same
    paths: `fresh_summaries()`); None otherwise (then `summaries_of`)."""
    out: dict[str, bytes] = {}
    for project in {id(p): p for p in projects.values()}.values():
        hook = getattr(project, "fresh_summaries", None)
        fresh = hook() if hook is not None else None
        if fresh is None:
            return None
        out.update(fresh)
    return out


def shared_summaries(projects: dict[str, object]) -> dict[str, object | None]:
    """resolver group -> what its project keeps beside the files' summaries for the next
    run (`shared_summary()`: CProject's name tables), None when it is the prior's unchanged."""
    out: dict[str, object | None] = {}
    for project in {id(p): p for p in projects.values()}.values():
        hook = getattr(project, "shared_summary", None)
        if hook is not None and project.paths:
            out[LANGUAGES[project.language].group] = hook()
    return out


def stage_shared(projects: dict[str, object], folder: Path, token: str) -> None:
    """Write each group's shared summary to `folder`/shared-<group>-<token>.tmp (a full
    build's: `staged` finds them); its bytes are made and dropped at once, or written piece
    by piece when the project gives them so (`shared_summary_pieces`: C's name tables)."""
    for project in {id(p): p for p in projects.values()}.values():
        pieced = getattr(project, "shared_summary_pieces", None)
        whole = getattr(project, "shared_summary", None)
        if (pieced is None and whole is None) or not project.paths:
            continue  # (only projects with a shared summary have `paths`)
        path = folder / f"{SHARED_PREFIX}{LANGUAGES[project.language].group}-{token}.tmp"
        if pieced is not None:
            pieces = pieced()
            if pieces is not None:
                _write_pieces(path, pieces)
            continue
        value = whole()
        if value is not None:
            atomic_write(path, marshal.dumps(value))


def _write_pieces(path: Path, pieces: Iterable[bytes]) -> None:
    """`atomic_write` of the bytes the pieces make together, none held beyond its write."""
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        for piece in pieces:
            f.write(piece)
        f.flush()
        fsync_fd(f.fileno(), path)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def staged(folder: Path, token: str) -> dict[str, Path]:
    """group -> the file `stage_shared` wrote for it."""
    suffix = f"-{token}.tmp"
    return {f.name[len(SHARED_PREFIX) : -len(suffix)]: f
            for f in folder.glob(f"{SHARED_PREFIX}*{suffix}")}  # fmt: skip


class _Within(Mapping):
    """The entries of `base` of the files of one resolver group, each read from `base` when
    asked: a summary mapping that decodes on demand stays so (an edit of Django decoded all
    2,818 summaries for a hook that reads those of the changed files unless a hierarchy
    changed), and the group's keys are listed only when iterated (~3.5M instructions of a
    Django edit, whose hook reads the changed files' alone)."""

    def __init__(self, base: Mapping, group_of: Mapping[str, str], group: str):
        self._base = base
        self._group_of = group_of
        self._group = group
        self._keys: list[str] | None = None

    def _listed(self) -> list[str]:
        if self._keys is None:
            self._keys = [p for p in self._base if self._group_of.get(p) == self._group]
        return self._keys

    def __getitem__(self, key: str):
        if key not in self:
            raise KeyError(key)
        return self._base[key]

    def __iter__(self):
        return iter(self._listed())

    def __len__(self) -> int:
        return len(self._listed())

    def __contains__(self, key: object) -> bool:
        return self._group_of.get(key) == self._group and key in self._base


def hierarchy_changes(
    projects: dict[str, object], before: Mapping[str, tuple], group_of: dict[str, str]
) -> dict[str, tuple[set[str], set[str]]]:
    """Per resolver group, the (value names, edge names) its project reports as reaching a
    changed class hierarchy (`before`: the previous run's summaries; each project is handed
    those of its own group's files)."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for project in {id(p): p for p in projects.values()}.values():
        hook = getattr(project, "hierarchy_changes", None)
        if hook is None or not project.paths:
            continue
        group = group_of[project.paths[0]]
        out[group] = hook(_Within(before, group_of, group))
    return out


def changed_modules(modules: dict, before: dict, lang_of: dict[str, str], paths,
                    changed_langs: set) -> set[str]:  # fmt: skip
    """Files whose module name (all that resolution depends on beyond names) changed."""
    out: set[str] = set()
    for lang, names in modules.items():
        old = before.get(lang)
        if names is not None and names is old:  # (the previous run's own: PythonProject)
            continue
        if names is None or not isinstance(old, dict):
            # no module names to compare: every file of a changed language, no parsing
            if lang in changed_langs:
                out |= {p for p in paths if lang_of[p] == lang}
            continue
        out |= {p for p, m in names.items() if old.get(p) != m}
    return out


def module_names(projects: dict[str, object]) -> dict[str, dict[str, str] | None]:
    """Per language, path -> module name; None for a resolver that does not expose them."""
    out: dict[str, dict[str, str] | None] = {}
    for lang, project in projects.items():
        names = getattr(project, "module_names", None)
        out[lang] = names() if names is not None else None
    return out


def resolve_paths(
    projects: dict[str, object], lang_of: dict[str, str], paths
) -> dict[str, ResolvedFile]:
    return {p: projects[lang_of[p]].resolve_file(p) for p in sorted(paths)}


# ---------------------------------------------------------------------- the run
