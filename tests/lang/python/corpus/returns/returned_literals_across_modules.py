# about: a function returns a literal collection of functions (a bare tuple, a dict, a list):
# about: unpacking the call, reading a key of it or iterating it reaches the functions
# path: pkg/__init__.py
# path: pkg/registry.py
def on_load():
    pass


def on_save():
    pass


def hooks():
    return on_load, on_save


def table():
    return {"load": on_load, "save": on_save}


def steps():
    return [on_load, on_save]
# path: pkg/main.py
from pkg.registry import hooks, steps, table


def unpack():
    load, save = hooks()
    #            ^ calls: pkg.registry.hooks
    load()
   #^ calls: pkg.registry.on_load
    save()
   #^ calls: pkg.registry.on_save


def by_key():
    fn = table()["save"]
    #    ^ calls: pkg.registry.table
    fn()
   #^ calls: pkg.registry.on_save


def each():
    for step in steps():
        #       ^ calls: pkg.registry.steps
        step()
       #^ calls: pkg.registry.on_load
       #^ calls: pkg.registry.on_save


unpack()
#^ calls: pkg.main.unpack
by_key()
#^ calls: pkg.main.by_key
each()
#^ calls: pkg.main.each
