# about: a loop over dict.values() calls each stored function
# path: pkg/__init__.py
# path: pkg/hooks.py
def before():
    return "before"


def after():
    return "after"


HOOKS = {"b": before, "a": after}
# path: pkg/main.py
from pkg.hooks import HOOKS


def fire():
    return [hook() for hook in HOOKS.values()]
    #       ^ calls: pkg.hooks.before
    #       ^ calls: pkg.hooks.after


fire()
#^ calls: pkg.main.fire
