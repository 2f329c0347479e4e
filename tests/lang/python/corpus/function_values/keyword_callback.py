# about: a callback passed by keyword and called inside the callee
# path: pkg/__init__.py
# path: pkg/events.py
def emit(name, *, on_done=None):
    if on_done is not None:
        on_done(name)
       #^ calls: pkg.main.finished
    return name
# path: pkg/main.py
from pkg.events import emit


def finished(name):
    return name.upper()


emit("saved", on_done=finished)
#^ calls: pkg.events.emit
