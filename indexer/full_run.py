"""The full run: extract (or take from the cache) every file's facts, resolve every file
(in worker processes when large), and write a new generation from scratch."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import marshal
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from codeimpact.graph import QUIET_BLAS, full_write, layout, manifest, spare
from codeimpact.graph.arrow import malloc_pool
from codeimpact.indexer import worktree
from codeimpact.indexer.extraction import facts_from_source
from codeimpact.indexer.fork_guard import FORKED, fork_unsafe_reason, in_process
from codeimpact.indexer.lang import LANGUAGES
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.lifeline import die_with_parent
from codeimpact.indexer.plan import lookup_keys_blob
from codeimpact.indexer.report import AnalyzeReport
from codeimpact.indexer.resolution import (
    _resolve_encoded,
    make_projects,
    module_names,
    stage_shared,
    staged,
    summaries_of,
)
from codeimpact.indexer.resolve_host import Host
from codeimpact.indexer.resolve_parts import part_resolver, resolve_split, worth_splitting
from codeimpact.indexer.run import (
    Run,
    generation_meta,
    resident_mb,
    resolve_workers,
    room_for_two,
    run_stats,
    tree_fields,
)
from codeimpact.indexer.state import SHARED_PREFIX
from codeimpact.indexer.tables import file_table, write_full_generation

if TYPE_CHECKING:
    from codeimpact.indexer import full_graph
    from codeimpact.indexer.state import GraphState

# Source bytes (every file's to parse, by its record) up to which the database writer is forked
# early: Django's 2,900 files are ~20 MB; a tree of ~70,000 (the Linux kernel) starts its
# writer when it writes instead, from a fresh interpreter.
PRESTART_MAX_BYTES = 128 << 20


def full(run: Run, reason: str) -> AnalyzeReport:
    # git runs while the files are parsed (they were read by the scan): not after the write
    probe = worktree.StatusProbe(run.repo, run.untracked)
    try:
        return _full(run, reason, probe)
    finally:
        probe.close()


def _full(run: Run, reason: str, probe: worktree.StatusProbe) -> AnalyzeReport:
    with contextlib.ExitStack() as arrow_scope:
        writer: list[full_write.Prestarted] = []

        @functools.cache  # once
        def start_resolvers() -> None:
            # the resolvers of the languages found: the resolve host, forked from this
            # process once the extraction ends, imported them first thing (Python's: 54
            # modules, ~18 ms CPU on one core while the other idled); here they load
            # beside the workers, and the host and its workers share the pages
            found = {r.language for r in run.records if not r.status.startswith("skipped:")}
            for lang in sorted(found & LANGUAGES.keys()):
                LANGUAGES[lang].resolver()

        @functools.cache  # once
        def start_arrow() -> None:
            # the full build's graph needs numpy and pyarrow (incremental runs go without
            # their import time), and the database writer forked later Kùzu's (it shares
            # them: no imports of its own): imported, set up and started once the resolve
            # host is forked, while it builds its projects on one core and this process
            # waits (~0.18 s CPU on Django; during the extraction it was taken from the
            # two workers). The host needs none of them.
            with _one_blas_thread():
                from codeimpact.indexer import full_graph
            full_write.import_writer_modules()
            full_graph.warm_up()
            arrow_scope.enter_context(malloc_pool())

        def start_writer(sources: int) -> None:
            not_now = _prestart_refusal(sources)
            run.forks["database writer"] = not_now or FORKED
            if not not_now:
                _trim_heap()
                writer.append(full_write.prestart(die_with_parent))
                arrow_scope.callback(writer[0].cancel)

        return _full_graph(run, reason, probe, start_resolvers, start_arrow, start_writer,
                           writer)  # fmt: skip


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """numpy loaded (the full build's first import of it) in the environment that keeps its
    OpenBLAS to one thread (graph/__init__.py QUIET_BLAS), which the `graph` command sets for
    itself: called through the API (e.g. benchmarks/compare_speed.py) the build loaded it
    with a thread per other core, spinning ~0.04-0.06 s of this process's CPU beside the
    resolve host's build. Set for the load only, the caller's environment given back; a
    numpy already loaded, or a value the caller set, stays as it is."""
    added = {} if "numpy" in sys.modules else {k: v for k, v in QUIET_BLAS.items()
                                               if k not in os.environ}  # fmt: skip
    os.environ.update(added)
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def _prestart_refusal(sources: int) -> str:
    """Empty when the database writer is forked now (graph/full_write.py `prestart`), else why
    not: it keeps what this process holds at the fork (pages this process frees later stay
    the writer's until it ends), so only in a small tree's build (`sources`: the bytes its
    scan read), and only when no other thread runs. Otherwise it starts as a new interpreter
    when the tables are ready."""
    if sources > PRESTART_MAX_BYTES:
        limit = PRESTART_MAX_BYTES >> 20
        return f"a new interpreter later: {sources >> 20} MB of sources read, over {limit} MB"
    unsafe = fork_unsafe_reason()
    return f"a new interpreter later: {unsafe}" if unsafe else ""


def _trim_heap() -> None:
    """Give the C allocator's free pages back to the OS (glibc's malloc_trim; elsewhere
    nothing). Before the writer's fork: the pages of every source file's bytes, freed after
    the extraction but kept by the allocator, would be the writer's from the fork on (the
    builder's next allocations write them: each page then copied for the writer, which
    kept ~19 MB of Django's sources through the resolution, the build's peak)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def _save_sidecars(run: Run, gen: layout.Generation, st: GraphState, flags, kinds,
                   meta: dict) -> None:  # fmt: skip
    """The generation's sidecars (`Run.save_sidecars`), the unresolved call sites read from
    its pack here (by the tail's thread: `_Tail`)."""
    from codeimpact.indexer.full_graph import unresolved_sites

    run.save_sidecars(gen, st, flags, kinds, unresolved_sites(gen.path, st.resolved_refs), meta)


