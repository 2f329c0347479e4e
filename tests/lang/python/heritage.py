# EXTENDS edges to repository and external bases.
# (was test_python_resolution.py: test_heritage)
# exact: calls, imports, references, extends, implements
# path: base.py
class Model:
    pass

class Mixin:
    pass
# path: models.py
import abc
     # ^ imports: <external>::abc
import base
     # ^ imports: base
from base import Model as M
               # ^ imports: base.Model
from typing import Generic, TypeVar
                 # ^ imports: <external>::typing.Generic
                          # ^ imports: <external>::typing.TypeVar

T = TypeVar("T")
  # ^ calls: <external>::typing.TypeVar (import)

class User(M):
    # ^ extends: base.Model
    pass

class Admin(User, base.Mixin, metaclass=abc.ABCMeta):
                # ^ extends: base.Mixin
          # ^ extends: models.User
    pass

class Box(Generic[T], abc.ABC):
                    # ^ extends: <external>::abc.ABC
        # ^ extends: <external>::typing.Generic
    pass
