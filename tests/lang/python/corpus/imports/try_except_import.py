# about: a conditional import: the fallback module is used when the first import fails
# path: pkg/__init__.py
# path: pkg/fallback.py
def loads(s):
    return s
# path: pkg/main.py
try:
    from pkg.missing_fast import loads
except ImportError:
    from pkg.fallback import loads

loads("x")
#^ calls: pkg.fallback.loads
