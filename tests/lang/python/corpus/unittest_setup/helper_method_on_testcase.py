# about: unittest: a helper method of the test case called through self
# run: pytest
# path: pkg/__init__.py
# path: pkg/user.py
class User:
    def __init__(self, name):
        self.name = name
# path: tests/__init__.py
# path: tests/test_user.py
import unittest

from pkg.user import User


class UserTest(unittest.TestCase):
    def make_user(self, name):
        return User(name)
        #      ^ calls: pkg.user.User
        #      ^ calls: pkg.user.User.__init__

    def test_name(self):
        u = self.make_user("ann")
        #        ^ calls: tests.test_user.UserTest.make_user
        self.assertEqual(u.name, "ann")
        #    ^ calls: unittest.TestCase.assertEqual
