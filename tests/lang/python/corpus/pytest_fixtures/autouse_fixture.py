# about: an autouse fixture runs for every test of its module (asserted at the test's name)
# run: pytest
# path: pkg/__init__.py
# path: pkg/state.py
STATE = {}


def reset():
    STATE.clear()


def put(k, v):
    STATE[k] = v
    return STATE
# path: tests/__init__.py
# path: tests/test_state.py
import pytest

from pkg.state import put, reset


@pytest.fixture(autouse=True)
def clean_state():
    reset()
   #^ calls: pkg.state.reset


def test_put():
    #   ^ calls: tests.test_state.clean_state
    assert put("a", 1) == {"a": 1}
    #      ^ calls: pkg.state.put
