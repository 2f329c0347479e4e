# about: a test requests a conftest fixture by parameter name; the fixture's return value
# about: types the parameter, so runner.invoke() is Runner.invoke
# run: pytest
# path: pkg/__init__.py
# path: pkg/runner.py
class Runner:
    def invoke(self, arg):
        return arg
# path: tests/__init__.py
# path: tests/conftest.py
import pytest

from pkg.runner import Runner


@pytest.fixture
def runner():
    return Runner()
    #      ^ calls: pkg.runner.Runner
# path: tests/test_cli.py
def test_invoke(runner):
    #           ^ calls: tests.conftest.runner
    assert runner.invoke(1) == 1
    #             ^ calls: pkg.runner.Runner.invoke
