"""lang/api.py shared_values: the facts of files decoded while resolver projects are made hold
one str object per value and one int object per line number across files (marshal makes
them anew per blob), with the values decoded without it; the calls, decoded for a file's own
resolution after a resolve host forks, are left as they are."""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts, shared_values
from codeimpact.indexer.lang.python import SPEC
from codeimpact.indexer.lazy_facts import LazyFacts
from codeimpact.indexer.resolution import make_projects

# (a second definition past line 256: line numbers the interpreter keeps no object of)
SOURCE = (
    """
import os.path


class Handler:
    def run(self, request, *args):
        response = request.build(os.path.join("a", "b"))
        return response
"""
    + "\n" * 300
    + """
def handle_request(request):
    result = request.go()
    return result
"""
)


def _blobs() -> list[bytes]:
    # two files with the same facts, and each extracted apart: no object shared beforehand
    return [SPEC.extract(SOURCE.encode()).to_bytes(), SPEC.extract(SOURCE.encode()).to_bytes()]


def _strs_and_ints(facts: FileFacts) -> list:
    out = []

    def walk(x):
        # (not the interpreter's own single objects: small ints, "" and one-letter strs)
        if type(x) is str and len(x) > 1 or type(x) is int and x > 256:
            out.append(x)
        elif isinstance(x, tuple):
            for y in x:
                walk(y)

    for kind in ("symbols", "imports", "bindings", "returns"):
        for fact in getattr(facts, kind):
            walk((fact.name, fact.value) if kind == "bindings" else
                 (fact.value,) if kind == "returns" else
                 (fact.module, fact.name, fact.line) if kind == "imports" else
                 (fact.name, fact.params, fact.start_line, fact.end_line))  # fmt: skip
    return out


def test_facts_decoded_meanwhile_share_their_values():
    a, b = _blobs()
    plain = [FileFacts.from_bytes(a), FileFacts.from_bytes(b)]
    with shared_values():
        shared = [FileFacts.from_bytes(a), FileFacts.from_bytes(b)]
    after = FileFacts.from_bytes(b)  # (the table is gone: as marshal makes them)
    assert shared == plain == [after, after]
    one, two = (_strs_and_ints(f) for f in shared)
    assert len(one) == len(two) > 15 and one == two
    assert all(x is y for x, y in zip(one, two))
    assert any(type(x) is int for x in one)  # (the late definition's lines)
    p_one, p_two = (_strs_and_ints(f) for f in plain)
    assert not any(x is y for x, y in zip(p_one, p_two))
    assert not any(x is y for x, y in zip(one, _strs_and_ints(after)))
    # the calls: not shared (decoded after the fork, for the file's own resolution)
    callees = [[c.callee for c in f.calls] for f in shared]
    assert callees[0] == callees[1] and callees[0]
    assert not any(x is y for x, y in zip(*callees))


def test_make_projects_decodes_facts_sharing_their_values():
    a, b = _blobs()
    blobs = {"pkg/a.py": a, "pkg/b.py": b}
    facts = LazyFacts(sorted(blobs), lambda p: FileFacts.from_bytes(blobs[p]))
    projects = make_projects(facts, dict.fromkeys(blobs, "python"), {})
    fa, fb = (projects["python"].files[p].facts for p in sorted(blobs))
    one, two = _strs_and_ints(fa), _strs_and_ints(fb)
    assert one == two and all(x is y for x, y in zip(one, two))


def test_equal_parameter_lists_share_their_dict_while_projects_are_made():
    a, b = _blobs()
    blobs = {"pkg/a.py": a, "pkg/b.py": b}
    facts = LazyFacts(sorted(blobs), lambda p: FileFacts.from_bytes(blobs[p]))
    files = make_projects(facts, dict.fromkeys(blobs, "python"), {})["python"].files
    fa, fb = (files[p] for p in sorted(blobs))
    assert fa.params == fb.params and set(fa.params) == {"Handler.run", "handle_request"}
    assert fa.params["Handler.run"] == {"self": (0, ""), "request": (1, ""), "args": (2, "")}
    assert all(fa.params[k] is fb.params[k] for k in fa.params)
    # indexed later (an incremental run's lazy index): a dict of its own
    later = SPEC.make_project({"pkg/c.py": FileFacts.from_bytes(b)}).files["pkg/c.py"]
    assert (
        later.params == fa.params
        and later.params["handle_request"] is not fa.params["handle_request"]
    )


