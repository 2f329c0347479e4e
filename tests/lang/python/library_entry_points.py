# Library entry points (issue 26 point 2; table: indexer/lang/python/entrypoints.py): a
# library that is handed a function or an object calls back into the repository. The edge
# runs from where it is handed over (rule entry-point, 0.7): a WSGI application handed to a
# test client, the `application` a client subclass declares, the override a library base
# class's method calls (`get` -> `open`), a thread's target, an atexit/signal handler, a
# sorted() key, a click command handed to CliRunner.invoke (a `@click.group(cls=AppGroup)`
# function is an AppGroup, which click constructs: click's main calls its make_context,
# `@grouped.command()` is AppGroup.command; a fixture returning
# `CliRunner()` gives the runner to the tests requesting it; `partial(runner.invoke, cli)`
# binds the command: the rows apply where it is bound; `pytest.raises(E, f, x)` calls f;
# werkzeug's request/response/builder methods read the limits and hooks a subclass overrides;
# reading `request.form`/`.files`/`.json` parses the body through them; a jinja Environment
# subclass loading a template runs the get_source of the repository's jinja loaders).
# A function handed to a library the table does not know is no call.
# path: web.py
from werkzeug.datastructures import CallbackDict
from werkzeug.test import Client, EnvironBuilder


class App:
    def __call__(self, environ, start_response):
        return self.wsgi_app(environ, start_response)

    def wsgi_app(self, environ, start_response):
        return []

    def test_client(self):
        return AppClient(self)
      #        ^ calls: web.AppClient (scope)
      #        ^ calls: web.App.__call__ (entry-point)


class AppClient(Client):
    application: App

    def open(self, *args):
        return super().open(*args)
      #                ^ calls: <external>::werkzeug.test.Client.open (super)
      #                ^ calls: web.App.__call__ (entry-point)


class Builder(EnvironBuilder):
    def __init__(self, app, *args, **kwargs):
        super().__init__(*args, **kwargs)


def from_environ(environ):
    return Builder.from_environ(environ)
  #                ^ calls: <external>::werkzeug.test.EnvironBuilder.from_environ (inheritance)
  #                ^ calls: web.Builder.__init__ (entry-point)


class Session(CallbackDict):
    def __init__(self, initial=None):
        def on_update(self):
            self.modified = True

        super().__init__(initial, on_update)
      #                ^ calls: <external>::werkzeug.datastructures.CallbackDict.__init__ (super)
      #                ^ calls: web.Session.__init__.on_update (entry-point)


def serve(app: App):
    client = Client(app)
  #          ^ calls: <external>::werkzeug.test.Client (import)
  #          ^ calls: web.App.__call__ (entry-point)
    return client
# path: wrappers.py
from werkzeug.test import EnvironBuilder as BuilderBase
from werkzeug.wrappers import Request as RequestBase
from werkzeug.wrappers import Response as ResponseBase


class Request(RequestBase):
    @property
    def max_content_length(self):
        return 10

    def _load_form_data(self):
        super()._load_form_data()
      #         ^ calls: <external>::werkzeug.wrappers.Request._load_form_data (super)
      #         ^ calls: wrappers.Request.max_content_length (entry-point)

    def on_json_loading_failed(self, e):
        return None


class Response(ResponseBase):
    @property
    def max_cookie_size(self):
        return 4093


class Builder(BuilderBase):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
      #         ^ calls: <external>::werkzeug.test.EnvironBuilder.__init__ (super)
      #         ^ calls: wrappers.Builder.json_dumps (entry-point)

    def json_dumps(self, obj):
        return str(obj)


def save(response: Response, request: Request):
    response.set_cookie("k", "v")
  #          ^ calls: <external>::werkzeug.wrappers.Response.set_cookie (local-type)
  #          ^ calls: wrappers.Response.max_cookie_size (entry-point)
    return request.get_json()
  #                ^ calls: <external>::werkzeug.wrappers.Request.get_json (local-type)
  #                ^ calls: wrappers.Request.on_json_loading_failed (entry-point)
  #                ^ calls: wrappers.Request.max_content_length (entry-point)


def fields(request: Request):
    name = request.form["name"]
  #                ^ calls: wrappers.Request._load_form_data (entry-point)
    return name, request.json
  #                      ^ calls: wrappers.Request.on_json_loading_failed (entry-point)
  #                      ^ calls: wrappers.Request.max_content_length (entry-point)
# path: jobs.py
import atexit
import signal
import threading
from concurrent.futures import ThreadPoolExecutor


def work():
    return 1


def on_term(signum, frame):
    return signum


def flush():
    return 0


def rank(n):
    return -n


class Token:
    def __new__(cls, text):
        return super().__new__(cls)


