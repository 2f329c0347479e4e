# about: atexit.register(f): f runs at interpreter exit; asserted as a call from the module (static)
# path: app.py
import atexit


def flush():
    return "flushed"


atexit.register(flush)
#               ^ calls: app.flush [static]
