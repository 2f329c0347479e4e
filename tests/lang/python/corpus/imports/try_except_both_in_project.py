# about: try/except ImportError with both modules in the project: the try branch's import
# about: runs; the fallback is an alternative the resolver cannot rule out
# path: pkg/__init__.py
# path: pkg/fast.py
def loads(s):
    return s
# path: pkg/slow.py
def loads(s):
    return s
# path: pkg/main.py
try:
    from pkg.fast import loads
except ImportError:
    from pkg.slow import loads


def parse(s):
    return loads(s)
    #      ^ calls: pkg.fast.loads
    #      ^ calls: pkg.slow.loads [static]


parse("x")
#^ calls: pkg.main.parse
