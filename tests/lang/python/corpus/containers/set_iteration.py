# about: functions in a set, called while iterating it
# path: app.py
def ping():
    return "ping"


def pong():
    return "pong"


def broadcast():
    listeners = {ping, pong}
    return sorted(fn() for fn in listeners)
    #      ^ calls: builtins.sorted
    #             ^ calls: app.ping
    #             ^ calls: app.pong


broadcast()
#^ calls: app.broadcast
