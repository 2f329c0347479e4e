# about: a parametrised fixture makes one test item per parameter; each depends on the fixture
# run: pytest
# path: pkg/__init__.py
# path: pkg/codec.py
class Codec:
    def __init__(self, name):
        self.name = name

    def encode(self, s):
        return self.name + s
# path: tests/__init__.py
# path: tests/test_codec.py
import pytest

from pkg.codec import Codec


@pytest.fixture(params=["a", "b"])
def codec(request):
    return Codec(request.param)
    #      ^ calls: pkg.codec.Codec
    #      ^ calls: pkg.codec.Codec.__init__


def test_encode(codec):
    #           ^ calls: tests.test_codec.codec
    assert codec.encode("x").endswith("x")
    #            ^ calls: pkg.codec.Codec.encode
