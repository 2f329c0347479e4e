"""Diagrams of query results: Mermaid (renders as-is in GitHub Markdown) and Graphviz dot.

Two steps, both pure: a result (impact, blast-radius, trace, context) becomes a
neutral `Diagram` (nodes in labelled groups, edges labelled "RELATION confidence"),
then the diagram is written in one syntax. Targets are highlighted; depth is the
group a node sits in (impact: "d=1 WILL BREAK", ...; trace: hop numbers; context:
the relation to the target). Arrows always point from the dependent to what it
depends on, so a diagram reads the same way whatever the query's direction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FORMATS = ("mermaid", "dot")

# Node roles -> (fill, stroke, stroke width): the target stands out, tests are green.
ROLE_STYLE = {
    "target": ("#ffe0e0", "#cc0000", 3),
    "node": ("#f4f6fa", "#5b6b82", 1),
    "test": ("#e3f5e1", "#2e7d32", 1),
    "more": ("#ffffff", "#999999", 1),
}


@dataclass(frozen=True)
class Node:
    uid: str
    lines: tuple[str, ...]  # label lines: "kind qualified.name", "file:line"
    role: str = "node"  # a key of ROLE_STYLE
    group: str = ""  # the label of the box it is drawn in ("" for none)


@dataclass(frozen=True)
class Edge:
    src: str  # uid of the dependent
    dst: str  # uid of what it depends on
    label: str  # "CALLS 0.80"
    dashed: bool = False  # an indirect link (a test reaching the target through others)


@dataclass(frozen=True)
class Diagram:
    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    notes: tuple[str, ...] = field(default=())  # said once, as a comment


class _Builder:
    """Collects nodes (first mention wins) and edges (each once), in order."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: dict[tuple[str, str, str], Edge] = {}

    def node(self, uid: str, lines: tuple[str, ...], role: str = "node", group: str = "") -> None:
        if uid not in self.nodes:
            self.nodes[uid] = Node(uid, lines, role, group)
        elif role == "target":  # a target met first as someone's neighbour is still a target
            old = self.nodes[uid]
            self.nodes[uid] = Node(uid, old.lines, "target", old.group)

    def edge(self, src: str, dst: str, label: str, dashed: bool = False) -> None:
        self.edges.setdefault((src, dst, label), Edge(src, dst, label, dashed))

    def diagram(self, title: str, notes: list[str] | None = None) -> Diagram:
        return Diagram(
            title, tuple(self.nodes.values()), tuple(self.edges.values()), tuple(notes or ())
        )


def _how(hit) -> str:
    """`reaches d=2`, `seen running it`, ... (query/selection.py says which)."""
    from codeimpact.query.selection import how_selected

    how = how_selected(hit.depth, hit.reasons, hit.stale)
    return how if hit.depth is None else "reaches " + how


def _where(file: str, line: int | None) -> str:
    if not file:
        return "(external)"
    return f"{file}:{line}" if line else file


def _lines(kind: str, qualified_name: str, file: str, line: int | None) -> tuple[str, ...]:
    return (f"{kind} {qualified_name or '(anonymous)'}", _where(file, line))


def _uid_lines(uid: str) -> tuple[str, ...]:
    # A symbol we only know by uid (a path step cut by --limit, a member of the target).
    path, _, local = uid.partition("::")
    return (local or path, path) if local else (path,)


def _edge_label(relation: str | None, confidence: float | None) -> str:
    if not relation:
        return ""
    return relation if confidence is None else f"{relation} {confidence:.2f}"


