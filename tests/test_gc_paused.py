"""indexer/run.py gc_paused: the collector is off during a run and given back after it with
the objects the run left alive already old, so that the caller's next allocation does not
collect them all at once (the serial end of every API run); a caller's own frozen objects
stay frozen."""

from __future__ import annotations

import gc

import pytest

from codeimpact.indexer.run import gc_paused


@pytest.fixture
def collector():
    was = gc.isenabled()
    gc.enable()
    gc.collect()
    yield
    if not was:
        gc.disable()


def _in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation=generation))


def test_what_a_run_leaves_alive_is_old_when_the_collector_comes_back(collector):
    with gc_paused():
        assert not gc.isenabled()
        made = [[i] for i in range(5000)]  # (lists: tracked by the collector)
        young = gc.get_count()[0]
    assert gc.isenabled()
    assert young > 5000 > gc.get_count()[0]  # no collection of them pending
    assert _in_generation(made[0], 2) and _in_generation(made[-1], 2)
    # still collected when they become garbage: a cycle among them goes at a full collection
    made[0].append(made[0])
    del made
    assert gc.collect() >= 1


def test_a_callers_frozen_objects_stay_frozen(collector):
    kept = [[i] for i in range(100)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            made = [[i] for i in range(100)]
        assert gc.get_freeze_count() == frozen
        assert not any(_in_generation(kept[0], g) for g in range(3))
        assert _in_generation(made[0], 0)  # (left as the collector would have it)
    finally:
        gc.unfreeze()


def test_a_collector_the_caller_turned_off_stays_off():
    was = gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
