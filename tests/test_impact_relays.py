"""Upstream impact through relays (query/relays.py): a shared decorator wrapper calls every
function it wraps, and a callee calls the callbacks it is passed, on behalf of the callers
that named or passed them; upstream impact lists the wrapper but does not follow it to the
callers of the other functions it wraps (Flask's `setupmethod`: 21 dependents of
Scaffold.route, not 75). Real index on disk."""

from __future__ import annotations

import pytest
from test_impact import build

from codeimpact.query.index import Index
from conftest import edges

FILES = {
    "app/__init__.py": "",
    "app/setup.py": """\
import functools


def setupmethod(f):
    @functools.wraps(f)
    def wrapper_func(self, *args, **kwargs):
        return f(self, *args, **kwargs)

    return wrapper_func


def apply(fn):
    return fn()
""",
    "app/scaffold.py": """\
from app.setup import setupmethod, apply


class Scaffold:
    @setupmethod
    def route(self, rule):
        return rule

    @setupmethod
    def before_request(self, f):
        return f


def add_routes(s: Scaffold):
    return s.route("/")


def add_hooks(s: Scaffold):
    return s.before_request(None)


def ping():
    return 1


def pong():
    return 2


def run_ping():
    return apply(ping)


def run_pong():
    return apply(pong)
""",
    "tests/test_app.py": """\
from app.scaffold import Scaffold, add_hooks, add_routes, run_ping, run_pong


def test_routes():
    add_routes(Scaffold())


def test_hooks():
    add_hooks(Scaffold())


def test_ping():
    run_ping()


def test_pong():
    run_pong()
""",
}
S = "app/scaffold.py::"
W = "app/setup.py::setupmethod.wrapper_func"
APPLY = "app/setup.py::apply"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    repo = build(tmp_path_factory.mktemp("relays") / "proj", FILES)
    with Index.open(repo) as ix:
        yield ix


def dependents(result) -> set[str]:
    return {e.uid for g in result.groups for e in g.entries}


def selected_tests(result) -> set[str]:
    return {t.uid.rpartition("::")[2] for t in result.tests}


def test_the_graph_has_the_relay_edges(index):
    calls = {(a, b): reason for a, b, _, reason in edges(index.repo, "CALLS")}
    assert calls[(W, S + "Scaffold.route")] == "value-flow"
    assert calls[(W, S + "Scaffold.before_request")] == "value-flow"
    assert calls[(S + "add_hooks", W)] == "decorator"
    assert calls[(APPLY, S + "ping")] == "value-flow"
    refs = {(a, b) for a, b, *_ in edges(index.repo, "REFERENCES")}
    assert (S + "add_routes", S + "Scaffold.route") in refs  # the caller names route


def test_a_shared_wrapper_is_a_dependent_but_not_followed_to_other_callers(index):
    r = index.impact(S + "Scaffold.route", include_tests=True, limit=None, check_freshness=False)
    got = dependents(r)
    assert W in got and S + "add_routes" in got
    assert S + "add_hooks" not in got  # it calls before_request, not route
    assert selected_tests(r) == {"test_routes"}
    # the class whose body applies the decorator is listed, its users are not reached by it
    assert S + "Scaffold" in got


def test_a_callee_calling_a_callback_is_not_followed_to_other_passers(index):
    r = index.impact(S + "ping", include_tests=True, limit=None, check_freshness=False)
    got = dependents(r)
    assert APPLY in got and S + "run_ping" in got
    assert S + "run_pong" not in got
    assert selected_tests(r) == {"test_ping"}


def test_the_wrapper_as_target_still_reaches_all_its_callers(index):
    r = index.impact(W, include_tests=True, limit=None, check_freshness=False)
    assert {S + "add_routes", S + "add_hooks"} <= dependents(r)
    assert selected_tests(r) == {"test_routes", "test_hooks"}


