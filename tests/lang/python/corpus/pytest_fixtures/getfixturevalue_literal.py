# about: request.getfixturevalue("name") with a literal is a dependency on that fixture
# run: pytest
# path: pkg/__init__.py
# path: pkg/clock.py
class Clock:
    def now(self):
        return 0
# path: tests/__init__.py
# path: tests/test_clock.py
import pytest

from pkg.clock import Clock


@pytest.fixture
def clock():
    return Clock()
    #      ^ calls: pkg.clock.Clock


def test_now(request):
    c = request.getfixturevalue("clock")
    #                           ^ calls: tests.test_clock.clock
    assert c.now() == 0
    #        ^ calls: pkg.clock.Clock.now
