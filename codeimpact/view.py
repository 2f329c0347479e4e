"""`graph view TARGET`: one self-contained HTML page with the impact neighbourhood of TARGET.

The page needs no network: the data is embedded as JSON and the small viewer
(SVG, pan, zoom, click for details, filters by relation, direction and depth) is
inline. Layout is by depth: dependents to the left (d=1 nearest), the target in
the middle, dependencies to the right, so every arrow ("depends on") points right.

Nodes come from two impact queries (upstream and downstream, to `depth`); edges
are every edge of the followed relations between drawn nodes, read from the graph
with one parameterised query, so the picture shows more than the BFS tree.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field

from codeimpact.graph.schema import REL_TABLES

MAX_NODES = 400  # beyond this the page is a hairball: draw the nearest, say how many are left


@dataclass
class ViewNode:
    uid: str
    kind: str
    qualified_name: str
    file: str
    line: int
    side: str  # target | member | upstream | downstream
    depth: int  # 0 for the target and its members
    relation: str  # of the edge that reached it ("" for the target)
    confidence: float
    is_test: bool
    path: list[str]  # uids from this node back to the target


@dataclass
class ViewEdge:
    src: str
    dst: str
    relation: str
    confidence: float


@dataclass
class ViewData:
    title: str
    target: str  # uid
    depth: int
    relations: list[str]
    min_confidence: float
    nodes: list[ViewNode]
    edges: list[ViewEdge]
    counts: dict[str, int]  # upstream / downstream totals (before MAX_NODES)
    risk: str
    notes: list[str] = field(default_factory=list)


def _node(e, side: str) -> ViewNode:
    return ViewNode(
        e.uid,
        e.kind,
        e.qualified_name,
        e.file,
        e.line,
        side,
        e.depth,
        e.relation,
        round(float(e.confidence), 3),
        bool(e.is_test),
        list(e.path),
    )


def _lookup(index, uids: list[str]) -> dict[str, tuple]:
    if not uids:
        return {}
    res = index.query(
        "MATCH (s:Symbol) WHERE s.uid IN $uids "
        "RETURN s.uid, s.kind, s.qualified_name, s.file, s.start_line, s.is_test",
        {"uids": uids},
    )
    return {r[0]: tuple(r[1:]) for r in res.rows}


def _edges(index, uids: list[str], relations: list[str]) -> list[ViewEdge]:
    labels = [r for r in (*relations, "CONTAINS") if r in REL_TABLES]  # schema names only
    has_conf = any("confidence" in dict(REL_TABLES[r][2]) for r in labels)
    conf = "r.confidence" if has_conf else "NULL"  # Kùzu refuses a property no table has
    res = index.query(
        f"MATCH (a:Symbol)-[r:{'|'.join(labels)}]->(b:Symbol) "
        "WHERE a.uid IN $uids AND b.uid IN $uids "
        f"RETURN a.uid, label(r), b.uid, {conf}",
        {"uids": uids},
    )
    out = {
        (a, rel, b): ViewEdge(a, b, rel, 1.0 if c is None else round(float(c), 3))
        for a, rel, b, c in res.rows
        if a != b
    }
    return sorted(out.values(), key=lambda e: (e.src, e.dst, e.relation))


def view_data(
    index,
    target: str,
    depth: int = 3,
    relation: str | None = None,
    min_confidence: float = 0.0,
    include_tests: bool = True,
    max_nodes: int = MAX_NODES,
) -> ViewData:
    up = index.impact(target, "upstream", depth, relation, min_confidence, include_tests, 0)
    down = index.impact(target, "downstream", depth, relation, min_confidence, include_tests, 0)
    t = up.target
    nodes: dict[str, ViewNode] = {
        t.uid: ViewNode(
            t.uid, t.kind, t.qualified_name, t.file, t.line, "target", 0, "", 1.0, t.is_test, []
        )
    }
    ranked = sorted(
        [(e.depth, 0, _node(e, "upstream")) for g in up.groups for e in g.entries]
        + [(e.depth, 1, _node(e, "downstream")) for g in down.groups for e in g.entries],
        key=lambda x: (x[0], x[1], x[2].uid),
    )
    notes = []
    room = max(max_nodes - 1, 0)
    if len(ranked) > room:
        notes.append(f"{len(ranked) - room} more dependents/dependencies not drawn")
        ranked = ranked[:room]
    for _, _, n in ranked:
        # A symbol both upstream and downstream (a cycle) is drawn once, where met first.
        nodes.setdefault(n.uid, n)
    # Members of a class/module target: the ends of paths that are not the target itself.
    members = sorted({n.path[-1] for n in nodes.values() if n.path} - set(nodes))
    for uid, (kind, qn, file, line, is_test) in _lookup(index, members).items():
        nodes[uid] = ViewNode(uid, kind, qn, file, line, "member", 0, "CONTAINS", 1.0, is_test, [])
    edges = _edges(index, list(nodes), up.relations)
    return ViewData(
        title=f"impact of {t.kind} {t.qualified_name}",
        target=t.uid,
        depth=depth,
        relations=list(up.relations),
        min_confidence=float(min_confidence),
        nodes=list(nodes.values()),
        edges=edges,
        counts={"upstream": up.counts.total, "downstream": down.counts.total},
        risk=up.risk.level,
        notes=notes,
    )


def _embed(data: ViewData) -> str:
    # JSON inside <script>: no "<" may survive, or a name like "</script>" ends the block.
    text = json.dumps(asdict(data), separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def to_html(data: ViewData) -> str:
    return (
        _PAGE.replace("{{TITLE}}", html.escape(f"codeimpact: {data.title}"))
        .replace("{{HEADING}}", html.escape(data.title))
        .replace("{{DATA}}", _embed(data))
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>{{TITLE}}</title>
<style>
  * { box-sizing: border-box; }
  body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #1d2430; display: flex;
         height: 100vh; overflow: hidden; }
  #side { width: 300px; padding: 12px; border-right: 1px solid #d5dae3; overflow: auto;
          background: #f7f8fb; }
  #side h1 { font-size: 15px; margin: 0 0 6px; overflow-wrap: anywhere; }
  #side h2 { font-size: 12px; text-transform: uppercase; color: #5b6b82; margin: 14px 0 4px; }
  #side label { display: block; cursor: pointer; }
  #summary, #shown { color: #5b6b82; }
  #details dt { color: #5b6b82; margin-top: 4px; }
  #details dd { margin: 0; word-break: break-all; }
  #main { flex: 1; position: relative; }
  svg { width: 100%; height: 100%; cursor: grab; background: #fff; }
  svg.dragging { cursor: grabbing; }
  .node rect { fill: #f4f6fa; stroke: #5b6b82; stroke-width: 1; rx: 5; }
  .node.test rect { fill: #e3f5e1; stroke: #2e7d32; }
  .node.target rect { fill: #ffe0e0; stroke: #cc0000; stroke-width: 3; }
  .node.member rect { fill: #fff4e0; stroke: #c77800; }
  .node.selected rect { stroke: #1565c0; stroke-width: 3; }
  .node { cursor: pointer; }
  .node text { font-size: 12px; fill: #1d2430; pointer-events: none; }
  .node text.sub { font-size: 10px; fill: #5b6b82; }
  .edge { fill: none; stroke: #9aa5b8; stroke-width: 1.2; }
  .edge.hl { stroke: #1565c0; stroke-width: 2.2; }
  .col { font-size: 11px; fill: #5b6b82; text-anchor: middle; }
  #help { position: absolute; right: 10px; bottom: 8px; color: #8a94a6; font-size: 11px; }
</style>
</head>
<body>
<div id="side">
  <h1>{{HEADING}}</h1>
  <div id="summary"></div>
  <h2>Direction</h2>
  <label><input type="checkbox" class="f-side" value="upstream" checked> dependents
    (upstream)</label>
  <label><input type="checkbox" class="f-side" value="downstream" checked> dependencies
    (downstream)</label>
  <h2>Max depth <span id="depth-value"></span></h2>
  <input type="range" id="f-depth" min="1" step="1">
  <h2>Relations</h2>
  <div id="f-relations"></div>
  <h2>Tests</h2>
  <label><input type="checkbox" id="f-tests" checked> show test code</label>
  <div id="shown"></div>
  <h2>Details</h2>
  <div id="details">Click a node.</div>
</div>
<div id="main">
  <svg id="graph" role="img" aria-label="impact graph"><g id="viewport"></g></svg>
  <div id="help">drag to pan, wheel to zoom, click a node for details, double-click to fit</div>
</div>
<script type="application/json" id="data">{{DATA}}</script>
<script>
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const NS = "http://www.w3.org/2000/svg";  // the SVG namespace name, not a fetch
  const svg = document.getElementById("graph");
  const viewport = document.getElementById("viewport");
  const COL = 320, ROW = 46, W = 250, H = 36;
  const byId = new Map(data.nodes.map((n) => [n.uid, n]));
  const maxDepth = Math.max(1, ...data.nodes.map((n) => n.depth));
  const relations = [...new Set([...data.relations, ...data.edges.map((e) => e.relation)])];
  const state = { sides: new Set(["upstream", "downstream"]), depth: maxDepth,
                  relations: new Set(relations), tests: true, selected: null };
  let view = { x: 0, y: 0, k: 1 };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, content) { parent.textContent = content; return parent; }
  function short(n) { return n.qualified_name || n.uid; }
  function where(n) { return n.file ? n.file + ":" + n.line : "(external)"; }
  function plural(k, one, many) { return k + " " + (k === 1 ? one : many); }

  // Column: signed depth (dependents left, dependencies right); row: order in the column.
  function column(n) {
    return n.side === "upstream" ? -n.depth : n.side === "downstream" ? n.depth : 0;
  }
  const pos = new Map();
  const columns = new Map();
  for (const n of data.nodes) {
    const c = column(n);
    if (!columns.has(c)) columns.set(c, []);
    columns.get(c).push(n);
  }
  for (const [c, list] of columns) {
    list.sort((a, b) => (a.side === "target" ? -1 : b.side === "target" ? 1 : 0) ||
      a.file.localeCompare(b.file) || a.line - b.line);
    list.forEach((n, i) => pos.set(n.uid, { x: c * COL, y: (i - (list.length - 1) / 2) * ROW }));
  }

  function visible(n) {
    if (n.side === "target" || n.side === "member") return true;
    if (!state.sides.has(n.side) || n.depth > state.depth) return false;
    if (n.is_test && !state.tests) return false;
    return state.relations.has(n.relation);
  }

  function render() {
    viewport.textContent = "";
    const shown = new Set(data.nodes.filter(visible).map((n) => n.uid));
    const edges = data.edges.filter((e) => shown.has(e.src) && shown.has(e.dst) &&
      state.relations.has(e.relation));
    const cols = [...new Set([...shown].map((u) => column(byId.get(u))))].sort((a, b) => a - b);
    for (const c of cols) {
      const label = c === 0 ? "target" : (c < 0 ? "dependents d=" + -c : "dependencies d=" + c);
      const top = Math.min(...[...shown].filter((u) => column(byId.get(u)) === c)
        .map((u) => pos.get(u).y));
      text(el("text", { class: "col", x: c * COL + W / 2, y: top - 16 }, viewport), label);
    }
    for (const e of edges) {
      const a = pos.get(e.src), b = pos.get(e.dst);
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
      let d;
      if (x2 > x1) {  // the usual case: one column to the right
        const mx = (x1 + x2) / 2;
        d = `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
      } else if (a.x === b.x) {  // same column (a member, a sibling): bulge out to the left
        const bx = a.x - 40 - Math.min(120, Math.abs(y2 - y1) / 4);
        d = `M${a.x},${y1} C${bx},${y1} ${bx},${y2} ${b.x},${y2}`;
      } else {  // pointing back (a cycle): left side of a to the right side of b
        const bx = (a.x + b.x + W) / 2;
        d = `M${a.x},${y1} C${bx},${y1 - ROW} ${bx},${y2 - ROW} ${b.x + W},${y2}`;
      }
      const hl = state.selected && (e.src === state.selected || e.dst === state.selected);
      const p = el("path", { d, class: "edge" + (hl ? " hl" : ""),
        "marker-end": hl ? "url(#arrow-hl)" : "url(#arrow)" }, viewport);
      text(el("title", {}, p), `${short(byId.get(e.src))} -> ${short(byId.get(e.dst))}: ` +
        `${e.relation} ${e.confidence.toFixed(2)}`);
    }
    for (const uid of shown) {
      const n = byId.get(uid), p = pos.get(uid);
      const cls = ["node", n.side === "target" ? "target" : "", n.side === "member" ? "member" : "",
        n.is_test ? "test" : "", uid === state.selected ? "selected" : ""].filter(Boolean).join(" ");
      const g = el("g", { class: cls, transform: `translate(${p.x},${p.y})`,
        "data-uid": uid }, viewport);
      el("rect", { width: W, height: H }, g);
      const name = n.qualified_name.length > 36 ? "\\u2026" + n.qualified_name.slice(-35)
        : n.qualified_name;
      text(el("text", { x: 8, y: 15 }, g), name || n.uid);
      text(el("text", { x: 8, y: 29, class: "sub" }, g), n.file ? n.kind + "  " + where(n) : n.kind);
      text(el("title", {}, g), n.uid);
      g.addEventListener("click", (ev) => { ev.stopPropagation(); select(uid); });
    }
    document.getElementById("shown").textContent =
      `${shown.size} of ${data.nodes.length} nodes, ${edges.length} edges shown`;
    svg.setAttribute("data-rendered", String(shown.size));
    svg.setAttribute("data-edges", String(edges.length));
    apply();
  }

  function select(uid) {
    state.selected = uid;
    const n = byId.get(uid), box = document.getElementById("details");
    box.textContent = "";
    const dl = document.createElement("dl");
    const rows = [["name", n.qualified_name], ["uid", n.uid], ["kind", n.kind],
      ["defined at", where(n)], ["position", n.side === "target" ? "the target" :
        n.side === "member" ? "member of the target" : `${n.side}, d=${n.depth}`]];
    if (n.relation && n.side !== "target") {
      rows.push(["reached by", `${n.relation} (confidence ${n.confidence.toFixed(2)})`]);
    }
    if (n.path.length > 1) rows.push(["path", n.path.join("  ->  ")]);
    const ins = data.edges.filter((e) => e.dst === uid).length;
    const outs = data.edges.filter((e) => e.src === uid).length;
    rows.push(["edges", `${ins} in, ${outs} out`]);
    if (n.is_test) rows.push(["test", "yes"]);
    for (const [k, v] of rows) {
      dl.appendChild(document.createElement("dt")).textContent = k;
      dl.appendChild(document.createElement("dd")).textContent = v;
    }
    box.appendChild(dl);
    render();
  }

  function apply() {
    viewport.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.k})`);
  }

  function fit() {
    const box = viewport.getBBox(), r = svg.getBoundingClientRect();
    if (!box.width || !r.width) return;
    view.k = Math.min(2, 0.9 * Math.min(r.width / box.width, r.height / box.height));
    view.x = r.width / 2 - view.k * (box.x + box.width / 2);
    view.y = r.height / 2 - view.k * (box.y + box.height / 2);
    apply();
  }

  // Pan: drag the background. Zoom: the wheel, around the pointer.
  let drag = null;
  svg.addEventListener("pointerdown", (ev) => {
    drag = { x: ev.clientX - view.x, y: ev.clientY - view.y };
    svg.classList.add("dragging");
  });
  window.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    view.x = ev.clientX - drag.x; view.y = ev.clientY - drag.y; apply();
  });
  window.addEventListener("pointerup", () => { drag = null; svg.classList.remove("dragging"); });
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
    const k = Math.min(8, Math.max(0.05, view.k * Math.exp(-ev.deltaY * 0.0015)));
    view.x = px - (px - view.x) * (k / view.k); view.y = py - (py - view.y) * (k / view.k);
    view.k = k; apply();
  }, { passive: false });
  svg.addEventListener("dblclick", fit);

  // Arrow heads.
  const defs = el("defs", {}, svg);
  for (const [id, colour] of [["arrow", "#9aa5b8"], ["arrow-hl", "#1565c0"]]) {
    const m = el("marker", { id, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7,
      markerHeight: 7, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }, m);
  }

  // Filters.
  const depthInput = document.getElementById("f-depth");
  depthInput.max = String(maxDepth); depthInput.value = String(maxDepth);
  const depthValue = document.getElementById("depth-value");
  depthValue.textContent = String(maxDepth);
  depthInput.addEventListener("input", () => {
    state.depth = Number(depthInput.value); depthValue.textContent = depthInput.value; render();
  });
  const relBox = document.getElementById("f-relations");
  for (const rel of relations) {
    const label = document.createElement("label");
    const box = label.appendChild(document.createElement("input"));
    box.type = "checkbox"; box.checked = true; box.value = rel; box.className = "f-rel";
    const count = data.edges.filter((e) => e.relation === rel).length;
    label.appendChild(document.createTextNode(` ${rel} (${count})`));
    box.addEventListener("change", () => {
      if (box.checked) state.relations.add(rel); else state.relations.delete(rel);
      render();
    });
    relBox.appendChild(label);
  }
  for (const box of document.querySelectorAll(".f-side")) {
    box.addEventListener("change", () => {
      if (box.checked) state.sides.add(box.value); else state.sides.delete(box.value);
      render();
    });
  }
  document.getElementById("f-tests").addEventListener("change", (ev) => {
    state.tests = ev.target.checked; render();
  });

  // Initial state from the address (#depth=1&relations=CALLS&sides=upstream&tests=0&select=UID),
  // so a view can be shared, or opened already filtered.
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.has("depth")) state.depth = Math.max(1, Math.min(maxDepth, Number(hash.get("depth")) || 1));
  if (hash.has("relations")) state.relations = new Set(hash.get("relations").split(","));
  if (hash.has("sides")) state.sides = new Set(hash.get("sides").split(","));
  if (hash.get("tests") === "0") state.tests = false;
  depthInput.value = String(state.depth); depthValue.textContent = String(state.depth);
  for (const box of document.querySelectorAll(".f-rel")) box.checked = state.relations.has(box.value);
  for (const box of document.querySelectorAll(".f-side")) box.checked = state.sides.has(box.value);
  document.getElementById("f-tests").checked = state.tests;

  document.getElementById("summary").textContent =
    plural(data.counts.upstream, "dependent", "dependents") + ", " +
    plural(data.counts.downstream, "dependency", "dependencies") + " within " +
    `depth ${data.depth}; risk ${data.risk}` + (data.notes.length ? "; " + data.notes.join("; ") : "");
  if (hash.has("select") && byId.has(hash.get("select"))) select(hash.get("select")); else render();
  fit();
  document.body.setAttribute("data-ready", "1");
})();
</script>
</body>
</html>
"""
