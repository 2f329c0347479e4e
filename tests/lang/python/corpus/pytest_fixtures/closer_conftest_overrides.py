# about: a fixture redefined in a closer conftest.py overrides the outer one for its folder
# run: pytest
# path: pkg/__init__.py
# path: pkg/clients.py
class Client:
    def get(self):
        return "plain"


class AuthClient(Client):
    def get(self):
        return "auth"
# path: tests/__init__.py
# path: tests/conftest.py
import pytest

from pkg.clients import Client


@pytest.fixture
def client():
    return Client()
    #      ^ calls: pkg.clients.Client
# path: tests/api/__init__.py
# path: tests/api/conftest.py
import pytest

from pkg.clients import AuthClient


@pytest.fixture
def client():
    return AuthClient()
    #      ^ calls: pkg.clients.AuthClient
# path: tests/api/test_api.py
def test_get(client):
    #        ^ calls: tests.api.conftest.client
    assert client.get() == "auth"
    #             ^ calls: pkg.clients.AuthClient.get
# path: tests/test_plain.py
def test_plain(client):
    #          ^ calls: tests.conftest.client
    assert client.get() == "plain"
    #             ^ calls: pkg.clients.Client.get