def _full_graph(run: Run, reason: str, probe: worktree.StatusProbe,
                start_resolvers: Callable[[], None], start_arrow: Callable[[], None],
                start_writer: Callable[[int], None],
                writer: list[full_write.Prestarted]) -> AnalyzeReport:  # fmt: skip
    t = time.perf_counter()
    token = secrets.token_hex(4)
    # the source bytes to read (a new index's by its workers: discover's sizes, none kept)
    sources = sum(r.size for r in run.records if not r.status.startswith("skipped:"))
    fed = _fed_host(run, token, sources, start_resolvers)
    try:
        # (the resolvers imported by the fed host, not here: this process resolves nothing)
        facts, parsed = run.facts_for(run.records, None if fed else start_resolvers,
                                      feed=fed and fed[0].send)  # fmt: skip
        if fed is None:
            start_resolvers()  # when every file's facts came from the cache
    except BaseException:
        if fed is not None:
            fed[0].cancel()
        raise
    # the source bytes read (their sizes as the workers read them)
    sources = sum(r.size for r in run.records if not r.status.startswith("skipped:"))
    run.data.clear()  # every source file's bytes (shared with the caller): last used here
    # the writer is forked once these are freed, as the graph is made (the resolve host
    # forked, building on one core: the fork is on no one's path), before the working
    # tree's fields are taken (their allocations would be the writer's too)
    begin = functools.cache(functools.partial(start_writer, sources))  # once
    run.phase("extract", t)
    t = time.perf_counter()
    graphs: list[full_graph.FullGraph] = []
    fields: list[dict] = []

    def the_graph() -> full_graph.FullGraph:
        # made once the resolve host is forked (`start_arrow`), or at the first resolved file
        if not graphs:
            start_arrow()
            # (a name of its own: _full_graph binds `full_graph` only after the resolution)
            from codeimpact.indexer import full_graph as graph_module

            graphs.append(graph_module.FullGraph(run.idx))
            begin()  # (the writer forked before the fields are taken: it keeps none of them)
            # and the working tree's Meta fields (git status's answer, the stat pass, the
            # tree signature: ~0.05 s of CPU, and a wait for git), taken while the host
            # builds on one core, not after the resolution (the serial end, as Meta was made)
            fields.append(tree_fields(run.repo, run.config, run.records, run.scanned_at, probe,
                                      listed=run.listed))  # fmt: skip
            run.listed = {}  # last read here
        return graphs[0]

    gens: list[layout.Generation] = []

    def begin_write() -> None:
        # the generation's folder, and a prestarted writer begun on it (it creates the
        # database and schema, ~0.05 s of its CPU on Django, then COPYs the File table
        # while this process finishes the graph), as the last resolved file comes: not
        # after the resolve host's end message, the shared summaries and the folder (~10 ms
        # of the serial end, the writer's work being the longest path from there)
        if not gens:
            gens.append(layout.next_generation(run.idx))
            if writer:
                writer[0].begin(gens[0], run.options.buffer_pool)
                writer[0].send([("File", file_table(run.records))])

    reap = _nothing
    try:
        modules, summaries, used, resolvers, reap = _resolve_all(run, facts, the_graph, token,
                                                                 begin, begin_write, fed)  # fmt: skip
        graph = the_graph()  # (no file came)
        from codeimpact.indexer import full_graph

        shared = staged(run.idx, token)
        # Millions of small objects: freeing them took 0.09 s on Django and gives the OS
        # no memory back. When memory allows they are freed by the tail's thread during
        # Kùzu's write, which leaves the GIL and one core to it (`_Tail`).
        held = [facts, resolvers]
        del facts, resolvers
        if not room_for_two(run.options):
            held.clear()
        begin_write()  # (no file came)
        gen = gens[0]
        # the Symbol table as soon as finish has made it: the writer COPYs it (~0.2 s on
        # Django) while this process makes the edges, Meta and the relations, which the
        # writer reads ahead
        content = graph.finish(
            (lambda symbols: writer[0].send(full_graph.symbol_slices(symbols)))
            if writer else None
        )  # fmt: skip
        reap()  # (the resolve host's exit ran beside the finish)
    except BaseException:
        if fed is not None:
            fed[0].cancel()  # (a no-op once its results were read)
        if graphs:
            graphs[0].abandon()
        if gens:
            if writer:  # stopped first: it may be making the database in the folder removed
                writer[0].cancel()
            layout.discard(gens[0])
        reap()  # (no child left behind)
        raise
    del graph
    graphs.clear()
    run.phase("resolve", t)
    t = time.perf_counter()
    incomplete = run.incomplete_files()
    try:
        st = full_graph.full_state(content, used, modules, summaries, gen)
        del used, modules, summaries  # (the state's now)
        st.shared = shared  # linked into the generation with the sidecars
        stats = run_stats(run.records, st.totals, parsed)
        meta = generation_meta(run.repo, run.digest, run.comps, incomplete, stats, "full",
                              run.config, run.records, run.scanned_at, fields=fields[0])  # fmt: skip
        flags, kinds = full_graph.node_arrays(content)
        n_resolved = content.n_resolved
        # the sidecars are written by the tail's thread while the database writer COPYs the
        # tables and commits on one core (this thread mostly waits for it): a child forked
        # here took ~12K page faults on Django, this process ~14K more (each page written
        # again after the fork). The state and node arrays are theirs alone: freed there
        # after them with the rest of `held`, not as this function returns
        held += [st, flags, kinds]
        tail = _Tail(run, gen, functools.partial(_save_sidecars, run, gen, st, flags, kinds, meta),
                     held)  # fmt: skip
        del st, flags, kinds, held
        try:
            # (a prestarted writer has the node tables: File at `begin`, Symbol from `finish`)
            nodes = () if writer else full_graph.node_tables(content, file_table(run.records))
            rels = full_graph.rel_tables(content)
            # (the graph's content: its last reference, dropped by the tail's thread)
            last = [content]
            del content
            prestarted = writer.pop() if writer else None
            rows = write_full_generation(gen, tail.after(nodes, rels, last,
                                                         early=prestarted is None),
                                         meta, run.options.buffer_pool, writer=prestarted)  # fmt: skip
            del prestarted, nodes, rels, last
            run.phase("write", t)
            t = time.perf_counter()
            checked = tail.result()
            for f in shared.values():  # linked into the generation
                f.unlink(missing_ok=True)
            run.phase("sidecars", t)
        finally:
            tail.join()  # (on an error: before the folder goes)
    except BaseException:
        layout.discard(gen)
        raise
    layout.publish(run.idx, gen, rows, run.cache.sealed_files(), checked=checked,
                   grown=run.cache.grown_files())  # fmt: skip
    # a new lineage: an older spare could not be brought to this generation. None is made
    # here (37.5 MB on Django, every full build): the first edit copies this database, and
    # the publish that replaces it keeps it as the spare of the edits after (graph/spare.py)
    spare.drop(run.idx)
    return run.report("full", gen.number, stats, incomplete, reason, n_resolved, meta)


