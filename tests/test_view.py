"""`graph view`: a self-contained HTML page, checked for its data and rendered in headless Chromium.

Chromium (Debian's `chromium`) runs the page's own script: the dumped DOM must hold
one drawn node per symbol (and the filters and the details panel must act on it),
and the screenshot must show the drawn graph (the target's colours in the graph area).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from codeimpact.cli import main
from conftest import git, write_files

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
WIDTH, HEIGHT = 1200, 800
ODD = "pkg/odd<b>&'x.py"  # a file name that must stay text in the page, never markup

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": """
        def helper(x):
            return x + 1


        class Engine:
            def run(self):
                return helper(1)

            def stop(self):
                return 0
        """,
    "pkg/app.py": """
        from pkg.core import Engine, helper


        def main():
            return Engine().run() + helper(2)


        def twice():
            return main() + main()
        """,
    ODD: "from pkg.app import main\n\n\ndef weird():\n    return main()\n",
    "tests/test_app.py": """
        from pkg.app import main


        def test_main():
            assert main() == 5
        """,
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("view") / "repo"
    root.mkdir()
    write_files(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    res = CliRunner().invoke(main, ["analyze", "--index-only", str(root)])
    assert res.exit_code == 0, res.output
    return root


def cli(*args: str, code: int = 0):
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == code, res.output
    return res


def write_view(repo: Path, out: Path, target: str, *extra: str) -> dict:
    res = cli("view", target, "--out", str(out), "--repo", str(repo), *extra)
    assert res.stdout.startswith("wrote ")
    return embedded(out.read_text())


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert "<" not in m.group(1)  # no markup can leave the data block
    return json.loads(m.group(1))


def impact_uids(repo: Path, target: str, direction: str) -> set[str]:
    res = cli(
        "impact", target, "--direction", direction, "--include-tests", "--limit", "0",
        "--json", "--repo", str(repo),
    )  # fmt: skip
    data = json.loads(res.stdout)
    return {e["uid"] for g in data["groups"] for e in g["entries"]}


# ---------------------------------------------------------------------- the file
def test_page_is_self_contained(repo, tmp_path):
    out = tmp_path / "v.html"
    write_view(repo, out, "pkg/app.py::main")
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # Nothing is fetched: no external script, style, image or font, and a CSP that forbids it.
    assert not re.search(r"<script[^>]*\bsrc=|<link\b|<img\b|@import|<iframe", page)
    assert all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", page))  # in-page refs
    assert re.findall(r"https?://[^\s\"'`]+", page) == ["http://www.w3.org/2000/svg"]
    assert "default-src 'none'" in page


def test_page_holds_the_impact_neighbourhood(repo, tmp_path):
    data = write_view(repo, tmp_path / "v.html", "pkg/app.py::main")
    nodes = {n["uid"]: n for n in data["nodes"]}
    up = impact_uids(repo, "pkg/app.py::main", "upstream")
    down = impact_uids(repo, "pkg/app.py::main", "downstream")
    assert up and down
    assert set(nodes) == {"pkg/app.py::main"} | up | down
    assert nodes["pkg/app.py::main"]["side"] == "target"
    assert {u for u, n in nodes.items() if n["side"] == "upstream"} == up - down
    assert nodes["tests/test_app.py::test_main"]["is_test"] is True
    assert "pkg/odd<b>&'x.py::weird" in up  # the odd name is data, intact
    # Every edge joins drawn nodes, and each node's BFS edge is among them.
    pairs = {(e["src"], e["dst"]) for e in data["edges"]}
    assert all(a in nodes and b in nodes for a, b in pairs)
    for n in nodes.values():
        if n["side"] == "upstream":
            assert (n["uid"], n["path"][1]) in pairs
        elif n["side"] == "downstream":
            assert (n["path"][1], n["uid"]) in pairs
    assert {e["relation"] for e in data["edges"]} >= {"CALLS", "IMPORTS"}


def test_a_class_target_shows_its_members(repo, tmp_path):
    data = write_view(repo, tmp_path / "v.html", "Engine", "--depth", "1")
    sides = {n["uid"]: n["side"] for n in data["nodes"]}
    assert sides["pkg/core.py::Engine"] == "target"
    assert sides["pkg/core.py::Engine.run"] == "member"
    contains = {(e["src"], e["dst"]) for e in data["edges"] if e["relation"] == "CONTAINS"}
    assert ("pkg/core.py::Engine", "pkg/core.py::Engine.run") in contains
    assert all(n["depth"] <= 1 for n in data["nodes"])


def test_no_tests_and_bad_input(repo, tmp_path):
    data = write_view(repo, tmp_path / "v.html", "pkg/app.py::main", "--no-tests")
    assert not any(n["is_test"] for n in data["nodes"])
    err = cli("view", "nosuch", "--repo", str(repo), "--out", str(tmp_path / "x.html"), code=4)
    assert err.stderr.count("\n") == 1 and "no symbol matches 'nosuch'" in err.stderr
    err = cli("view", "helper", "--repo", str(repo), "--out", str(tmp_path / "no/x.html"), code=2)
    assert err.stderr.startswith("graph: cannot write ") and err.stderr.count("\n") == 1
    assert not (tmp_path / "x.html").exists()


# ---------------------------------------------------------------------- in Chromium
def chromium(url: str, *args: str) -> subprocess.CompletedProcess:
    profile = Path(url.split("#")[0].removeprefix("file://")).parent / "profile"
    return subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}",
            "--virtual-time-budget=5000", *args, url,
        ],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def dump_dom(url: str) -> str:
    res = chromium(url, "--dump-dom")
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def drawn(dom: str) -> dict:
    svg = re.search(r'<svg id="graph"[^>]*>', dom).group(0)
    return {
        "rendered": int(re.search(r'data-rendered="(\d+)"', svg).group(1)),
        "edges": int(re.search(r'data-edges="(\d+)"', svg).group(1)),
        "nodes": re.findall(r'<g class="node[^"]*"[^>]*data-uid="([^"]*)"', dom),
        "paths": dom.count('<path d="M') - 2,  # less the two arrow-head shapes
    }


@needs_chromium
def test_chromium_runs_the_viewer(repo, tmp_path):
    out = tmp_path / "v.html"
    data = write_view(repo, out, "pkg/app.py::main")
    dom = dump_dom(out.as_uri())
    assert '<body data-ready="1">' in dom  # the script ran to its end
    assert "<title>codeimpact: impact of function pkg.app.main</title>" in dom
    d = drawn(dom)
    uids = [html.unescape(u) for u in d["nodes"]]
    assert sorted(uids) == sorted(n["uid"] for n in data["nodes"])
    assert d["rendered"] == len(data["nodes"])
    assert d["edges"] == d["paths"] == len(data["edges"])
    # The odd file name is text in an SVG <text>, never markup.
    assert "pkg.odd&lt;b&gt;&amp;'x.weird" in dom
    assert "<b>" not in dom
    assert re.search(r'id="f-relations">.*CALLS \(\d+\).*IMPORTS \(\d+\)', dom, re.S)


@needs_chromium
def test_filters_and_details_act_on_the_graph(repo, tmp_path):
    """The address sets the filters and the selected node (as the controls and a click do)."""
    out = tmp_path / "v.html"
    data = write_view(repo, out, "pkg/app.py::main")
    up1 = [n for n in data["nodes"] if n["side"] == "upstream" and n["depth"] == 1]
    only_up1 = drawn(dump_dom(out.as_uri() + "#depth=1&sides=upstream"))
    assert only_up1["rendered"] == 1 + len(up1)  # the target and the dependents at d=1
    calls_only = drawn(dump_dom(out.as_uri() + "#relations=CALLS"))
    called = {n["uid"] for n in data["nodes"] if n["relation"] == "CALLS" or n["side"] == "target"}
    assert sorted(html.unescape(u) for u in calls_only["nodes"]) == sorted(called)
    no_tests = drawn(dump_dom(out.as_uri() + "#tests=0"))
    assert no_tests["rendered"] == len([n for n in data["nodes"] if not n["is_test"]])

    dom = dump_dom(out.as_uri() + "#select=pkg/app.py::twice")
    details = re.search(r'<div id="details">(.*?)</div>', dom, re.S).group(1)
    assert "<dt>name</dt><dd>pkg.app.twice</dd>" in details
    assert "<dt>position</dt><dd>upstream, d=1</dd>" in details
    assert "<dt>reached by</dt><dd>CALLS (confidence 1.00)</dd>" in details
    assert 'class="node selected" transform' in dom
    assert dom.count('class="edge hl"') == len(
        [e for e in data["edges"] if "pkg/app.py::twice" in (e["src"], e["dst"])]
    )


def decode_png(path: Path) -> np.ndarray:
    """The pixels (height, width, channels) of an 8-bit RGB or RGBA PNG."""
    raw_file = path.read_bytes()
    assert raw_file[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(raw_file):
        (n,) = struct.unpack(">I", raw_file[pos : pos + 4])
        kind, body = raw_file[pos + 4 : pos + 8], raw_file[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, bits, colour, _, _, interlace = ihdr
    assert bits == 8 and colour in (2, 6) and interlace == 0, ihdr
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(idat)
    rows = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int64)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        if kind == 0:
            cur = line
        elif kind == 1:  # Sub: a running sum per channel
            cur = np.cumsum(line.reshape(width, bpp), axis=0).reshape(-1) % 256
        elif kind == 2:  # Up
            cur = (line + prev) % 256
        else:  # Average, Paeth: each byte needs the one just decoded
            cur = np.zeros(stride, np.int64)
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                if kind == 3:
                    cur[i] = (line[i] + (a + b) // 2) % 256
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                    cur[i] = (line[i] + pred) % 256
        rows[y] = cur
        prev = cur
    return rows.reshape(height, width, bpp)


@needs_chromium
def test_screenshot_shows_the_graph(repo, tmp_path):
    out = tmp_path / "v.html"
    write_view(repo, out, "pkg/app.py::main")
    shot = tmp_path / "v.png"
    res = chromium(out.as_uri(), f"--screenshot={shot}")
    assert res.returncode == 0 and shot.exists(), res.stderr[-2000:]
    pixels = decode_png(shot)[:, :, :3]
    assert pixels.shape == (HEIGHT, WIDTH, 3)
    graph_area = pixels[:, 320:]  # right of the 300px side panel

    def count(rgb) -> int:
        return int(np.all(graph_area == rgb, axis=-1).sum())

    assert count((255, 224, 224)) > 200, "the target's fill is not drawn"
    assert count((204, 0, 0)) > 20, "the target's outline is not drawn"
    assert count((244, 246, 250)) > 1000, "the other nodes are not drawn"
    assert count((227, 245, 225)) > 200, "the test node is not drawn"
    # And the page without its script draws no graph at all: the script did it.
    page = out.read_text()
    start = page.index("<script>\n")
    scriptless = tmp_path / "scriptless.html"
    scriptless.write_text(page[:start] + page[page.index("</script>", start) + 9 :])
    bare = tmp_path / "bare.png"
    res = chromium(scriptless.as_uri(), f"--screenshot={bare}")
    assert res.returncode == 0 and bare.exists(), res.stderr[-2000:]
    bare_area = decode_png(bare)[:, 320:, :3]
    assert int(np.all(bare_area == (255, 224, 224), axis=-1).sum()) == 0


def test_without_output_the_page_goes_to_a_new_temporary_file_never_the_repository(
    repo, tmp_path, monkeypatch
):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where tempfile puts it
    monkeypatch.chdir(repo)  # run from inside the repository, as a user would
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    before = sorted(p.relative_to(repo) for p in repo.rglob("*") if ".codeimpact" not in p.parts)
    first = cli("view", "pkg/app.py::main").stdout
    second = cli("view", "--output", str(tmp_path / "mine.html"), "pkg/app.py::main").stdout
    after = sorted(p.relative_to(repo) for p in repo.rglob("*") if ".codeimpact" not in p.parts)
    assert after == before  # nothing written into the repository
    written = Path(first.split()[1].rstrip(":"))
    assert written.parent == tmp_path and written.name.startswith("codeimpact-view-")
    assert embedded(written.read_text())["target"] == "pkg/app.py::main"
    assert second.startswith(f"wrote {tmp_path / 'mine.html'}:")
    assert (tmp_path / "mine.html").is_file()
    again = Path(cli("view", "pkg/app.py::main").stdout.split()[1].rstrip(":"))
    assert again != written  # a new file each time: an open page is never overwritten