def start():
    t = threading.Thread(target=work)
  #     ^ calls: <external>::threading.Thread (import)
  #     ^ calls: jobs.work (entry-point)
    t.start()
    signal.signal(signal.SIGTERM, on_term)
  # ^ calls: <external>::signal.signal (import)
  # ^ calls: jobs.on_term (entry-point)
    atexit.register(flush)
  # ^ calls: <external>::atexit.register (import)
  # ^ calls: jobs.flush (entry-point)
    return sorted([3, 1], key=rank)
         # ^ calls: jobs.rank (entry-point)


def unknown_library(lib):
    lib.later(flush)
  # ^ calls: -


def run_pool():
    pool = ThreadPoolExecutor()
    return pool.submit(work)
  #             ^ calls: <external>::concurrent.futures.ThreadPoolExecutor.submit (local-type)
  #             ^ calls: jobs.work (entry-point)


class Worker(threading.Thread):
    def run(self):
        return work()


def spawn():
    w = Worker()
    w.start()
  # ^ calls: <external>::threading.Thread.start (local-type)
  # ^ calls: jobs.Worker.run (entry-point)
# path: cli.py
import click
from click.testing import CliRunner


@click.command()
def hello():
    return click.echo("hi")


class Session:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def with_session(ctx: click.Context):
    session = Session()
    ctx.with_resource(session)
  #     ^ calls: <external>::click.Context.with_resource (local-type)
  #     ^ calls: cli.Session.__enter__ (entry-point)
  #     ^ calls: cli.Session.__exit__ (entry-point)


def test_hello():
    runner = CliRunner()
    result = runner.invoke(hello)
  #                 ^ calls: <external>::click.testing.CliRunner.invoke (local-type)
  #                 ^ calls: cli.hello (entry-point)
    return result


class AppGroup(click.Group):
    def make_context(self, info_name, args, parent=None, **extra):
        return super().make_context(info_name, args, parent, **extra)

    def command(self, *args, **kwargs):
        def decorator(f):
            return super(AppGroup, self).command(*args, **kwargs)(f)

        return decorator


#v calls: <external>::click.group (import)
#v calls: cli.AppGroup (entry-point)
@click.group(cls=AppGroup)
def grouped():
    pass


#        v calls: cli.AppGroup.command (decorator)
#        v calls: cli.AppGroup.command.decorator (decorator)
@grouped.command()
def sub():
    pass


def test_grouped():
    runner = CliRunner()
    runner.invoke(grouped)
  #        ^ calls: <external>::click.testing.CliRunner.invoke (local-type)
  #        ^ calls: cli.AppGroup.make_context (entry-point)
# path: tmpl.py
import jinja2


class Loader(jinja2.BaseLoader):
    def get_source(self, environment, template):
        return "", None, None

    def list_templates(self):
        return []


class Other:
    def get_source(self, environment, template):
        return "", None, None


class Env(jinja2.Environment):
    pass


def render(env: Env):
    return env.get_template("page.html")
  #            ^ calls: <external>::jinja2.Environment.get_template (local-type)
  #            ^ calls: tmpl.Loader.get_source (entry-point)
  #            ^ !calls: tmpl.Other.get_source


def names(env: Env):
    return env.list_templates()
  #            ^ calls: <external>::jinja2.Environment.list_templates (local-type)
  #            ^ calls: tmpl.Loader.list_templates (entry-point)
# path: tests/__init__.py
# path: tests/test_web.py
from web import App


def test_get():
    client = App().test_client()
    return client.get("/")
  #               ^ calls: web.AppClient.open (entry-point)
  #               ^ calls: <external>::werkzeug.test.Client.get (local-type)
# path: tests/test_cli.py
from functools import partial

import pytest
from click.testing import CliRunner

from cli import AppGroup, grouped


@pytest.fixture
def runner():
    return CliRunner()


def test_grouped_by_fixture(runner):
    runner.invoke(grouped)
  #        ^ calls: <external>::click.testing.CliRunner.invoke (fixture)
  #        ^ calls: cli.AppGroup.make_context (entry-point)


@pytest.fixture
def invoke(runner):
    group = AppGroup()
    return partial(runner.invoke, group)
  #        ^ calls: <external>::functools.partial (import)
  #        ^ calls: cli.AppGroup.make_context (entry-point)


def invoke_grouped(runner: CliRunner):
    return partial(runner.invoke, grouped, catch_exceptions=False)
  #        ^ calls: <external>::functools.partial (import)
  #        ^ calls: cli.AppGroup.make_context (entry-point)
# path: tests/test_raises.py
import pytest

from jobs import Token, flush, work


def test_raises_calls_the_function():
    pytest.raises(ValueError, work)
  # ^ calls: <external>::pytest.raises (import)
  # ^ calls: jobs.work (entry-point)
    pytest.raises(TypeError, Token)
  #        ^ calls: jobs.Token (entry-point)
  #        ^ calls: jobs.Token.__new__ (entry-point)
    pytest.deprecated_call(flush)
  # ^ calls: <external>::pytest.deprecated_call (import)
  # ^ calls: jobs.flush (entry-point)
