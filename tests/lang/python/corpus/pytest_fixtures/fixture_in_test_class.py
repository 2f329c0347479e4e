# about: a test method of a test class requests a fixture after self
# run: pytest
# path: pkg/__init__.py
# path: pkg/stack.py
class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)
        return len(self.items)
# path: tests/__init__.py
# path: tests/test_stack.py
import pytest

from pkg.stack import Stack


@pytest.fixture
def stack():
    return Stack()
    #      ^ calls: pkg.stack.Stack
    #      ^ calls: pkg.stack.Stack.__init__


class TestStack:
    def test_push(self, stack):
        #               ^ calls: tests.test_stack.stack
        assert stack.push(1) == 1
        #            ^ calls: pkg.stack.Stack.push
