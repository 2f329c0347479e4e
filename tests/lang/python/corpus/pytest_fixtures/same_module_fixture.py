# about: a test requests a fixture defined in its own module
# run: pytest
# path: pkg/__init__.py
# path: pkg/cart.py
class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return len(self.items)
# path: tests/__init__.py
# path: tests/test_cart.py
import pytest

from pkg.cart import Cart


@pytest.fixture
def cart():
    return Cart()
    #      ^ calls: pkg.cart.Cart
    #      ^ calls: pkg.cart.Cart.__init__


def test_add(cart):
    #        ^ calls: tests.test_cart.cart
    assert cart.add("x") == 1
    #           ^ calls: pkg.cart.Cart.add
