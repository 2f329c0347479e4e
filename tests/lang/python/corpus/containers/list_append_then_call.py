# about: functions appended to a module-level list by a register() call, then called in order
# path: app.py
CALLBACKS = []


def register(fn):
    CALLBACKS.append(fn)


def on_ready():
    return "ready"


def on_done():
    return "done"


register(on_ready)
#^ calls: app.register
register(on_done)
#^ calls: app.register


def notify():
    for cb in CALLBACKS:
        cb()
       #^ calls: app.on_ready
       #^ calls: app.on_done


notify()
#^ calls: app.notify
