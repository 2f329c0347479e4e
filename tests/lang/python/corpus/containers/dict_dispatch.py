# about: functions stored as dict values and called after indexing
# path: app.py
def on_start():
    return "start"


def on_stop():
    return "stop"


HANDLERS = {"start": on_start, "stop": on_stop}


def dispatch(event):
    return HANDLERS[event]()
    #      ^ calls: app.on_start
    #      ^ calls: app.on_stop


dispatch("start")
#^ calls: app.dispatch
dispatch("stop")
#^ calls: app.dispatch