class _Tail:
    """What the end of a full build can do while the database writer COPYs the tables,
    commits its one transaction and checkpoints (Kùzu, on one core: ~0.6 s of CPU on
    Django, ~40 s on the Linux kernel; this process mostly waits for it): a thread flushes
    the facts cache into the generation, writes the sidecars (`sidecars()`), starts the
    fsyncs deferred to `publish` (layout.sync_ahead), frees `held`, hashes the generation's
    files that are final (all but the database and the manifest) for the manifest
    (`publish`'s `checked`: reused while a file keeps its inode and size), drops `last`
    once the last table is sent (`after`) and runs the collection the run owes the caller's
    collector. Before, each came after the writer's answer, one core idle then too."""

    def __init__(self, run: Run, gen: layout.Generation, sidecars: Callable[[], None],
                 held: list) -> None:  # fmt: skip
        self._run, self._gen = run, gen
        self._sidecars: Callable[[], None] | None = sidecars
        self._held = held
        self._thread: threading.Thread | None = None
        self._checked: dict[str, list] = {}
        self._error: BaseException | None = None
        self._last: list = []
        self._sent = threading.Event()  # the last table sent (or the feed given up)

    def after(self, nodes: Iterable, rels: Iterable, last: list, *, early: bool) -> Iterator:
        """The node tables `nodes`, then the relation tables `rels`, the thread started
        between them (`early`) or once the last is sent; it empties `last` (the last
        references to what the tables are made of: the graph's ~120K uids by id, freed
        beside the commit, ~20 ms on Django, not after the answer) once they are all sent.
        Early where the relations' feed waits for the writer's COPYs until its last one (a
        new interpreter's: each table read once the COPY before it ended when it is larger
        than its read-ahead; the Linux kernel's sidecars, ~3.8 s, came after its answer),
        once the node tables are sent: their feed is the writer's wait (no relation is
        COPYed before them), and a thread holding the GIL slowed each write into the pipe
        by up to the switch interval. A prestarted writer's relations feed ends ~0.5 s
        before its answer on Django, the sidecars (~0.2 s) done by then: there they wait
        for the last table, whose making they raised this process's high-water mark over
        (170 -> 190 MB)."""
        self._last = last
        try:
            yield from nodes
            if early:
                self._start()
            yield from rels
        finally:
            self._sent.set()
        if not early:
            self._start()

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._work, name="codeimpact-tail", daemon=True)
        self._thread.start()

    def _written(self) -> None:
        """The facts cache and the sidecars written, the fsyncs started, `held` freed."""
        self._run.flush_facts(self._gen)
        sidecars, self._sidecars = self._sidecars, None  # (it holds the state: freed below)
        sidecars()
        del sidecars
        layout.sync_ahead(self._gen)  # (what fails there fails `publish`, as before)
        self._held.clear()

    def _work(self) -> None:
        if self._sent.is_set():
            self._last.clear()  # (when it can: freed before the sidecars' allocations)
        try:
            self._written()
        except BaseException as e:  # raised by `result`
            self._error = e
        else:
            self._checked = _final_checksums(self._gen)
        self._sent.wait()
        self._last.clear()
        if self._run.collecting:
            # the collection the caller's collector owes the run: every object made while it
            # was paused (the modules imported among them) is still young, and the first
            # allocation after the run walked them all (Django: a gen-0 pass of 9-13 ms CPU
            # on the build's serial end, after the writer's answer). Here, beside the
            # writer's COMMIT, it moves them on (generation 1: to the old objects)
            gc.collect(1)

    def join(self) -> None:
        self._sent.set()  # (a feed that raised may never have ended its tables)
        if self._thread is not None:
            self._thread.join()

    def result(self) -> dict[str, list]:
        """The checksums taken (name in the generation -> [size, xxh3]), the cache flushed
        and the sidecars written; here when the thread never started (no table was sent)."""
        if self._thread is None:
            self._written()
            return {}
        self.join()
        if self._error is not None:
            raise self._error
        return self._checked


