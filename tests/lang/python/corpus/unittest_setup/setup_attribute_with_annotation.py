# about: unittest: an attribute declared with a class-level annotation and set in setUp
# run: pytest
# path: pkg/__init__.py
# path: pkg/service.py
class Service:
    def ping(self):
        return "pong"


def create():
    return Service()
    #      ^ calls: pkg.service.Service
# path: tests/__init__.py
# path: tests/test_service.py
import unittest

from pkg.service import Service, create


class ServiceTest(unittest.TestCase):
    service: Service

    def setUp(self):
        self.service = create()
        #              ^ calls: pkg.service.create

    def test_ping(self):
        self.assertEqual(self.service.ping(), "pong")
        #    ^ calls: unittest.TestCase.assertEqual
        #                             ^ calls: pkg.service.Service.ping
