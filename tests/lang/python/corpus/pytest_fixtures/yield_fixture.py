# about: a yield fixture: the test depends on it and the yielded value types the parameter
# run: pytest
# path: pkg/__init__.py
# path: pkg/server.py
class Server:
    def start(self):
        return self

    def stop(self):
        return True

    def url(self):
        return "http://x"
# path: tests/__init__.py
# path: tests/test_server.py
import pytest

from pkg.server import Server


@pytest.fixture
def server():
    s = Server().start()
    #   ^ calls: pkg.server.Server
    #            ^ calls: pkg.server.Server.start
    yield s
    s.stop()
    # ^ calls: pkg.server.Server.stop


def test_url(server):
    #        ^ calls: tests.test_server.server
    assert server.url().startswith("http")
    #             ^ calls: pkg.server.Server.url