def _final_checksums(gen: layout.Generation) -> dict[str, list]:
    """[size, xxh3] by name of the generation's files that are final (all but the database,
    files being written and the manifest); {} when one could not be read (only a help: the
    manifest hashes what it is not given)."""
    checked = {}
    try:
        for path in sorted(gen.path.rglob("*")):
            name = path.relative_to(gen.path).as_posix()
            if (name.startswith(layout.DB_FILENAME) or ".tmp" in path.name
                    or name == manifest.MANIFEST_NAME or not path.is_file()):  # fmt: skip
                continue
            size = path.stat().st_size
            checked[name] = [size, manifest.file_digest(path, size)]
    except OSError:
        return {}
    return checked


def _nothing() -> None:
    pass


class _Inputs:
    """What the resolvers are built from: the facts of every file, their languages and the
    paths in resolving order. The builder's are set once its facts are all made; a fed
    host's own (`_fed_host`), from its feed when the builder says `go`."""

    def __init__(self, facts: LazyFacts | None = None, lang_of: dict[str, str] | None = None,
                 order: list[str] | None = None) -> None:  # fmt: skip
        self.facts = facts
        self.lang_of = lang_of or {}
        self.order = order or []


def _host_for(run: Run, inputs: _Inputs, token: str, n_files: int) -> Host:
    """The resolve host of `inputs` (`n_files`: how many paths there are, or will be)."""

    def workers(projects: dict | None = None) -> int:
        return resolve_workers(run.options, n_files, resident_mb())

    def encoder(projects: dict) -> Callable[[str], tuple[bytes, bytes]]:
        return functools.partial(_resolve_encoded, projects, inputs.lang_of, inputs.facts)

    def build() -> dict:
        return make_projects(inputs.facts, inputs.lang_of, run.configs)

    def parted(modules: dict, summaries: dict[str, bytes]):
        make = functools.partial(part_resolver, inputs.facts, inputs.lang_of, run.configs,
                                 modules, summaries, staged(run.idx, token))  # fmt: skip
        return resolve_split(inputs.order, make, run.idx)

    def worth(projects: dict) -> bool:
        return worth_splitting(projects, lang_of=inputs.lang_of)

    # the shared summaries (C's name tables) are written as files once the projects are
    # built, by whichever process builds them: they never travel to this one
    built = functools.partial(stage_shared, folder=run.idx, token=token)
    order = inputs.order if inputs.facts is not None else None
    return Host(build, encoder, workers, order, built, (worth, parted),
                arrived=functools.partial(_arrived, run, inputs))  # fmt: skip


