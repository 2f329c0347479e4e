"""Random byte damage to any file of an index never gives a different answer, never a crash.

Each case copies a small indexed repository, damages one file of its index (a flipped bit,
a cut, a run of zeros, or the file deleted), and asks the command line five questions and
`status --check` in a child process: each must answer exactly as the undamaged index does
or refuse in one line (exit 2), a damaged generation file must make the index stale
(exit 1), and nothing may crash. Then a plain `graph analyze` must repair it: fresh, and
the same answers. The exhaustive sweep (every file, every kind) is
benchmarks/damage_sweep.py.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import damage


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    repo = damage.build(tmp_path_factory.mktemp("damage"))
    good = damage.ask(repo)
    assert not good.crash and all(v[0] == 0 for v in good.by_question.values()), good
    return repo, good, damage.index_files(repo)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    pick=st.integers(0, 10_000),
    kind=st.sampled_from(damage.KINDS),
    where=st.floats(0, 1),
    length=st.integers(1, 4096),
)
def test_damage_never_changes_an_answer_and_analyze_repairs_it(
    template, tmp_path_factory, pick, kind, where, length
):
    repo, good, files = template
    name = files[pick % len(files)]
    copy = damage.copy_index(repo, tmp_path_factory.mktemp("case") / "repo")
    changed = damage.damage(copy / ".codeimpact" / name, kind, where, length)

    got = damage.ask(copy)
    assert damage.problems(good, got, changed, damage.covered(name)) == [], (name, kind)

    proc = damage.graph("analyze", "--index-only", str(copy))
    assert proc.returncode == 0, (name, kind, proc.stderr)
    repaired = damage.ask(copy)
    assert not repaired.crash and repaired.by_question["status"][0] == 0, (name, kind, repaired)
    assert damage.problems(good, repaired, False, False) == [], (name, kind)
    assert all(v[0] == 0 for v in repaired.by_question.values()), (name, kind)