VALUE_FILES = {
    "p/__init__.py": "",
    "p/m.py": """\
from functools import partial


def f(x):
    return x


g = partial(f, 1)


def h():
    return g()


def top_h():
    return h()


HANDLERS = {"a": f}


def dispatch(k):
    return HANDLERS[k]()


def top_dispatch():
    return dispatch("a")


def middle(fn):
    return fn()


def passer():
    return middle(f)


def top_passer():
    return passer()
""",
}


def test_a_function_calling_a_value_itself_is_followed_to_its_callers(tmp_path):
    # `g()` (g = partial(f)) and `HANDLERS[k]()` are value-flow calls made by the caller
    # itself, not on behalf of a passer: the caller also references f, so its callers
    # depend on f; `middle`, called with f by passer, stays a leaf
    repo = build(tmp_path / "proj", VALUE_FILES)
    with Index.open(repo) as ix:
        r = ix.impact("p/m.py::f", include_tests=True, limit=None, check_freshness=False)
    got = dependents(r)
    m = "p/m.py::"
    assert {m + "h", m + "top_h", m + "dispatch", m + "top_dispatch"} <= got
    assert {m + "middle", m + "passer", m + "top_passer"} <= got


TAG_FILES = {
    "j/__init__.py": "",
    "j/tag.py": """\
class JSONTag:
    def __init__(self, serializer):
        self.serializer = serializer


class TagDict(JSONTag):
    pass


class Serializer:
    default_tags = [TagDict, JSONTag]

    def __init__(self):
        for cls in self.default_tags:
            self.register(cls)

    def register(self, tag_class: type[JSONTag]):
        tag = tag_class(self)
        return tag


def make():
    return Serializer()
""",
}


def test_a_relay_edge_does_not_hide_the_callers_own_call_of_the_same_target(tmp_path):
    # register constructs JSONTag by its annotation (`constructor`) and is also handed
    # JSONTag as a value (`value-flow`, an earlier line): one edge is kept per pair, and a
    # relay kept there made register a leaf upstream, losing Serializer.__init__ and make
    # (Flask's TaggedJSONSerializer.register; click's command() decorator, whose callers are
    # most of Click's tests)
    repo = build(tmp_path / "proj", TAG_FILES)
    t = "j/tag.py::"
    calls = {(a, b): reason for a, b, _, reason in edges(repo, "CALLS")}
    assert calls[(t + "Serializer.register", t + "JSONTag.__init__")] == "constructor"
    assert calls[(t + "Serializer.register", t + "TagDict")] == "value-flow"
    with Index.open(repo) as ix:
        r = ix.impact(t + "JSONTag.__init__", include_tests=True, limit=None, check_freshness=False)
    assert {t + "Serializer.register", t + "Serializer.__init__", t + "make"} <= dependents(r)


FIXTURE_FILES = {
    "web/__init__.py": "",
    "web/app.py": """\
VIEWS = []


def view(f):
    def wrapper():
        return f()

    VIEWS.append(wrapper)
    return wrapper


def abort():
    raise RuntimeError()


def make_app():
    @view
    def index():
        return abort()

    return VIEWS


def run_views():
    return [v() for v in VIEWS]
""",
    "tests/test_views.py": """\
import pytest

from web.app import abort, make_app, run_views, view


@pytest.fixture
def app():
    @view
    def do_abort():
        abort()


def test_abort(app):
    with pytest.raises(RuntimeError):
        run_views()


def test_make_app():
    assert make_app()
""",
}


def test_a_function_handing_over_its_own_closure_is_followed_to_its_callers(tmp_path):
    # a fixture applies a decorator to a view it defines (Flask's `@app.route` in a fixture):
    # the tests requesting it run the view; a repository function registering its closure
    # (`make_app`, Flask's add_app_template_filter) does so for its callers
    repo = build(tmp_path / "proj", FIXTURE_FILES)
    with Index.open(repo) as ix:
        r = ix.impact("web/app.py::abort", include_tests=True, limit=None, check_freshness=False)
    assert {"test_abort", "test_make_app"} <= selected_tests(r)
    assert {"web/app.py::make_app", "web/app.py::view.wrapper"} <= dependents(r)
