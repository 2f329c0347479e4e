# about: unittest: cls.x assigned in setUpClass types self.x in the test methods
# run: pytest
# path: pkg/__init__.py
# path: pkg/pool.py
class Pool:
    def acquire(self):
        return 1
# path: tests/__init__.py
# path: tests/test_pool.py
import unittest

from pkg.pool import Pool


class PoolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pool = Pool()
        #          ^ calls: pkg.pool.Pool

    def test_acquire(self):
        self.assertEqual(self.pool.acquire(), 1)
        #    ^ calls: unittest.TestCase.assertEqual
        #                          ^ calls: pkg.pool.Pool.acquire
