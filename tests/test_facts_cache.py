"""The facts cache: one pack per runner identity, an index written once per run (into the
generation the run publishes: here one folder `gen`, read and written again by each)."""

from __future__ import annotations

import pytest
from test_delta_rows import CHAIN, chain_repo  # noqa: F401 - a fixture
from test_incremental import assert_same_as_full, run

from codeimpact.graph import layout, manifest
from codeimpact.indexer import facts_cache, full_run
from codeimpact.indexer.facts_cache import SLACK

IDENTITY = "ab" * 32


def FactsCache(root, identity):  # noqa: N802 - the class, over one generation folder
    (root / "gen").mkdir(parents=True, exist_ok=True)
    cache = facts_cache.FactsCache(root, identity, root / "gen")
    flush = cache.flush
    cache.flush = lambda live: flush(live, root / "gen")
    return cache


def test_blobs_survive_a_flush_and_a_new_process(tmp_path):
    cache = FactsCache(tmp_path, IDENTITY)
    cache.put("h1", b"one")
    cache.put("h2", b"two")
    assert cache.get("h1") == b"one"  # readable in the run that put it, before the flush
    cache.flush({"h1", "h2"})
    cache.close()
    again = FactsCache(tmp_path, IDENTITY)
    assert (again.get("h1"), again.get("h2"), again.get("h3")) == (b"one", b"two", None)


def test_what_a_killed_run_appended_is_ignored_and_cut_off(tmp_path):
    cache = FactsCache(tmp_path, IDENTITY)
    cache.put("h1", b"one")
    cache.flush({"h1"})
    cache.put("lost", b"appended, never indexed")
    cache._writer.flush()  # on disk, as a killed run may leave it
    # the run dies here: no flush, no close
    later = FactsCache(tmp_path, IDENTITY)
    assert later.get("lost") is None
    later.put("h2", b"two")
    later.flush({"h1", "h2"})
    later.close()
    pack = next(tmp_path.joinpath("facts").glob("*.pack"))
    assert pack.read_bytes() == b"onetwo"


def test_a_pack_mostly_dead_is_rewritten_with_the_live_blobs(tmp_path):
    cache = FactsCache(tmp_path, IDENTITY)
    dead = b"x" * (SLACK + 1)
    cache.put("old1", dead)
    cache.put("old2", dead)
    cache.put("live", b"kept")
    cache.flush({"live"})
    cache.close()
    packs = list(tmp_path.joinpath("facts").glob("*.pack"))
    assert len(packs) == 1 and packs[0].read_bytes() == b"kept"
    again = FactsCache(tmp_path, IDENTITY)
    assert (again.get("live"), again.get("old1")) == (b"kept", None)


def test_clear_keeps_the_old_cache_until_the_new_one_is_flushed(tmp_path):
    cache = FactsCache(tmp_path, IDENTITY)
    cache.put("h1", b"one")
    cache.flush({"h1"})
    cache.close()
    forced = FactsCache(tmp_path, IDENTITY)
    forced.clear()
    assert forced.get("h1") is None  # a --force run reads nothing cached
    forced.put("h2", b"two")
    # killed before its flush: the previous cache is still whole
    assert FactsCache(tmp_path, IDENTITY).get("h1") == b"one"
    forced.flush({"h2"})
    forced.close()
    after = FactsCache(tmp_path, IDENTITY)
    assert (after.get("h1"), after.get("h2")) == (None, b"two")
    # the old pack stays until a flush after the publish of the forced run's generation
    assert len(list(tmp_path.joinpath("facts").glob("*.pack"))) == 2
    after.flush({"h2"})
    assert len(list(tmp_path.joinpath("facts").glob("*.pack"))) == 1


def test_a_forced_run_that_stores_nothing_empties_the_cache(tmp_path):
    # `analyze --force` of a tree with no parseable file: clear() and no put, so no pack
    # was opened (this flush raised AttributeError on the missing writer)
    cache = FactsCache(tmp_path, IDENTITY)
    cache.put("h1", b"one")
    cache.flush({"h1"})
    cache.close()
    forced = FactsCache(tmp_path, IDENTITY)
    forced.clear()
    forced.flush(set())
    forced.close()
    after = FactsCache(tmp_path, IDENTITY)
    assert after.get("h1") is None
    after.flush(set())  # (the old pack goes at the next flush: see above)
    assert list(tmp_path.joinpath("facts").glob("*.pack")) == []
    FactsCache(tmp_path, IDENTITY).clear()  # and from no cache at all
    never = FactsCache(tmp_path / "none", IDENTITY)
    never.clear()
    never.flush(set())


def test_other_identities_are_pruned(tmp_path):
    mine, other = FactsCache(tmp_path, IDENTITY), FactsCache(tmp_path, "cd" * 32)
    for cache in (mine, other):
        cache.put("h", b"blob")
        cache.flush({"h"})
        cache.close()
    mine.prune_other_identities()
    assert FactsCache(tmp_path, "cd" * 32).get("h") is None
    assert FactsCache(tmp_path, IDENTITY).get("h") == b"blob"


def _pack(root):
    return next(root.joinpath("facts").glob("*.pack"))


