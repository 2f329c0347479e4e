# about: a module-scoped fixture runs once, yet every test that requests it depends on it
# run: pytest
# path: pkg/__init__.py
# path: pkg/res.py
class Resource:
    def read(self):
        return "r"
# path: tests/__init__.py
# path: tests/test_res.py
import pytest

from pkg.res import Resource


@pytest.fixture(scope="module")
def resource():
    return Resource()
    #      ^ calls: pkg.res.Resource


def test_one(resource):
    #        ^ calls: tests.test_res.resource
    assert resource.read() == "r"
    #               ^ calls: pkg.res.Resource.read


def test_two(resource):
    #        ^ calls: tests.test_res.resource
    assert resource.read() == "r"
    #               ^ calls: pkg.res.Resource.read
