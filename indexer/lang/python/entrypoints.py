"""Python's table of library entry points: how well-known libraries call back into the
repository (data only; the shape is lang/engine/entrypoints.py, the rule library_calls.py,
the documentation docs/entrypoints.md).

Each row names the library callable (or class) by every dotted name a repository imports it
as. Builtins are `builtins.NAME`. A row is added when the library documents the call (a
test client calling its WSGI application, `Thread.start` running `run`), never for a call
that depends on data (a URL routed to a view, `getattr(self, "do_" + method)`).
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.entrypoints import (
    CallsArgument,
    CallsSelf,
    DecoratorMakes,
    EntryTable,
)


def _names(*dotted: str) -> tuple[str, ...]:
    return dotted


_WERKZEUG_CLIENT = _names("werkzeug.test.Client", "werkzeug.Client")
_FLASK_CLIENT = _names("flask.testing.FlaskClient")
_CLICK_COMMAND = _names("click.Command", "click.core.Command", "click.BaseCommand",
                        "click.core.BaseCommand")  # fmt: skip
_CLICK_GROUP = _names("click.Group", "click.core.Group", "click.MultiCommand",
                      "click.core.MultiCommand")  # fmt: skip
_JINJA_ENV = _names("jinja2.Environment", "jinja2.environment.Environment")
_HTTP_METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")
_WERKZEUG_REQUEST = _names("werkzeug.wrappers.Request", "werkzeug.wrappers.request.Request",
                           "werkzeug.Request")  # fmt: skip
_WERKZEUG_RESPONSE = _names("werkzeug.wrappers.Response", "werkzeug.wrappers.response.Response",
                            "werkzeug.Response", "werkzeug.sansio.response.Response")  # fmt: skip


ARGUMENTS = (
    # ---------------------------------------------------------------- called while the caller waits
    CallsArgument(_names("builtins.map", "builtins.filter", "functools.reduce"), 0,
                  why="map/filter/reduce call the function they are given"),
    CallsArgument(_names("builtins.sorted", "builtins.min", "builtins.max"), None, "key",
                  why="sorted/min/max call their key function"),
    CallsArgument(_names("json.dumps", "json.dump"), None, "default",
                  why="json calls `default` for objects it cannot encode"),
    CallsArgument(_names("json.loads", "json.load"), None, "object_hook",
                  why="json calls `object_hook` on every decoded object"),
    CallsArgument(_names("pytest.raises", "pytest.warns", "_pytest.python_api.raises",
                         "_pytest.raises.raises", "_pytest.recwarn.warns"), 1,
                  why="`pytest.raises(E, f, *args)` (its old call form) calls f with the args"),
    CallsArgument(_names("pytest.deprecated_call", "_pytest.recwarn.deprecated_call"), 0, "func",
                  why="`pytest.deprecated_call(f, *args)` calls f with the args"),
    # ---------------------------------------------------------------- called later or elsewhere
    CallsArgument(_names("threading.Thread", "multiprocessing.Process"), None, "target",
                  why="the thread (process) runs its target"),
    CallsArgument(_names("threading.Timer"), 1, "function", why="the timer calls `function`"),
    CallsArgument(_names("atexit.register"), 0, why="runs at interpreter exit"),
    CallsArgument(_names("signal.signal"), 1, "handler", why="runs when the signal arrives"),
    CallsArgument(_names("weakref.finalize"), 1, why="runs when the object is collected"),
    CallsArgument(_names("concurrent.futures.Executor.submit", "concurrent.futures.Executor.map",
                         "concurrent.futures.ThreadPoolExecutor.submit",
                         "concurrent.futures.ThreadPoolExecutor.map",
                         "concurrent.futures.ProcessPoolExecutor.submit",
                         "concurrent.futures.ProcessPoolExecutor.map"), 0, "fn",
                  why="a worker calls the function submitted"),
    CallsArgument(_names("contextlib.ExitStack.callback", "contextlib.AsyncExitStack.callback",
                         "unittest.TestCase.addCleanup", "unittest.TestCase.addClassCleanup",
                         "unittest.case.TestCase.addCleanup"), 0,
                  why="runs when the stack closes / the test finishes"),
    CallsArgument(_names("contextlib.ExitStack.enter_context", "click.Context.with_resource",
                         "click.core.Context.with_resource"), 0, "cm",
                  members=("__enter__", "__exit__"),
                  why="enters the context manager now, exits it when the stack closes"),
    CallsArgument(_names("itsdangerous.Serializer", "itsdangerous.URLSafeSerializer",
                         "itsdangerous.TimedSerializer", "itsdangerous.URLSafeTimedSerializer",
                         "itsdangerous.serializer.Serializer",
                         "itsdangerous.url_safe.URLSafeSerializer",
                         "itsdangerous.url_safe.URLSafeTimedSerializer"), 2, "serializer",
                  members=("dumps", "loads"),
                  why="the signer serializes payloads with the serializer given"),
    CallsArgument(_names("werkzeug.datastructures.CallbackDict",
                         "werkzeug.datastructures.structures.CallbackDict"), 1, "on_update",
                  why="the dict calls on_update after each change"),
    # ---------------------------------------------------------------- WSGI/ASGI applications
    CallsArgument(_WERKZEUG_CLIENT, 0, "application",
                  why="the test client calls the WSGI application for each request"),
    CallsArgument(_names("werkzeug.serving.run_simple", "werkzeug.run_simple"), 2, "application",
                  why="the development server calls the WSGI application for each request"),
    CallsArgument(_names("wsgiref.simple_server.make_server"), 2, "app",
                  why="the server calls the WSGI application for each request"),
    CallsArgument(_names("starlette.testclient.TestClient", "fastapi.testclient.TestClient"), 0,
                  "app", why="the test client calls the ASGI application for each request"),
    CallsArgument(_names("httpx.ASGITransport", "httpx.WSGITransport"), 0, "app",
                  why="the transport calls the application for each request"),
    CallsArgument(_names("uvicorn.run"), 0, "app", why="the server calls the ASGI application"),
    # ---------------------------------------------------------------- click
    CallsArgument(_names("click.testing.CliRunner.invoke"), 0, "cli", members=("main",),
                  function_stands_for_object=True,
                  why="the runner calls the command's main (a @click.command function runs)"),
    CallsArgument(_names("click.Option", "click.Argument", "click.Parameter", "click.option",
                         "click.argument", "click.core.Option", "click.core.Argument",
                         "click.decorators.option", "click.decorators.argument",
                         *_CLICK_COMMAND, *_CLICK_GROUP), None, "callback",
                  why="click calls a parameter's (command's) callback when it runs"),
)  # fmt: skip

HOOKS = (
    CallsSelf(_WERKZEUG_CLIENT, "open", ("application",),
              why="open() runs the WSGI application with the request's environ"),
    *(CallsSelf(_WERKZEUG_CLIENT, m, ("open",), why=f"{m}() is open(method=...)")
      for m in (*_HTTP_METHODS, "resolve_redirect")),
    CallsSelf(_names("werkzeug.test.EnvironBuilder"), "from_environ", ("__init__",),
              why="the classmethod constructs the class it is called on"),
    CallsSelf(_names("werkzeug.test.EnvironBuilder"), "__init__", ("json_dumps",),
              why="the builder serializes a `json=` body with json_dumps"),
    CallsSelf(_WERKZEUG_REQUEST, "_load_form_data", ("make_form_data_parser",),
              why="parsing the form makes the form data parser"),
    CallsSelf(_WERKZEUG_REQUEST, "make_form_data_parser",
              ("max_form_memory_size", "max_content_length", "max_form_parts"),
              why="the parser is bounded by the request's limits"),
    CallsSelf(_WERKZEUG_REQUEST, "form", ("_load_form_data",),
              why="reading form (a cached property) parses the body"),
    CallsSelf(_WERKZEUG_REQUEST, "files", ("_load_form_data",),
              why="reading files (a cached property) parses the body"),
    CallsSelf(_WERKZEUG_REQUEST, "json", ("get_json",), why="reading json is get_json()"),
    CallsSelf(_WERKZEUG_REQUEST, "get_data", ("max_content_length",),
              why="the input stream is bounded by max_content_length"),
    CallsSelf(_WERKZEUG_REQUEST, "get_json", ("get_data", "on_json_loading_failed"),
              why="get_json reads the body and calls on_json_loading_failed on bad JSON"),
    CallsSelf(_WERKZEUG_RESPONSE, "set_cookie", ("max_cookie_size",),
              why="set_cookie bounds the cookie by max_cookie_size"),
    CallsSelf(_names("threading.Thread"), "start", ("run",), why="the thread runs run()"),
    CallsSelf(_names("json.JSONEncoder"), "encode", ("iterencode", "default"),
              why="default() encodes what json cannot"),
    CallsSelf(_names("json.JSONEncoder"), "iterencode", ("default",)),
    CallsSelf(_names("logging.Handler"), "handle", ("filter", "emit"),
              why="a handler's handle() filters and emits the record"),
    CallsSelf(_names("html.parser.HTMLParser"), "feed",
              ("handle_starttag", "handle_endtag", "handle_startendtag", "handle_data",
               "handle_comment", "handle_decl", "handle_pi", "handle_entityref",
               "handle_charref"), why="the parser calls a handler per token"),
    CallsSelf(_names("socketserver.BaseRequestHandler"), "__init__", ("setup", "handle", "finish"),
              why="the request handler runs on construction"),
    CallsSelf(_names("textwrap.TextWrapper"), "fill", ("wrap",), why="fill() joins wrap()'s lines"),
    CallsSelf(_names("textwrap.TextWrapper"), "wrap", ("_split_chunks", "_wrap_chunks"),
              why="wrap() splits the text into chunks and wraps them into lines"),
    CallsSelf(_names("textwrap.TextWrapper"), "_split_chunks", ("_munge_whitespace", "_split")),
    CallsSelf(_names("textwrap.TextWrapper"), "_wrap_chunks", ("_handle_long_word",),
              why="a word longer than the width is broken by _handle_long_word"),
    *(CallsSelf(_JINJA_ENV, m, ("@jinja2.BaseLoader.get_source",),
                why="the environment loads the template's source from its loader")
      for m in ("get_template", "select_template", "get_or_select_template")),
    CallsSelf(_JINJA_ENV, "list_templates", ("@jinja2.BaseLoader.list_templates",),
              why="the environment lists its loader's templates"),
    CallsSelf(_CLICK_COMMAND, "main", ("make_context", "invoke"),
              why="main() makes the context and invokes the command"),
    CallsSelf(_CLICK_COMMAND, "make_context", ("parse_args",)),
    CallsSelf(_CLICK_COMMAND, "invoke", ("callback",), why="invoke() calls the callback"),
    CallsSelf(_CLICK_GROUP, "invoke", ("resolve_command", "callback"),
              why="a group resolves the subcommand, then invokes it"),
    CallsSelf(_CLICK_GROUP, "resolve_command", ("get_command",)),
)  # fmt: skip

BASES = {
    **{n: _WERKZEUG_CLIENT for n in _FLASK_CLIENT},
    "flask.cli.FlaskGroup": ("flask.cli.AppGroup",),
    "flask.cli.AppGroup": _CLICK_GROUP,
    "flask.testing.FlaskCliRunner": ("click.testing.CliRunner",),
    **{n: _CLICK_COMMAND for n in _CLICK_GROUP},
    "jinja2.loaders.BaseLoader": ("jinja2.BaseLoader",),
    "concurrent.futures.ThreadPoolExecutor": ("concurrent.futures.Executor",),
    "concurrent.futures.ProcessPoolExecutor": ("concurrent.futures.Executor",),
    "unittest.IsolatedAsyncioTestCase": ("unittest.TestCase",),
    "unittest.TestCase": ("unittest.case.TestCase",),
    "logging.StreamHandler": ("logging.Handler",),
    "logging.FileHandler": ("logging.StreamHandler",),
    "socketserver.StreamRequestHandler": ("socketserver.BaseRequestHandler",),
    "http.server.BaseHTTPRequestHandler": ("socketserver.StreamRequestHandler",),
}

INSTANCES = frozenset((
    "click.testing.CliRunner", "click.Context", "click.core.Context", "contextlib.ExitStack",
    "concurrent.futures.ThreadPoolExecutor", "concurrent.futures.ProcessPoolExecutor",
    "concurrent.futures.Executor",
))  # fmt: skip

DECORATORS = (
    DecoratorMakes(_names("click.command", "click.group", "click.decorators.command",
                          "click.decorators.group"), "cls",
                   why="`@click.group(cls=FlaskGroup)` makes the function a FlaskGroup"),
)  # fmt: skip

# `partial(runner.invoke, cli)`: the call of the partial later is `runner.invoke(cli, ...)`
BINDERS = frozenset(("functools.partial",))

# read, not called: `request.form["x"]` runs werkzeug's form property
READ_HOOKS = frozenset(("form", "files", "json"))

TABLE = EntryTable(ARGUMENTS, HOOKS, BASES, INSTANCES, DECORATORS, BINDERS, READ_HOOKS)
# the calls of a hooked method that runs every repository subclass's (`@` rows), by suffix
FAR_SUFFIXES = tuple(f".{m}" for m in TABLE.far_calls)
