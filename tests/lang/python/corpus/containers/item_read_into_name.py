# about: `fn = REGISTRY[key]` reads an item into a name: a key known only at run time may be
# about: any item's, a literal key is its own item's, also of the registry a call returns;
# about: an item stored later in the same function is not what the read took
# path: pkg/__init__.py
# path: pkg/handlers.py
def on_get():
    pass


def on_post():
    pass


HANDLERS = {"get": on_get, "post": on_post}


def table():
    return HANDLERS
# path: pkg/main.py
from pkg import handlers


def dispatch(kind):
    handler = handlers.HANDLERS[kind]
    handler()
   #^ calls: pkg.handlers.on_get
   #^ calls: pkg.handlers.on_post


def post_only():
    fn = handlers.table()["post"]
    #    ^ calls: pkg.handlers.table
    fn()
   #^ calls: pkg.handlers.on_post


def rebound():
    options = {"run": handlers.on_get}
    run = options["run"]
    options["run"] = handlers.on_post
    run()
   #^ calls: pkg.handlers.on_get
    return options


dispatch("get")
#^ calls: pkg.main.dispatch
dispatch("post")
#^ calls: pkg.main.dispatch
post_only()
#^ calls: pkg.main.post_only
rebound()
#^ calls: pkg.main.rebound
