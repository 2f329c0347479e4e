# about: a method defined in a base class, called on a subclass instance
# path: pkg/__init__.py
# path: pkg/base.py
class Animal:
    def describe(self):
        return "animal"
# path: pkg/dog.py
from pkg.base import Animal


class Dog(Animal):
    pass


Dog().describe()
#^ calls: pkg.dog.Dog
#     ^ calls: pkg.base.Animal.describe