def _arrived(run: Run, inputs: _Inputs, decoded: dict, payload: bytes) -> list[str]:
    """A fed host's inputs, from what its feed brought (`_fed_host`): every path's facts
    decoded (asked for again once forgotten, they are extracted again from the file, as a
    blob damaged in the cache is: `facts_for`), and the languages and order `go` sent."""
    order, lang_of = marshal.loads(payload)
    root, max_size = str(run.repo), run.config.max_file_size

    def again(path: str):
        return facts_from_source(root, path, lang_of[path], max_size)

    inputs.facts, inputs.lang_of, inputs.order = LazyFacts(order, again, decoded), lang_of, order
    return order


def _fed_host(run: Run, token: str, sources: int,
              prepare: Callable[[], None]) -> tuple[Host, _Inputs] | None:  # fmt: skip
    """A resolve host started now, before the extraction, with a feed (its builder's
    inputs, to set once the facts are made), or None: it decodes each file's facts as the
    builder hands them on (`Host.send`), beside the extraction workers, not on the one core
    its build runs on after the extraction (indexer/resolve_feed.py). Not when a host would
    not resolve (too few files, or no memory for a worker), when a fork is unsafe, nor for
    a large tree (`sources`: bytes of source over PRESTART_MAX_BYTES): its decoded facts,
    held beside the extraction workers, would raise the build's peak of memory.
    `prepare()` runs in the host first (the resolvers imported)."""
    n = sum(1 for r in run.records if not r.status.startswith("skipped:"))
    if sources > PRESTART_MAX_BYTES or fork_unsafe_reason():
        return None
    if resolve_workers(run.options, n, resident_mb()) <= 1:
        return None
    inputs = _Inputs()
    host = _host_for(run, inputs, token, n)
    run.cache.settle()  # (nothing of the cache's left buffered in the host: it never writes)
    host.start(feed=True, prepare=prepare)
    return host, inputs


