# about: try/except ImportError binding a module under one name: its functions are
# about: called through either module
# path: pkg/__init__.py
# path: pkg/speedups.py
def escape(s):
    return s
# path: pkg/native.py
def escape(s):
    return s
# path: pkg/main.py
try:
    from pkg import speedups as impl
except ImportError:
    from pkg import native as impl


def render(s):
    return impl.escape(s)
    #           ^ calls: pkg.speedups.escape
    #           ^ calls: pkg.native.escape [static]


render("x")
#^ calls: pkg.main.render