# ---------------------------------------------------------------------- results -> diagrams
def impact_diagram(result) -> Diagram:
    """ImpactResult or BlastRadiusResult: the targets, then one group per depth."""
    b = _Builder()
    targets = getattr(result, "targets", None) or [result.target]
    for t in targets:
        b.node(t.uid, _lines(t.kind, t.qualified_name, t.file, t.line), "target", "target")
    upstream = result.direction == "upstream"
    notes = []
    for group in result.groups:
        name = f"d={group.depth} {group.label} ({group.count})"
        for e in group.entries:
            role = "test" if e.is_test else "node"
            b.node(e.uid, _lines(e.kind, e.qualified_name, e.file, e.line), role, name)
            if len(e.path) < 2:
                continue
            via = e.path[1]  # drawn already, unless a member of the target or cut by --limit
            b.node(via, _uid_lines(via), "node", "target" if e.depth == 1 else "")
            label = _edge_label(e.relation, e.confidence)
            if upstream:
                b.edge(e.uid, via, label)
            else:
                b.edge(via, e.uid, label)
        left_out = group.count - len(group.entries)
        if left_out > 0:
            b.node(f"more:d{group.depth}", (f"... and {left_out} more",), "more", name)
            notes.append(f"d={group.depth}: {left_out} of {group.count} not drawn (--limit)")
    if upstream:
        for t in result.tests:
            if any(e.uid == t.uid for g in result.groups for e in g.entries):
                continue  # already drawn as a dependent (--include-tests)
            b.node(t.uid, _lines(t.kind, t.qualified_name, t.file, t.line), "test", "tests")
            b.edge(t.uid, t.path[-1], f"test {_how(t)}", dashed=True)
    names = ", ".join(t.qualified_name for t in targets)
    title = f"{'impact' if len(targets) == 1 else 'blast radius'} of {names}"
    title += f" ({result.direction}, depth {result.depth}, risk {result.risk.level})"
    return b.diagram(title, notes)


def trace_diagram(result) -> Diagram:
    """TraceResult: the path, hop by hop (d=k: k hops from its start)."""
    b = _Builder()
    ends = {result.source.uid, result.target.uid}
    if not result.found:
        for t in (result.source, result.target):
            b.node(t.uid, _lines(t.kind, t.qualified_name, t.file, t.line), "target")
        return b.diagram(
            f"no dependency path between {result.source.qualified_name} "
            f"and {result.target.qualified_name}"
        )
    steps = result.steps
    for k, s in enumerate(steps):
        role = "target" if s.uid in ends else "node"
        b.node(s.uid, (*_lines(s.kind, s.qualified_name, s.file, s.line), f"d={k}"), role)
    for a, c in zip(steps, steps[1:]):
        b.edge(a.uid, c.uid, _edge_label(a.relation, a.confidence))
    first, last = steps[0], steps[-1]
    how = "" if result.direction == "forward" else " (the other way round)"
    return b.diagram(
        f"trace {first.qualified_name} -> {last.qualified_name}: "
        f"{result.length} hop{'' if result.length == 1 else 's'}{how}"
    )


def context_diagram(result) -> Diagram:
    """ContextResult: the target amid its container, members and d=1 neighbours."""
    b = _Builder()
    t = result.target
    b.node(t.uid, _lines(t.kind, t.qualified_name, t.file, t.line), "target")
    module = f"{t.file}::" if t.file else ""
    if result.container:
        c = result.container
        b.node(c.uid, _lines(c.kind, c.qualified_name, c.file, c.line), "node", "container")
        b.edge(c.uid, t.uid, "CONTAINS")
    for m in result.members:
        b.node(m.uid, _lines(m.kind, m.qualified_name, m.file, m.line), "node", "members")
        b.edge(t.uid, m.uid, "CONTAINS")

    def add(items, group: str, inbound: bool, source: str | None = None) -> None:
        for n in items:
            role = "test" if n.is_test else "node"
            b.node(n.uid, _lines(n.kind, n.qualified_name, n.file, n.line), role, group)
            label = _edge_label(n.relation, n.confidence)
            here = source or t.uid
            if inbound:
                b.edge(n.uid, here, label)
            else:
                b.edge(here, n.uid, label)

    add(result.callers, "callers", inbound=True)
    add(result.callees, "callees", inbound=False)
    add(result.subclasses, "subclasses", inbound=True)
    add(result.bases, "bases", inbound=False)
    add(result.referenced_by, "referenced by", inbound=True)
    add(result.references, "references", inbound=False)
    if module and (result.imports or result.imported_by) and module != t.uid:
        b.node(module, (f"module {t.file}",), "node", "")
    add(result.imported_by, "imported by", inbound=True, source=module or t.uid)
    add(result.imports, "imports (of its module)", inbound=False, source=module or t.uid)
    for h in result.tests:
        b.node(h.uid, _lines(h.kind, h.qualified_name, h.file, h.line), "test", "tests")
        b.edge(h.uid, t.uid, f"test {_how(h)}", dashed=True)
    notes = []
    if result.test_count > len(result.tests):
        notes.append(f"tests: {len(result.tests)} of {result.test_count} drawn (--limit)")
    return b.diagram(f"context of {t.kind} {t.qualified_name}", notes)


