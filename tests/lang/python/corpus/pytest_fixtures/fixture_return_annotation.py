# about: a fixture's return annotation types the parameter when its body gives no type
# run: pytest
# path: pkg/__init__.py
# path: pkg/http.py
class Response:
    def json(self):
        return {}


def fetch(url):
    return Response()
    #      ^ calls: pkg.http.Response
# path: tests/__init__.py
# path: tests/test_http.py
import pytest

from pkg import http
from pkg.http import Response


@pytest.fixture
def response() -> Response:
    return http.fetch("/")
    #           ^ calls: pkg.http.fetch


def test_json(response):
    #         ^ calls: tests.test_http.response
    assert response.json() == {}
    #               ^ calls: pkg.http.Response.json
