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


def tests_why(tests: list[Json], shown: list[str]) -> Json:
    """For the shown test ids not listed by a graph path alone: `tests_why` (id -> its
    reasons joined by "+": `covered` when observed coverage alone saw it run the target,
    `reaches+covered`, `changed`, ...) and `tests_stale` (ids resting only on observed
    links into files changed since the observation). Empty when every one is `reaches`."""
    reasons: dict[str, list[str]] = {}
    stale: dict[str, bool] = {}
    for t in tests:
        rid = test_id(t)
        held = reasons.setdefault(rid, [])
        held += [r for r in t.get("reasons") or ["reaches"] if r not in held]
        stale[rid] = stale.get(rid, True) and bool(t.get("stale"))
    order = {r: i for i, r in enumerate(("changed", "reaches", "covered", "imports"))}
    for rid in shown:  # a file selected whole (`imports`) stands for the tests shown in it
        whole = rid.partition("::")[0]
        if whole != rid and whole in reasons:
            held = reasons.setdefault(rid, [])
            held += [r for r in reasons[whole] if r not in held]
    why = {
        rid: "+".join(sorted(reasons[rid], key=lambda r: order.get(r, 9)))
        for rid in shown
        if reasons.get(rid, ["reaches"]) != ["reaches"]
    }
    return {"tests_why": why, "tests_stale": [r for r in shown if stale.get(r)]} if why else {}


def _test_ids(tests: list[Json], max_items: int, total: int | None) -> Json:
    """The tests as runnable ids, each id once (the tests nested in one test share its
    id); `total` counts the test symbols."""
    ids = list(dict.fromkeys(test_id(t) for t in tests))
    return {**listing(ids, max_items, total), "total": total if total is not None else len(ids)}


def freshness(f: Json | None) -> Json | None:
    if f is None:
        return None
    out = {"fresh": f.get("fresh")}
    if f.get("reasons") and f.get("fresh") is not True:
        out["reasons"] = f["reasons"]
    if f.get("method"):
        out["method"] = f["method"]
    return out


