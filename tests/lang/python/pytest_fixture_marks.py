# pytest fixtures a test requests without a parameter (issue 26 point 1): autouse fixtures of
# the conftest.py files above, of the module and of the test's class; usefixtures marks on
# the test, its class, a class's or module's `pytestmark`; `request.getfixturevalue` with a
# literal; `@pytest.fixture(name=...)`; a generator fixture gives what it yields (a `with`
# target, a construction); a parametrised fixture is still a fixture. Each edge is the
# test's (at its definition's first line) and reason fixture.
# path: app.py
class App:
    def app_context(self):
        return Ctx()


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return None

    def push(self):
        return 1


class Store:
    def size(self):
        return 0
# path: tests/__init__.py
# path: tests/conftest.py
import pytest

from app import App


@pytest.fixture(scope="session", autouse=True)
def environ():
    yield {}


@pytest.fixture
def app():
    return App()


#v calls: tests.conftest.app (fixture)
@pytest.fixture
def ctx(app):
    with app.app_context() as c:
        yield c


@pytest.fixture
def unused():
    return 1


@pytest.fixture(params=["a", "b"])
def backend(request):
    return request.param
# path: tests/test_marks.py
import pytest

from app import Store

pytestmark = pytest.mark.usefixtures("unused")


@pytest.fixture(autouse=True)
def reset():
    pass


@pytest.fixture(name="db")
def db_fixture():
    return Store()


def test_plain():
  #  ^ calls: tests.conftest.environ (fixture)
  #  ^ calls: tests.test_marks.reset (fixture)
  #  ^ calls: tests.conftest.unused (fixture)
    pass


def test_named(db):
  #  ^ calls: tests.test_marks.db_fixture (fixture)
  #  ^ calls: tests.conftest.environ (fixture)
  #  ^ calls: tests.test_marks.reset (fixture)
  #  ^ calls: tests.conftest.unused (fixture)
    db.size()
  #    ^ calls: app.Store.size (fixture)


def test_yielded(ctx, backend):
  #  ^ calls: tests.conftest.ctx (fixture)
  #  ^ calls: tests.conftest.backend (fixture)
  #  ^ calls: tests.conftest.environ (fixture)
  #  ^ calls: tests.test_marks.reset (fixture)
  #  ^ calls: tests.conftest.unused (fixture)
    ctx.push()
  #     ^ calls: app.Ctx.push (fixture)


def test_dynamic(request):
  #  ^ calls: tests.conftest.environ (fixture)
  #  ^ calls: tests.test_marks.reset (fixture)
  #  ^ calls: tests.conftest.unused (fixture)
    a = request.getfixturevalue("app")
  #             ^ calls: tests.conftest.app (fixture)
    a.app_context()
  #   ^ calls: app.App.app_context (fixture)


#v calls: tests.conftest.app (fixture)
#v calls: tests.conftest.environ (fixture)
#v calls: tests.test_marks.reset (fixture)
#v calls: tests.conftest.unused (fixture)
@pytest.mark.usefixtures("app")
def test_marked():
  #  ^ calls: -
    pass


@pytest.mark.usefixtures("ctx")
class TestGroup:
    pytestmark = [pytest.mark.usefixtures("db")]

    @pytest.fixture(autouse=True)
    def own(self):
        pass

    def test_method(self):
      #  ^ calls: tests.test_marks.TestGroup.own (fixture)
      #  ^ calls: tests.conftest.ctx (fixture)
      #  ^ calls: tests.test_marks.db_fixture (fixture)
      #  ^ calls: tests.conftest.environ (fixture)
      #  ^ calls: tests.test_marks.reset (fixture)
      #  ^ calls: tests.conftest.unused (fixture)
        pass


def helper(app):
  #  ^ calls: -
    pass
