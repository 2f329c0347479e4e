# about: __import__ with a literal: without fromlist it returns the top package, with a
# about: fromlist the named module itself
# path: pkg/__init__.py
# path: pkg/plugin.py
def activate():
    return True
# path: main.py
mod = __import__("pkg.plugin", fromlist=["activate"])
mod.activate()
#   ^ calls: pkg.plugin.activate
top = __import__("pkg.plugin")
top.plugin.activate()
#          ^ calls: pkg.plugin.activate