def test_builds_in_two_threads_each_share_into_a_table_of_their_own():
    # (an embedding process, an MCP server say, building two projects at once: the sharing is
    # the thread's own; with one module-wide table the second build would add its values to
    # the first's, and the first's end would take the second's sharing away mid-build)
    import threading

    from codeimpact.indexer.lang.api import shared_table

    a, b = _blobs()
    inside, leave, seen = threading.Barrier(2), threading.Event(), {}

    def build(name: str) -> None:
        with shared_values():
            first = FileFacts.from_bytes(a)
            inside.wait(timeout=10)
            if name == "early":
                seen[name] = (first, FileFacts.from_bytes(b), shared_table("t"))
            else:
                leave.wait(timeout=10)  # (decodes after the other build's sharing ended)
                seen[name] = (first, FileFacts.from_bytes(b), shared_table("t"))
        if name == "early":
            leave.set()

    threads = [threading.Thread(target=build, args=(n,)) for n in ("early", "late")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    for first, second, table in seen.values():
        one, two = _strs_and_ints(first), _strs_and_ints(second)
        assert one == two and all(x is y for x, y in zip(one, two))
        assert table == {}
    (e1, _, e_table), (l1, _, l_table) = seen["early"], seen["late"]
    assert e_table is not l_table
    assert not any(x is y for x, y in zip(_strs_and_ints(e1), _strs_and_ints(l1)))


def test_the_table_keeps_one_object_per_value_of_every_str_kind_and_length():
    # (core_shared.c: strs by a hash of their characters' bytes, compared with their kind:
    # "\x00\x01\x01\x01" and "\u0100\u0101" hold the same 4 bytes; thousands grow the table)
    from codeimpact.native import _core

    words = ["ab", "abcdefgh", "abcdefghi", "ééé", "日本語", "😀x"]
    words += ["\x00\x01\x01\x01", "\u0100\u0101", *(f"name_{i}" for i in range(5000))]
    values = _core.SharedValues()

    def decoded():  # (new objects of the same values, as marshal makes them per blob)
        return [("".join(list(w)), int(str(300 + i))) for i, w in enumerate(words)]

    one = _core.typed_list(tuple, decoded(), 0b11, values)
    two = _core.typed_list(tuple, decoded(), 0b11, values)
    plain = _core.typed_list(tuple, decoded())
    assert one == two == plain == [(w, 300 + i) for i, w in enumerate(words)]
    assert all(x[0] is y[0] and x[1] is y[1] for x, y in zip(one, two))
    assert not any(x[0] is y[0] for x, y in zip(one, plain))
    assert len(values) == len(words)


def _chars_hash(s: str) -> int:
    """core_shared.c's hash of an ASCII str (kind 1)."""
    m = (1 << 64) - 1
    data, k = s.encode(), 0x517CC1B727220A95
    h = (len(data) * 0x9E3779B97F4A7C15 ^ 1) & m
    for at in range(0, len(data), 8):
        w = int.from_bytes(data[at : at + 8], "little")
        h = ((((h << 5) | (h >> 59)) & m) ^ w) * k & m
    h ^= h >> 33
    h = h * 0xFF51AFD7ED558CCD & m
    return h ^ (h >> 33)


def test_strs_made_to_collide_cost_a_bounded_search_and_stay_correct():
    # (the hash has no secret: a hostile checkout's strs can fall into one run of slots;
    # past 128 slots a str is left unshared, so no lookup goes through the whole run)
    from codeimpact.native import _core

    colliding, i = [], 0
    while len(colliding) < 140:  # (one slot of the first table's 2,048)
        if _chars_hash(f"attr_{i}") & 2047 == 7:
            colliding.append(f"attr_{i}")
        i += 1
    values = _core.SharedValues()

    def decoded():
        return [("".join(list(w)),) for w in colliding]

    one = _core.typed_list(tuple, decoded(), 1, values)
    two = _core.typed_list(tuple, decoded(), 1, values)
    assert one == two == [(w,) for w in colliding]
    assert len(values) == 128  # (all fell into one run: the 12 past it left unshared)
    assert all(x[0] is y[0] for x, y in zip(one[:128], two[:128]))
    assert not any(x[0] is y[0] for x, y in zip(one[128:], two[128:]))