def deeper(max_items: int) -> int:
    """The cap of the depth groups beyond d1: a third of `max_items` (0 stays no cap).
    The direct dependents are what an agent acts on; those further out are a summary
    (their totals stay complete), which keeps a widely used symbol's reply small."""
    return max(1, max_items // 3) if max_items else 0


def _groups(out: Json, groups: list[Json], max_items: int) -> None:
    """The depth groups as `d1`, `d2`, ...: d1 cut at `max_items`, the others at `deeper`."""
    for group in groups:
        cap = max_items if group["depth"] <= 1 else deeper(max_items)
        out[f"d{group['depth']}"] = {
            "label": group["label"],
            **listing(group["entries"], cap, group["count"], entry),
        }


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
    _groups(out, data["groups"], max_items)
    out["files"] = listing(data["files"], max_items, c["files"])
    out["test_files"] = listing(data.get("test_files", []), max_items, c["test_files"])
    out["tests"] = _test_ids(data["tests"], max_items, c["tests"])
    out.update(tests_why(data["tests"], out["tests"]["items"]))
    out["completeness"] = {
        "status": comp.get("status"),
        "unresolved_sites": comp.get("unresolved_sites"),
    }
    if comp.get("reasons"):
        out["completeness"]["reasons"] = comp["reasons"]
    if comp.get("unbound_fixtures"):
        out["completeness"]["unbound_fixtures"] = comp["unbound_fixtures"]
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
    out["tests"] = _test_ids(data.get("tests", []), max_items, data.get("test_count"))
    out.update(tests_why(data.get("tests", []), out["tests"]["items"]))
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


def _changed(s: Json) -> Json:
    """A changed symbol: its uid, what happened, its lines now (before, when deleted)."""
    out = {"uid": s["uid"], "status": s["status"], "kind": s.get("kind")}
    out["lines"] = s.get("new_range") or s.get("old_range")
    if s.get("moved_from"):
        out["moved_from"] = s["moved_from"]
    return out


def _broken(b: Json) -> Json:
    """A dependent that still names what the change removed (`of`), and where."""
    return {"uid": b["uid"], "line": b.get("at_line") or b.get("line"), "rel": b.get("relation"),
            "of": b.get("of"), "conf": _conf(b.get("confidence"))}  # fmt: skip


def _file_notes(data: Json) -> Json:
    return {f["path"]: f["notes"] for f in data.get("files", []) if f.get("notes")}


def _tail(out: Json, data: Json, max_items: int) -> Json:
    """What a change's reply ends with: the tests to run, notes (per file too), freshness."""
    out["run_ids"] = listing(data.get("run_ids", []), max_items)
    out.update(
        tests_why(data.get("tests") or data.get("tests_to_run") or [], out["run_ids"]["items"])
    )
    if _file_notes(data):
        out["file_notes"] = _file_notes(data)
    out["notes"] = data.get("notes", [])
    out["freshness"] = freshness(data.get("freshness"))
    return out


def detect_changes(data: Json, max_items: int) -> Json:
    """What the diff changed, what it breaks (first), the dependents by depth, and the
    tests to run as the runner takes them."""
    sm, impact = data["summary"], data.get("impact") or {}
    c = impact.get("counts") or {}
    n_broken = impact.get("broken_total", len(impact.get("broken", [])))
    n_changed = sm["added"] + sm["modified"] + sm["deleted"]
    summary = (
        f"risk {data['risk']}: {_plural(n_changed, 'changed symbol')} ({sm['added']} added, "
        f"{sm['modified']} modified, {sm['deleted']} deleted) in {_plural(sm['files'], 'file')}; "
        + (f"{n_broken} broken (still using what the change removed); " if n_broken else "")
        + f"{_plural(c.get('total', 0), 'dependent')} ({c.get('direct', 0)} direct); "
        f"{_plural(len(data.get('run_ids', [])), 'test id')} to run"
    )
    out: Json = {"schema": "codeimpact.mcp.detect-changes/1", "summary": summary}
    out["risk"], out["risk_reasons"] = data["risk"], data["risk_reasons"]
    out["scope"] = data["scope"]
    if data.get("base"):
        out["base"] = data["base"]
    out["changed"] = listing(data["symbols"], max_items, data.get("symbols_total"), _changed)
    out["broken"] = listing(impact.get("broken", []), max_items, n_broken, _broken)
    out["counts"] = c or None  # None: nothing indexed is reached
    _groups(out, impact.get("groups", []), max_items)
    if impact.get("not_indexed"):
        out["not_indexed"] = listing(impact["not_indexed"], max_items)
    comp = impact.get("completeness") or {}
    if comp:
        out["completeness"] = {"status": comp.get("status"),
                               "unresolved_sites": comp.get("unresolved_sites")}  # fmt: skip
        if comp.get("reasons"):
            out["completeness"]["reasons"] = comp["reasons"]
    if data.get("fallback"):  # if_incomplete="importers": whether it added tests, and why
        out["fallback"] = data["fallback"]
    return _tail(out, data, max_items)


def _reviewed(item: Json, max_items: int) -> Json:
    out = _changed(item["symbol"])
    deps = [
        {**neighbour(d), **({"broken": True} if d.get("broken") else {})}
        for d in item.get("dependents", [])
    ]
    out["dependents"] = listing(deps, max_items, item.get("dependents_total"))
    out["tests"] = item.get("tests_total", len(item.get("tests", [])))
    out["tested"] = item.get("tested")
    return out


def review(data: Json, max_items: int) -> Json:
    """The branch's changes, each with the dependents to check (broken first in mind),
    the untested ones and the tests to run."""
    sm = data["summary"]
    n_broken = sum(1 for d in data.get("dependents", []) if d.get("broken"))
    summary = (
        f"risk {data['risk']}: {sm['added']} added, {sm['modified']} modified, "
        f"{sm['deleted']} deleted symbol(s) in {_plural(sm['files'], 'file')}; "
        f"{_plural(sm['dependents'], 'dependent')} to check"
        + (f" ({n_broken} broken)" if n_broken else "")
        + f"; {_plural(sm['tests'], 'test')}, {sm['untested']} untested"
    )
    out: Json = {"schema": "codeimpact.mcp.review/1", "summary": summary}
    out["risk"], out["risk_reasons"] = data["risk"], data["risk_reasons"]
    out["base"], out["merge_base"], out["head"] = data["base"], data["merge_base"], data["head"]
    out["symbols"] = listing(
        data["symbols"], max_items, data.get("symbols_total"), lambda i: _reviewed(i, max_items)
    )
    out["untested"] = listing(data.get("untested", []), max_items, data.get("untested_total"))
    return _tail(out, data, max_items)


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
