# about: @pytest.mark.usefixtures("name") makes the test depend on the fixture (asserted at its name)
# run: pytest
# path: pkg/__init__.py
# path: pkg/env.py
def setup_env():
    return {"MODE": "test"}
# path: tests/__init__.py
# path: tests/conftest.py
import pytest

from pkg.env import setup_env


@pytest.fixture
def test_env():
    return setup_env()
    #      ^ calls: pkg.env.setup_env
# path: tests/test_mode.py
import pytest


@pytest.mark.usefixtures("test_env")
def test_mode():
    #   ^ calls: tests.conftest.test_env
    assert True
