# about: importlib.import_module with a literal name returns that module
# path: pkg/__init__.py
# path: pkg/plugin.py
def activate():
    return True
# path: main.py
import importlib

plugin = importlib.import_module("pkg.plugin")
plugin.activate()
#      ^ calls: pkg.plugin.activate
