# Calls a test reaches through its helpers and through getattr (issue 26): a parameter of a
# test helper (a top-level function of a test file, no test, no fixture) holds what every
# caller in the file passes it (rule local-type), when they all pass one value; a call of
# what `getattr(obj, "name")` returned is the call `obj.name(...)`, also through a name bound
# to it, or a parameter a parametrize mark binds to strings (each). A parameter a parametrize
# mark binds holds its value (a class, an instance constructed in the mark; rows of several
# names by position, pytest.param too) and requests no fixture of its name; `request.param`
# in a fixture with params= holds a params value. Values that differ (two classes) are
# alternatives; a helper whose callers pass nothing we know, or a getattr
# name we do not know, stay open. A property read on a helper's parameter that is one of
# several values runs each one's getter (rule dispatch: a value-flow edge would be a relay,
# leaving the helper's callers out of the getter's tests). `with pytest.raises(E) as excinfo`
# makes `excinfo.value` an E.
# path: app.py
class App:
    def test_client(self):
        return Client()

    @property
    def name(self):
        return "app"


class Client:
    def get(self):
        return 1

    def post(self):
        return 2

    def put(self):
        return 4


class Other:
    def get(self):
        return 3


class AppError(Exception):
    def __str__(self):
        return "app"
# path: tests/__init__.py
# path: tests/conftest.py
import pytest

from app import App


@pytest.fixture
def app():
    return App()
# path: tests/test_views.py
from app import Other


def common_test(app):
    c = app.test_client()
  #         ^ calls: app.App.test_client (local-type)
    c.get()
  #   ^ calls: app.Client.get (local-type)
    getattr(c, "post")()
  # ^ calls: app.Client.post (local-type)
    m = getattr(c, "put")
    m()
  # ^ calls: app.Client.put (local-type)
    method = "get"
    getattr(c, method)()
  # ^ unresolved: getattr


def test_one(app):
    common_test(app)


def test_two(app):
    common_test(app)


def mixed_helper(x):
    x.get()
  #   ^ unresolved: get


def test_mixed(app):
    mixed_helper(app.test_client())
    mixed_helper(Other())
# path: tests/test_params.py
import pytest

from app import Client, Other


@pytest.mark.parametrize("method", ["get", "post"])
def test_method(method):
    c = Client()
    getattr(c, method)()
  # ^ calls: app.Client.get (local-type)
  # ^ calls: app.Client.post (local-type)


@pytest.mark.parametrize("cls", [Client])
def test_cls(cls):
    cls().put()
  # ^ calls: app.Client (local-type)
  #       ^ calls: app.Client.put (local-type)


@pytest.mark.parametrize(("obj", "n"), [(Other(), 1), pytest.param(Other(), 2, id="b")])
def test_obj(obj, n):
    obj.get()
  #     ^ calls: app.Other.get (local-type)


@pytest.fixture
def obj():
    return Client()


@pytest.fixture(params=[Client])
def kind(request):
    return request.param


def test_kind(kind):
  #  ^ calls: tests.test_params.kind (fixture)
    kind().post()
  # ^ calls: app.Client (fixture)
  #        ^ calls: app.Client.post (local-type)


@pytest.mark.parametrize(("obj", "n"), [(Other(), 1), (Client(), 2)])
def test_two_kinds(obj, n):
  #  ^ calls: -
    obj.put()
  #     ^ calls: app.Client.put (local-type)
# path: tests/test_config.py
from app import App


class CustomApp(App):
    pass


def common_object_test(app):
    assert app.name == "app"
  #            ^ calls: app.App.name (dispatch)


def test_plain():
    app = App()
    common_object_test(app)


def test_custom():
    app = CustomApp()
    common_object_test(app)
# path: tests/test_excinfo.py
import pytest

from app import AppError


def fail():
    raise AppError()


def test_message():
    with pytest.raises(AppError) as excinfo:
        fail()
    assert str(excinfo.value) == "app"
  #        ^ calls: app.AppError.__str__ (local-type)
    assert excinfo.type is AppError
    excinfo.match("app")
  #         ^ unresolved: match