def _resolve_all(run: Run, facts: LazyFacts, the_graph: Callable[[], full_graph.FullGraph],
                 token: str, begin: Callable[[], None],
                 last: Callable[[], None] = lambda: None,
                 fed: tuple[Host, _Inputs] | None = None) -> tuple:  # fmt: skip
    """Resolve every file into the graph `the_graph()` makes (once the resolve host is
    forked, or first thing without one); returns the module names, the resolvers'
    summaries and each file's lookup keys (the shared summaries: files named by `token`,
    resolution.staged), the resolvers built here, and `reap()`, which waits for the resolve
    host's exit (left to exit beside the caller's work: called before it forks again).
    `begin()` runs once, before the first file is gathered; `last()` before the last one.
    `fed`: a host started with a feed (`_fed_host`) and its builder's inputs: it resolves
    the files when a host would, else it is stopped."""
    lang_of = {r.path: r.language for r in run.records}
    used: dict[str, bytes] = {}
    order = sorted(facts)

    def tick(i: int) -> None:
        if run.progress and (i % 64 == 0 or i == len(order)):
            run.progress("resolve", i, len(order))

    for stale in run.idx.glob(f"{SHARED_PREFIX}*.tmp"):  # of a build that died
        stale.unlink(missing_ok=True)
    workers = resolve_workers(run.options, len(order), resident_mb())
    if fed is not None and workers <= 1:
        fed[0].cancel()
        fed = None
    if workers > 1:  # built, resolved and freed by a host process (indexer/resolve_host.py)
        unsafe = "" if fed is not None else fork_unsafe_reason()
        run.forks["resolvers"] = in_process(unsafe) if unsafe else FORKED
        if fed is not None:
            host, inputs = fed
            inputs.facts, inputs.lang_of, inputs.order = facts, lang_of, order
            host.go(order, marshal.dumps((order, {p: lang_of[p] for p in order})))
        else:
            host = _host_for(run, _Inputs(facts, lang_of, order), token, len(order))
        graph = None
        for i, (path, blob, keys) in enumerate(host.results(fork=not unsafe, reap_later=True,
                                                            forked=the_graph), 1):  # fmt: skip
            if i == 1:
                graph = the_graph()
                begin()
            if i == len(order):
                last()
            graph.add_blob(path, blob)
            used[path] = keys
            tick(i)
        begin()  # (none came)
        if host.split:
            run.forks["resolve partitions"] = FORKED
        return host.modules, host.summaries, used, {}, host.reap
    graph = the_graph()
    begin()
    projects = make_projects(facts, lang_of, run.configs)
    stage_shared(projects, folder=run.idx, token=token)
    for i, path in enumerate(order, 1):
        if i == len(order):
            last()
        project = projects[lang_of[path]]
        graph.add(project.resolve_file(path))
        used[path] = lookup_keys_blob(facts[path])
        release = getattr(project, "release", None)
        if release is not None:
            release(path)
        facts.forget(path)  # decoded for this file's resolution: not needed again
        tick(i)
    # the collector is paused for the run: the resolvers' indexes (every file's facts
    # among them) must be free of reference cycles to be freed when the caller drops them
    return module_names(projects), summaries_of(projects), used, projects, _nothing
