# about: an import under `if TYPE_CHECKING:` types an annotation (a string annotation):
# about: the method called on the parameter is the imported class's
# path: pkg/__init__.py
# path: pkg/models.py
class Model:
    def save(self):
        return True
# path: pkg/main.py
from typing import TYPE_CHECKING

from pkg.models import Model

if TYPE_CHECKING:
    from pkg.models import Model as M


def persist(m: "M"):
    return m.save()
    #        ^ calls: pkg.models.Model.save


persist(Model())
#^ calls: pkg.main.persist
#       ^ calls: pkg.models.Model
