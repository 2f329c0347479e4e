# about: unittest: setUp inherited from a base test class types self.x in the subclass's tests
# run: pytest
# path: pkg/__init__.py
# path: pkg/api.py
class Api:
    def status(self):
        return 200
# path: tests/__init__.py
# path: tests/base.py
import unittest

from pkg.api import Api


class ApiTestCase(unittest.TestCase):
    def setUp(self):
        self.api = Api()
        #          ^ calls: pkg.api.Api
# path: tests/test_status.py
from tests.base import ApiTestCase


class StatusTest(ApiTestCase):
    def test_status(self):
        self.assertEqual(self.api.status(), 200)
        #    ^ calls: unittest.TestCase.assertEqual
        #                         ^ calls: pkg.api.Api.status
