"""What the MCP tools answer: the CLI's JSON cut down to what an agent acts on.

An agent pays for every byte it reads, so a reply (`codeimpact.mcp.<tool>/1`, written
compact by the server, once) leads with the answer: a one-line summary, the risk,
the counts, then the direct dependents. It keeps what an agent uses to act (uids,
which carry the file; lines; relation and confidence; the next hop of a path; test
ids a runner accepts) and leaves out what it cannot (qualified names and kinds that
the uid already spells, full paths of uids, echoed parameters, samples of unresolved
call sites). Every list holds at most `max_items` items and says how many there are
in all: `{"total": M, "items": [...]}` (0: no cap). The complete result, as
`graph <command> --json` prints it, is one `full: true` away.

Each function takes the CLI's JSON (a dict, see docs/json.md) and `max_items`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_ITEMS = 30  # items per list in a reply; totals stay complete

Json = dict[str, Any]


def listing(items: list, max_items: int, total: int | None = None,
            fmt: Callable[[Any], Any] | None = None) -> Json:  # fmt: skip
    """`{"total", "items"}`: at most `max_items` of `items` (0: all), and the full count."""
    shown = items[:max_items] if max_items else items
    return {
        "total": len(items) if total is None else max(total, len(items)),
        "items": [fmt(x) for x in shown] if fmt else list(shown),
    }


def _total(data: Json, key: str) -> int | None:
    """A list's full length where the JSON gives it (`<key>_total`), else None."""
    value = data.get(f"{key}_total")
    return value if isinstance(value, int) else None


# ------------------------------------------------------------------------- pieces
def symbol(s: Json | None) -> Json | None:
    if s is None:
        return None
    out = {"uid": s["uid"], "kind": s.get("kind")}
    if s.get("file"):
        out["lines"] = [s.get("line"), s.get("end_line", s.get("line"))]
    return out


def _conf(value: Any) -> Any:
    return round(value, 2) if isinstance(value, float) else value


def entry(e: Json) -> Json:
    """A dependent: where it is, how it was reached, and the next hop toward the target."""
    out = {"uid": e["uid"], "line": e.get("line"), "rel": e.get("relation")}
    out["conf"] = _conf(e.get("confidence"))
    path = e.get("path") or []
    if len(path) > 2:
        out["via"] = path[1]
    if e.get("is_test"):
        out["test"] = True
    return out


def neighbour(n: Json) -> Json:
    out = {"uid": n["uid"], "line": n.get("line"), "rel": n.get("relation")}
    if n.get("at_line") is not None:
        out["at"] = n["at_line"]  # the line of the call, import or use
    if n.get("confidence") is not None:
        out["conf"] = _conf(n["confidence"])
    return out


def test_id(t: Json) -> str:
    """The id a test runner accepts where the index knows it, else the test's uid."""
    return t.get("run_id") or t["uid"]


def tests_why(tests: list[Json], max_items: int) -> Json:
    """For the listed tests not selected by a graph path alone: `tests_why` (id -> why:
    `covered`, observed coverage saw it run the target; `reaches+covered`) and `tests_stale`
    (ids resting only on observed links into files changed since). Empty for the graph's."""
    shown = tests[:max_items] if max_items else tests
    why = {
        test_id(t): "+".join(t["reasons"])
        for t in shown
        if t.get("reasons", ["reaches"]) != ["reaches"]
    }
    stale = [test_id(t) for t in shown if t.get("stale")]
    return {"tests_why": why, "tests_stale": stale} if why else {}


def freshness(f: Json | None) -> Json | None:
    if f is None:
        return None
    out = {"fresh": f.get("fresh")}
    if f.get("reasons") and f.get("fresh") is not True:
        out["reasons"] = f["reasons"]
    if f.get("method"):
        out["method"] = f["method"]
    return out


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