def test_a_damaged_blob_is_dropped_and_stored_again(tmp_path):
    cache = FactsCache(tmp_path, IDENTITY)
    cache.put("h1", b"first blob")
    cache.put("h2", b"second blob")
    cache.flush({"h1", "h2"})
    cache.close()
    pack = _pack(tmp_path)
    data = bytearray(pack.read_bytes())
    data[2] ^= 0x20  # one flipped bit in h1's bytes
    pack.write_bytes(bytes(data))
    later = FactsCache(tmp_path, IDENTITY)
    assert later.get("h1") is None  # never handed out as facts
    assert later.get("h2") == b"second blob"
    later.put("h1", b"first blob")  # extracted again: stored again, not skipped as known
    later.flush({"h1", "h2"})
    later.close()
    again = FactsCache(tmp_path, IDENTITY)
    assert (again.get("h1"), again.get("h2")) == (b"first blob", b"second blob")


def test_a_pack_cut_short_keeps_the_blobs_before_the_cut(tmp_path):
    cache = FactsCache(tmp_path, IDENTITY)
    for i in range(4):
        cache.put(f"h{i}", f"blob number {i}".encode())
    cache.flush({f"h{i}" for i in range(4)})
    cache.close()
    pack = _pack(tmp_path)
    size = len(b"blob number 0")
    pack.write_bytes(pack.read_bytes()[: 2 * size + 3])  # h0, h1 whole; h2 cut
    later = FactsCache(tmp_path, IDENTITY)
    got = [later.get(f"h{i}") for i in range(4)]
    assert got == [b"blob number 0", b"blob number 1", None, None]
    later.put("h2", b"blob number 2")
    later.flush({"h0", "h1", "h2"})
    assert later.sealed_files()["facts/" + pack.name] == 3 * size
    later.close()
    again = FactsCache(tmp_path, IDENTITY)
    assert again.get("h2") == b"blob number 2" and again.get("h0") == b"blob number 0"


def test_an_older_index_beside_the_packs_is_read_then_left_behind(tmp_path):
    # an index written by an older codeimpact (beside the packs, not in the generation):
    # read (its blobs are checked as any), kept while the live generation names it
    cache = FactsCache(tmp_path, IDENTITY)
    cache.put("h1", b"one")
    cache.flush({"h1"})
    cache.close()
    gen_index = tmp_path / "gen" / cache.index_name
    older = tmp_path / "facts" / f"{cache.name}.index"
    gen_index.rename(older)
    later = FactsCache(tmp_path, IDENTITY)
    assert later.get("h1") == b"one"
    later.put("h2", b"two")
    later.flush({"h1", "h2"})
    later.close()
    assert older.exists() and gen_index.exists()
    after = FactsCache(tmp_path, IDENTITY)
    assert (after.get("h1"), after.get("h2")) == (b"one", b"two")
    after.flush({"h1", "h2"})
    assert not older.exists()


# ---------------------------------------------------------------- with the generations


def _live(repo):
    """The live generation, its manifest and the bytes it checks of each file it names."""
    idx = layout.index_dir(repo)
    gen = layout.read_current(idx)
    found = manifest.load(gen.path, gen.manifest, gen.number)
    checked = {}
    for name, entry in found.files.items():
        with open(idx / name, "rb") as fh:
            checked[name] = fh.read(entry.size)
    return gen, found, checked


def _assert_still(repo, before) -> None:
    gen, found, checked = _live(repo)
    assert gen == before[0] and checked == before[2]
    assert manifest.verify(gen.path, found, trust_stamp=False).damage == []


def test_an_edit_failing_after_its_facts_flush_leaves_the_live_generation_whole(
    chain_repo,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    # the flush wrote the facts index the live generation's manifest checks (beside the
    # generations): the next run found it "damaged" and rebuilt in full (test_delta_rows'
    # failing run did when the tree fields' child was late: its side files come first then)
    from codeimpact.indexer import incremental_run, worktree

    before = _live(chain_repo)
    (pack,) = [n for n in before[2] if n.endswith(".pack")]
    flushed = []
    real = facts_cache.FactsCache.flush

    def flush(self, *args):
        real(self, *args)
        flushed.append(args)

    def generation_meta(*args, **kwargs):
        raise RuntimeError("the Meta failed")

    monkeypatch.setattr(facts_cache.FactsCache, "flush", flush)
    monkeypatch.setattr(incremental_run, "generation_meta", generation_meta)
    monkeypatch.setattr(worktree.EarlyFields, "ready", lambda self: False)  # side files first
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    with pytest.raises(RuntimeError, match="the Meta failed"):
        run(chain_repo)
    monkeypatch.undo()
    idx = layout.index_dir(chain_repo)
    assert flushed and (idx / pack).stat().st_size > len(before[2][pack])  # a new blob
    _assert_still(chain_repo, before)
    report = run(chain_repo)
    assert report.mode == "incremental", report.reason
    assert_same_as_full(chain_repo, tmp_path, with_answers=False)


def test_a_forced_build_failing_after_its_flush_leaves_the_live_pack(chain_repo, monkeypatch):  # noqa: F811
    # `--force` starts a new pack: its flush deleted the one the live generation names
    before = _live(chain_repo)

    def publish(*args, **kwargs):
        raise RuntimeError("the publish failed")

    monkeypatch.setattr(full_run.layout, "publish", publish)
    with pytest.raises(RuntimeError, match="the publish failed"):
        run(chain_repo, force=True)
    monkeypatch.undo()
    _assert_still(chain_repo, before)
    (chain_repo / "chain.py").write_text(CHAIN.replace("return f20()", "return f0()"))
    report = run(chain_repo)
    assert report.mode == "incremental", report.reason
