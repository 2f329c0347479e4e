# about: a decorator that registers and returns the function itself: calls reach the function
# path: app.py
ROUTES = {}


def route(f):
    ROUTES[f.__name__] = f
    return f


@route
#^ calls: app.route
def index():
    return "index"


def handle(name):
    return ROUTES[name]()
    #      ^ calls: app.index


index()
#^ calls: app.index
handle("index")
#^ calls: app.handle
