# about: classes stored in a dict and instantiated after indexing run their __init__
# path: pkg/__init__.py
# path: pkg/plugins.py
class Csv:
    def __init__(self, path):
        self.path = path


class Xml:
    def __init__(self, path):
        self.path = path


REGISTRY = {"csv": Csv, "xml": Xml}


def make(kind, path):
    return REGISTRY[kind](path)
    #      ^ calls: pkg.plugins.Csv
    #      ^ calls: pkg.plugins.Csv.__init__
    #      ^ calls: pkg.plugins.Xml
    #      ^ calls: pkg.plugins.Xml.__init__
# path: pkg/main.py
from pkg.plugins import make

make("csv", "a")
#^ calls: pkg.plugins.make
make("xml", "b")
#^ calls: pkg.plugins.make
