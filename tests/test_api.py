"""The façade and the CLI over it: same data, documented JSON shapes, clean errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner
from test_impact import build

import codeimpact
from codeimpact.cli import main, to_jsonable


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return build(tmp_path_factory.mktemp("api") / "shop")


@pytest.fixture(scope="module")
def index(repo):
    with codeimpact.Index.open(repo) as ix:
        yield ix


def cli(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_facade_exports_the_api_and_its_dataclasses(index):
    for name in codeimpact.__all__:
        assert getattr(codeimpact, name) is not None
    with pytest.raises(AttributeError):
        codeimpact.no_such_thing  # noqa: B018
    result = index.impact("round_money")
    assert isinstance(result, codeimpact.ImpactResult)
    assert isinstance(result.groups[0], codeimpact.DepthGroup)
    assert isinstance(result.groups[0].entries[0], codeimpact.ImpactEntry)
    assert isinstance(index.blast_radius(["round_money"]), codeimpact.BlastRadiusResult)
    assert isinstance(index.deps("round_money"), codeimpact.DepsResult)
    assert isinstance(index.context("round_money"), codeimpact.ContextResult)
    assert isinstance(index.trace("buy", "round_money"), codeimpact.TraceResult)
    assert isinstance(index.cycles(), codeimpact.CyclesResult)
    # the function detect-changes calls with uids
    union = codeimpact.blast_radius(index, ["shop/models.py::round_money"], limit=0)
    assert union.counts.total == result.counts.total


@pytest.mark.parametrize(
    "args, schema, call",
    [
        (
            ["impact", "round_money", "--depth", "2"],
            "impact",
            lambda ix: ix.impact("round_money", depth=2, limit=20),
        ),
        (
            ["impact", "api/views.py::buy", "--direction", "downstream", "--relation", "CALLS"],
            "impact",
            lambda ix: ix.impact("api/views.py::buy", "downstream", relation="CALLS", limit=20),
        ),
        (
            ["blast-radius", "round_money", "shop/cart.py::Cart.__init__"],
            "blast-radius",
            lambda ix: ix.blast_radius(["round_money", "shop/cart.py::Cart.__init__"], limit=20),
        ),
        (["deps", "apply_tax"], "deps", lambda ix: ix.deps("apply_tax", limit=20)),
        (["context", "Cart"], "context", lambda ix: ix.context("Cart", limit=20)),
        (["trace", "buy", "round_money"], "trace", lambda ix: ix.trace("buy", "round_money")),
        (["cycles"], "cycles", lambda ix: ix.cycles(limit=20)),
    ],
)
def test_cli_json_is_the_api_result(repo, index, args, schema, call):
    code, out, err = cli(*args, "--repo", str(repo), "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert list(payload)[0] == "schema" and payload["schema"] == f"codeimpact.{schema}/1"
    assert "freshness" in payload
    api = {"schema": f"codeimpact.{schema}/1", **to_jsonable(call(index))}
    # the same answer; the API's long-open index may have decided freshness by its watch
    assert payload["freshness"].pop("method") == "stat"
    assert api["freshness"].pop("method") in ("stat", "watch")
    assert payload == api


def test_human_impact_output(repo):
    code, out, _ = cli("impact", "round_money", "--repo", str(repo), "--limit", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "impact of function shop.models.round_money (shop/models.py:13)"
    assert "risk MEDIUM: modules 2 >= 2 (MEDIUM); untested 3 >= 1 (MEDIUM)" in lines
    assert (
        "7 dependents (1 direct) in 3 files, 2 modules; 1 test in 1 file reach it; 3 untested"
        in lines
    )
    # counts come before the lists, and a cut list says how much is left
    assert lines.index("d=1 WILL BREAK (1)") > lines.index(
        "completeness: lower-bound (1 unresolved call site might add to it)"
    )
    assert "d=2 LIKELY AFFECTED (3)" in lines
    assert out.count("... and 2 more") == 3  # two groups of three, and the files
    assert str(repo) not in out  # paths are relative to the repository


def test_human_output_of_the_other_commands(repo):
    code, out, _ = cli("deps", "apply_tax", "--repo", str(repo))
    assert code == 0 and "used by (upstream) (3)" in out and "uses (downstream) (1)" in out
    code, out, _ = cli("context", "apply_tax", "--repo", str(repo))
    assert code == 0
    assert "   9  def apply_tax(amount):" in out and "callers (2)" in out
    code, out, _ = cli("trace", "buy", "round_money", "--repo", str(repo))
    assert code == 0 and out.splitlines()[0] == "api.views.buy -> shop.models.round_money (3 hops):"
    code, out, _ = cli("blast-radius", "round_money", "Cart.__init__", "--repo", str(repo))
    assert code == 0 and "test files to run (1)\n  tests/test_cart.py" in out
    code, out, _ = cli("cycles", "--repo", str(repo))
    assert code == 0 and out.strip().endswith("0 import cycles")


@pytest.mark.parametrize(
    "args, message",
    [
        (["impact", "round_money", "--depth", "0"], "depth must be a whole number >= 1, got 0"),
        (
            ["impact", "round_money", "--direction", "up"],
            "direction must be upstream or downstream",
        ),
        (["impact", "round_money", "--relation", "CALS"], "unknown relation 'CALS'"),
        (
            ["deps", "round_money", "--min-confidence", "2"],
            "min-confidence must be between 0 and 1",
        ),
        (["context", "round_money", "--limit", "-3"], "limit must be a whole number >= 0"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(repo, args, message):
    code, out, err = cli(*args, "--repo", str(repo))
    assert code == 2
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_no_index_and_stale_index(tmp_path, repo):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = cli("impact", "x", "--repo", str(empty))
    assert code == 2 and "no index" in err
    stale = build(tmp_path / "stale")
    (stale / "shop" / "models.py").write_text("x = 1\n")
    code, out, err = cli("impact", "round_money", "--repo", str(stale), "--json")
    assert code == 0
    assert json.loads(out)["freshness"]["fresh"] is False
    code, _, err = cli("impact", "round_money", "--repo", str(stale), "--require-fresh")
    assert code == 1 and "stale" in err


def test_queries_never_write_the_index(tmp_path):
    repo = build(tmp_path / "shop")
    with codeimpact.Index.open(repo) as ix:
        gen_dir = ix.reader.gen.path

    def query() -> subprocess.CompletedProcess:
        # a real process: whatever it checks, it writes nothing (no stamp, no snapshot)
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "codeimpact",
                "impact",
                "round_money",
                "--repo",
                str(repo),
                "--json",
            ],  # fmt: skip
            capture_output=True,
            text=True,
            env={**os.environ, "CODEIMPACT_DEBUG": ""},
        )

    def files() -> list:
        return sorted(
            (p.relative_to(repo), p.stat().st_mtime_ns) for p in (repo / ".codeimpact").rglob("*")
        )

    # stamps out of date (the checksums are computed again): still nothing written
    (gen_dir / "verified.json").unlink()
    before = files()
    out = query()
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["counts"]["total"] == 7
    assert files() == before
    # a damaged snapshot: refused in one line, nothing written
    shutil.rmtree(gen_dir / "csr")
    before = files()
    out = query()
    assert out.returncode == 2 and "damaged" in out.stderr and out.stderr.count("\n") == 1
    assert files() == before