# ------------------------------------------------------------------------ replies
def _traversal(data: Json, max_items: int, schema: str) -> Json:
    """impact and blast-radius: the same body."""
    c = data["counts"]
    noun = "dependent" if data.get("direction", "upstream") == "upstream" else "dependency"
    comp = data.get("completeness") or {}
    # tests observed coverage alone selected (of those listed): no graph path reaches them
    seen = sum(1 for t in data["tests"] if t.get("reasons") == ["covered"])
    summary = (
        f"risk {data['risk']['level']}: {_plural(c['direct'], 'direct ' + noun)} "
        f"({_plural(c['total'], noun)} in all, {_plural(c['files'], 'file')}, "
        f"{_plural(c['modules'], 'module')}); {_plural(c['tests'], 'test')} in "
        f"{_plural(c['test_files'], 'file')} {'reaches' if c['tests'] == 1 else 'reach'} it"
        + (f" ({seen} only seen running it by observed coverage)" if seen else "")
        + f"; {c['untested']} untested"
    )
    if comp.get("status") == "lower-bound":
        why = [f"{comp.get('unresolved_sites')} unresolved call sites"] * bool(
            comp.get("unresolved_sites")
        ) + [r.split(" (", 1)[0] for r in comp.get("reasons") or []]
        why = why or [f"{comp.get('unresolved_sites')} unresolved call sites"]
        summary += f"; a lower bound ({'; '.join(why)})"
    out: Json = {"schema": schema, "summary": summary}
    if "target" in data:
        out["target"] = symbol(data["target"])
    else:
        out["targets"] = listing(data["targets"], max_items, fmt=symbol)
    out["risk"] = data["risk"]["level"]
    out["risk_reasons"] = data["risk"]["reasons"]
    out["counts"] = c
    for group in data["groups"]:
        out[f"d{group['depth']}"] = {
            "label": group["label"],
            **listing(group["entries"], max_items, group["count"], entry),
        }
    out["files"] = listing(data["files"], max_items, c["files"])
    out["test_files"] = listing(data.get("test_files", []), max_items, c["test_files"])
    out["tests"] = listing(data["tests"], max_items, c["tests"], test_id)
    out.update(tests_why(data["tests"], max_items))
    out["completeness"] = {
        "status": comp.get("status"),
        "unresolved_sites": comp.get("unresolved_sites"),
    }
    if comp.get("reasons"):
        out["completeness"]["reasons"] = comp["reasons"]
    if data.get("direction") != "upstream":
        out["direction"] = data.get("direction")
    out["freshness"] = freshness(data.get("freshness"))
    return out


def impact(data: Json, max_items: int) -> Json:
    return _traversal(data, max_items, "codeimpact.mcp.impact/1")


def blast_radius(data: Json, max_items: int) -> Json:
    return _traversal(data, max_items, "codeimpact.mcp.blast-radius/1")


CONTEXT_LISTS = ("callers", "callees", "imports", "imported_by", "bases", "subclasses",
                 "references", "referenced_by")  # fmt: skip


def context(data: Json, max_items: int) -> Json:
    d = data["definition"]
    out: Json = {
        "schema": "codeimpact.mcp.context/1",
        "target": symbol(data["target"]),
        "signature": d.get("signature"),
        "source": {
            "status": d.get("source_status"),
            "lines": [d.get("start_line"), d.get("end_line")],
            "text": "\n".join(d.get("source") or []),
            "truncated": d.get("truncated"),
        },
        "container": (data.get("container") or {}).get("uid"),
        "members": listing(
            data.get("members", []), max_items, _total(data, "members"), lambda m: m["uid"]
        ),
    }
    for key in CONTEXT_LISTS:
        out[key] = listing(data.get(key, []), max_items, _total(data, key), neighbour)
    out["tests"] = listing(data.get("tests", []), max_items, data.get("test_count"), test_id)
    out.update(tests_why(data.get("tests", []), max_items))
    out["freshness"] = freshness(data.get("freshness"))
    return out


def deps(data: Json, max_items: int) -> Json:
    out: Json = {"schema": "codeimpact.mcp.deps/1", "target": symbol(data["target"])}
    for side in ("upstream", "downstream"):
        counts = data.get("counts", {}).get(side, {})
        out[side] = {
            "total": counts.get("total"),
            **{
                rel: listing(items, max_items, counts.get(rel), neighbour)
                for rel, items in data.get(side, {}).items()
            },
        }
    out["freshness"] = freshness(data.get("freshness"))
    return out


def search(data: Json, max_items: int) -> Json:
    hits = listing(
        data.get("results", []),
        max_items,
        data.get("total"),
        lambda h: {"uid": h["uid"], "kind": h.get("kind"), "line": h.get("start_line")},
    )
    return {
        "schema": "codeimpact.mcp.search/1",
        "query": data.get("query"),
        "total": hits["total"],
        "results": hits["items"],
        "freshness": freshness(data.get("freshness")),
    }


def trace(data: Json, max_items: int) -> Json:
    steps = [
        {
            "uid": s["uid"],
            "line": s.get("line"),
            "rel": s.get("relation"),
            "conf": _conf(s.get("confidence")),
        }
        for s in data.get("steps", [])
    ]  # a path is the answer: never cut
    return {
        "schema": "codeimpact.mcp.trace/1",
        "found": data.get("found"),
        "direction": data.get("direction"),
        "length": data.get("length"),
        "steps": steps,
        "freshness": freshness(data.get("freshness")),
    }


def generic(data: Json, max_items: int) -> Json:
    """Any other result: as the CLI prints it, each list cut to `max_items` with
    `<key>_total` beside it."""
    return _cut_lists(data, max_items)


def _cut_lists(value: Any, max_items: int) -> Any:
    if isinstance(value, dict):
        out: Json = {}
        for key, item in value.items():
            if isinstance(item, list) and max_items and len(item) > max_items:
                out[key] = [_cut_lists(v, max_items) for v in item[:max_items]]
                out.setdefault(f"{key}_total", value.get(f"{key}_total", len(item)))
            else:
                out[key] = _cut_lists(item, max_items)
        return out
    if isinstance(value, list):
        return [_cut_lists(v, max_items) for v in value]
    return value
