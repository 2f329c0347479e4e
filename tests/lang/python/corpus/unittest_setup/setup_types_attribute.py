# about: unittest: self.x assigned in setUp types self.x in the test methods
# run: pytest
# path: pkg/__init__.py
# path: pkg/calc.py
class Calculator:
    def add(self, a, b):
        return a + b
# path: tests/__init__.py
# path: tests/test_calc.py
import unittest

from pkg.calc import Calculator


class CalcTest(unittest.TestCase):
    def setUp(self):
        self.calc = Calculator()
        #           ^ calls: pkg.calc.Calculator

    def test_add(self):
        self.assertEqual(self.calc.add(1, 2), 3)
        #    ^ calls: unittest.TestCase.assertEqual
        #                          ^ calls: pkg.calc.Calculator.add
