# pytest fixtures (issue 26 point 1): a test's parameter binds to the fixture of its name by
# pytest's rules (a fixture method of the test's class, the test module's top level, then the
# conftest.py files above, nearest first; an override requesting its own name reaches the
# next one); the test calls the fixture (reason fixture) and the parameter holds what the
# fixture returns. `request` (a pytest builtin fixture) binds nothing.
# path: app.py
class Runner:
    def invoke(self):
        return 1


class App:
    def test_client(self):
        return Client()


class Client:
    def get(self):
        return 2
# path: tests/__init__.py
# path: tests/sub/__init__.py
# path: tests/conftest.py
import pytest

from app import App, Runner


@pytest.fixture
def runner():
    return Runner()


@pytest.fixture
def app():
    return App()


#v calls: tests.conftest.app (fixture)
@pytest.fixture
def client(app):
    return app.test_client()
  #            ^ calls: app.App.test_client (fixture)
# path: tests/sub/conftest.py
import pytest


#v calls: <external>::pytest.fixture (import)
#v calls: tests.conftest.app (fixture)
@pytest.fixture
def app(app):
    return app
# path: tests/sub/test_cli.py
from collections.abc import Iterator

import pytest

from app import Client


#v calls: <external>::pytest.fixture (import)
#v calls: tests.conftest.runner (fixture)
@pytest.fixture
def local_runner(runner):
    return runner


def test_invoke(runner, request):
  #  ^ calls: tests.conftest.runner (fixture)
    runner.invoke()
  #        ^ calls: app.Runner.invoke (fixture)


def test_chain(local_runner):
  #  ^ calls: tests.sub.test_cli.local_runner (fixture)
    local_runner.invoke()
  #              ^ calls: app.Runner.invoke (fixture)


def test_override(app, client):
  #  ^ calls: tests.sub.conftest.app (fixture)
  #  ^ calls: tests.conftest.client (fixture)
    app.test_client()
  #     ^ calls: app.App.test_client (fixture)
    client.get()
  #        ^ calls: app.Client.get (fixture)


@pytest.fixture
def served() -> Iterator[Client]:
    yield Client()
  #       ^ calls: app.Client (import)


def test_served(served):
  #  ^ calls: tests.sub.test_cli.served (fixture)
    served.get()
  #        ^ calls: app.Client.get (fixture)


class TestGroup:
    @pytest.fixture
    def runner(self):
        return 3

    def test_method(self, runner, app):
      #  ^ calls: tests.sub.test_cli.TestGroup.runner (fixture)
      #  ^ calls: tests.sub.conftest.app (fixture)
        pass


def not_a_test(runner):
  #  ^ calls: -
    runner.invoke()
  #        ^ calls: app.Runner.invoke (unique-name)
