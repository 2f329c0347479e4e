# about: an import inside a function binds the name in the function's scope
# path: pkg/__init__.py
# path: pkg/heavy.py
def compute():
    return 42
# path: main.py
def lazy():
    from pkg.heavy import compute

    return compute()
    #      ^ calls: pkg.heavy.compute


lazy()
#^ calls: main.lazy