def diagram_of(result) -> Diagram:
    name = type(result).__name__
    if name in ("ImpactResult", "BlastRadiusResult"):
        return impact_diagram(result)
    if name == "TraceResult":
        return trace_diagram(result)
    if name == "ContextResult":
        return context_diagram(result)
    raise TypeError(f"no diagram for a {name}")


# ---------------------------------------------------------------------- diagrams -> text
def _ids(d: Diagram) -> dict[str, str]:
    # Syntax-safe ids (uids hold ':', '/', '#'): n0, n1, ... in first-mention order.
    return {n.uid: f"n{k}" for k, n in enumerate(d.nodes)}


def _groups(d: Diagram) -> list[str]:
    seen: list[str] = []
    for n in d.nodes:
        if n.group and n.group not in seen:
            seen.append(n.group)
    return seen


def _mermaid_text(text: str) -> str:
    # Inside "...", Mermaid reads #name; / #code; entities: escape what would break out.
    out = text.replace("#", "#35;").replace('"', "#quot;").replace("&", "#amp;")
    return out.replace("<", "#lt;").replace(">", "#gt;")


def to_mermaid(d: Diagram) -> str:
    ids = _ids(d)
    title = d.title.replace("\\", "/").replace('"', "'")  # a YAML "..." string
    out = ["---", f'title: "{title}"', "---", "flowchart LR"]
    out += [f"  %% {note}" for note in d.notes]

    def node_line(n: Node, indent: str) -> str:
        label = "<br/>".join(_mermaid_text(line) for line in n.lines)
        return f'{indent}{ids[n.uid]}["{label}"]'

    for k, group in enumerate(_groups(d)):
        out.append(f'  subgraph g{k}["{_mermaid_text(group)}"]')
        out += [node_line(n, "    ") for n in d.nodes if n.group == group]
        out.append("  end")
    out += [node_line(n, "  ") for n in d.nodes if not n.group]
    for e in d.edges:
        arrow = "-.->" if e.dashed else "-->"
        label = f'|"{_mermaid_text(e.label)}"|' if e.label else ""
        out.append(f"  {ids[e.src]} {arrow}{label} {ids[e.dst]}")
    for role, (fill, stroke, width) in ROLE_STYLE.items():
        members = [ids[n.uid] for n in d.nodes if n.role == role]
        if members:
            out.append(f"  classDef ci_{role} fill:{fill},stroke:{stroke},stroke-width:{width}px")
            out.append(f"  class {','.join(members)} ci_{role}")
    return "\n".join(out) + "\n"


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def to_dot(d: Diagram) -> str:
    ids = _ids(d)
    out = [
        "digraph codeimpact {",
        f'  graph [rankdir=LR, label="{_dot_text(d.title)}", labelloc=t, fontname="Helvetica"];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    out += [f"  // {note}" for note in d.notes]

    def node_line(n: Node, indent: str) -> str:
        fill, stroke, width = ROLE_STYLE[n.role]
        label = _dot_text("\n".join(n.lines))
        return (
            f'{indent}{ids[n.uid]} [label="{label}", fillcolor="{fill}", '
            f'color="{stroke}", penwidth={width}];'
        )

    for k, group in enumerate(_groups(d)):
        out.append(f"  subgraph cluster_{k} {{")
        out.append(f'    label="{_dot_text(group)}"; style="rounded,dashed"; color="#aaaaaa";')
        out += [node_line(n, "    ") for n in d.nodes if n.group == group]
        out.append("  }")
    out += [node_line(n, "  ") for n in d.nodes if not n.group]
    for e in d.edges:
        attrs = [f'label="{_dot_text(e.label)}"'] if e.label else []
        if e.dashed:
            attrs.append("style=dashed")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        out.append(f"  {ids[e.src]} -> {ids[e.dst]}{suffix};")
    out.append("}")
    return "\n".join(out) + "\n"


def render(fmt: str, result) -> str:
    """The diagram of `result` in `fmt` (mermaid or dot)."""
    d = diagram_of(result)
    if fmt == "mermaid":
        return to_mermaid(d)
    if fmt == "dot":
        return to_dot(d)
    raise ValueError(f"unknown diagram format {fmt!r} (one of: {', '.join(FORMATS)})")
