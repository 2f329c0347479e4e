"""Python: extraction (extract.py, chains.py, bindings.py; queries.scm), resolution (resolve.py).

Project rules (paths.py): a module is named by its path below the outermost package folder
(`module_name`); tests are `test_*.py` / `*_test.py` files and files under `tests/`.
Where function bodies start (bodies.py) is what observed coverage maps lines with.
"""

from codeimpact.indexer.lang.api import LanguageSpec, ResolverProject
from codeimpact.indexer.lang.python import extract, paths, plan
from codeimpact.indexer.lang.python.bodies import function_bodies
from codeimpact.indexer.lang.python.pytest_names import implicit_names

NAME = "python"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
# 1: the resolver as of 71c6acd (benchmarks/spec), moved onto lang/engine.
# 2: decorators as what they are (issue 25): called from the enclosing scope, `@d(x)` applied,
#    calls of a decorated name reach what the decorators returned (decorators.py).
# 3: reading a property (or cached_property) is a call of its getter (issue 25).
# 4: pytest fixtures (issue 26): tests call the fixtures they request, fixture-typed
#    parameters (fixtures.py); the change plan reads tests' parameter names.
# 5: library entry points (issue 26): the table of entrypoints.py (library_calls.py).
# 6: pytest autouse fixtures, usefixtures marks, getfixturevalue literals, fixture(name=),
#    yield fixtures by what they yield (fixtures.py); the plan counts pytest's names.
# 7: entry points through library classmethods and super().__init__ (library_calls.py).
# 8: implicit calls (issue 25, implicit.py): `with` (__enter__/__exit__), `for` (__iter__,
#    __next__), builtins' protocol methods (len -> __len__), __new__, __post_init__, setters
#    and descriptors' __get__/__set__; property reads dispatch to subclasses' properties.
# 9: containers and unpacking (issue 25): the items of literal collections, `x[k] = v`,
#    `x.append(v)`, unpacking (containers.py).
# 10: pytest parametrize values and fixture params (request.param) type parameters, a test
#    helper's parameter holds what its callers pass, getattr with a known name is the call,
#    `@click.group(cls=G)` functions are G instances for the entry-point table.
# 11: attribute reads inside expressions run property getters and descriptors' __get__
#     (reads.py), evaluated only for the repository's property and descriptor names.
# 12: `functools.partial(f, a)` of a library callable f: f's entry-point rows apply to the
#     bound arguments where they are bound (`partial(runner.invoke, cli)`).
# 13: a decorated name used as a receiver is the instance its decorators made
#     (`@click.command() def cli`, then `cli.main()`; decorators.py made_instance).
# 14: registries on the instance (registries.py): a parameter stored into a `self.x`
#     container is called where a method of the class, its bases or subclasses calls an
#     item of self.x (or the value of a method handing one out); `self.m(fn)` also reaches
#     the overrides of m; one of several values passed as an argument flows to the sinks.
# 15: import semantics (names.py): of several star imports the last one binding a name wins;
#     a name imported in two branches of a try/except ImportError or an if/else holds either
#     import's value (`value-flow`); `importlib.import_module("a.b")` / `__import__("a")`
#     with a literal bind that module; calling a library name written like a class makes
#     an instance of it (`OrderedDict().move_to_end` is collections.OrderedDict.move_to_end).
# 16: `pytest.raises(E, f, *args)`, `pytest.warns(W, f)`, `pytest.deprecated_call(f)` call f
#     (entry-point table rows); a class passed to a callee that calls it: the caller
#     references its __init__ too (impact follows the caller up from the constructor);
#     werkzeug Request/Response/EnvironBuilder methods call the limits and hooks a
#     subclass overrides (max_content_length, max_cookie_size, json_dumps, ...)
# 17: a generator function's call, iterated (`for x in gen()`, a class whose `__iter__` is a
#     generator), gives what it yields; a local bound to a parameter and called (`alias =
#     cb; alias()`) calls what the parameter was passed (issue 25).
# 18: a bound method called through a local alias (`report = e.show` ... `report()`)
#     dispatches to the overrides as `e.show()` does; with extraction 16 (`except E as e`).
#     An assignment to a member of a chain (`self.env.auto_reload = v`) reads the chain's
#     members first: their property getters run (implicit.py write_edges); a werkzeug
#     LocalProxy's `_get_current_object()` is the object of the proxy's annotated type.
# 19: `x = y[k]` binds x to the item under k (any item for a key known at run time), and
#     nested unpacking patterns bind their names (extraction 17).
# 20: a lambda passed to a call (`self.record(lambda s: s.add_url_rule(...))`): its
#     parameters hold what the callee's declared callable type says it is called with
#     (`func: Callable[[State], None]`, also through a one-line module type alias), by the
#     rule `local-type`; with extraction 18 (callbacks.py). Passed to an untyped callee, its
#     parameters are values we cannot follow, as unannotated parameters are (a method
#     called on one gets the unique-name guess; before, such calls were not resolved).
# 21: a union type (`A | B`, `Union[A, B]`) is one of its arms that resolve (alternatives),
#     not the first: a method called on it reaches each arm's method and, per arm, the
#     overrides (dispatch per receiver arm, resolve.py _arms_call); the item at a position
#     of a declared tuple unpacked (`a, b = f()` with `-> tuple[A, B]`) is local-type, not
#     value-flow.
# 22: with extraction 19: `x = a or b` binds x to what a holds (`self.params = params or
#     []` with `params: list[Parameter] | None`; a parameter stored so is called where
#     `self.x()` is, as `self.x = param` was).
# 23: entry-point rows: textwrap.TextWrapper.fill -> wrap -> _split_chunks, _wrap_chunks ->
#     _handle_long_word (a subclass's overrides run: click's TextWrapper).
# 24, 25: truth's returned and iterated literal collections (cf12923, ad5eb59), reverted:
#     a body edit of Django's Model.delete reached 8,044 names through the plan's flow
#     binders and rebuilt in full (tests/test_incremental_django.py).
# 26: as 23 (the numbers of the reverted rules are not reused).
# 27: a function of a test file importing a module in its body IMPORTS that module (its
#     top-level code runs when the function does: `from blueprintapp import app`).
# 28: a `@click.group(cls=AppGroup)` function is an AppGroup as a receiver too
#     (`@cli.command()` is AppGroup.command), and the library constructs the class where
#     the definition stands (DecoratorMakes rows: AppGroup.__init__ runs there).
# 29: with extraction 23, the rules of 24 and 25 again: a call of a function returning a
#     literal collection gives that collection (`ret$K`), a `for` or comprehension over a
#     literal binds each item (`it$N`); a returned literal is no registry item handed out.
# 30: a class an entry-point row calls (`pytest.raises(E, Template, src)`) is constructed as a
#     call of it is: a `__new__` it defines runs too (and a dataclass's `__post_init__`);
#     reading `request.form`/`.files`/`.json` on a werkzeug Request subclass runs what the
#     table's rows of that name reach (`_load_form_data`, `get_json`: the entry table's
#     read_hooks, which are read names of every project).
# 31: with extraction 24: a literal collection passed as an argument (`run([f, g])`, `arg$N`)
#     or a name bound to one reaches the scopes that call an item of the parameter it lands
#     in (`items[0]()`, `for f in items: f()`, flows.py item_sinks); a keyword no parameter
#     is named for lands in `**kwargs` (`kwargs["cb"]()`, spread on by `inner(**kwargs)`);
#     `run(**opts)` passes a literal dict's items by their keys; a call whose only argument
#     is `**p`, p a parameter of its function, resolves as one without arguments.
# 32: a parameter whose default names a function or class (`def run(cb=fallback)`, not a
#     constant-named sentinel) holds it or what a caller passes; a binding's value is looked
#     up before its own statement binds (`a, b = b, a`, `qs = qs.filter()`).
# 33: a property read on one of several values (a test helper's parameter) runs each one's
#     getter (dispatch); `with pytest.raises(E) as excinfo` makes excinfo.value an E;
#     `hasattr(x, name)` runs a repository __getattr__; calling `weakref.ref(obj)` gives obj;
#     a method returning a function it defines references it (`View.as_view`'s view); a
#     test module's `from m import x` IMPORTS m too (importing x runs m's top-level code).
# 34: a jinja Environment loading or listing templates (`env.get_template()`) runs the
#     get_source/list_templates of every repository subclass of jinja2.BaseLoader (`@` hooks).
RESOLVE_VERSION = 34


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.python.resolve import PythonProject

    return PythonProject


SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".py", ".pyi"),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=paths.is_test_path,
    resolver=resolver_class,
    package=__name__,
    changed_names=plan.changed_names,
    function_bodies=function_bodies,
    implicit_names=implicit_names,
    without_offsets=plan.without_offsets,
    file_scoped_names=True,
    flow_rules=plan.FLOW_RULES,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
