# unittest (issue 26 point 1): what setUp, asyncSetUp and setUpClass store on the test case
# types `self.x` in its test methods; setUpClass stores it on the class (`cls.x = ...`),
# which instances read as `self.x`.
# path: app.py
class Client:
    def get(self):
        return 1


class Store:
    def size(self):
        return 0


def make():
    return Store()
# path: tests/__init__.py
# path: tests/test_ut.py
import unittest

from app import Client, Store, make


class TestThing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.store = Store()
        cls.made = make()

    def setUp(self):
        self.client = Client()

    def test_get(self):
        self.client.get()
      #             ^ calls: app.Client.get (local-type)
        self.store.size()
      #            ^ calls: app.Store.size (local-type)


class TestMade(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.made = make()

    def test_made(self):
        self.made.size()
      #           ^ calls: app.Store.size (local-type)


class TestAsync(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.client = Client()

    async def test_get(self):
        self.client.get()
      #             ^ calls: app.Client.get (local-type)
