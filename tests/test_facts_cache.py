"""The facts cache: one pack per runner identity, an index written once per run."""

from __future__ import annotations

from codeimpact.indexer.facts_cache import SLACK, FactsCache

IDENTITY = "ab" * 32


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
    assert FactsCache(tmp_path, IDENTITY).get("h1") is None
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
