# about: @contextlib.contextmanager: the generator body runs when the with statement enters
# path: app.py
import contextlib


def acquire():
    return "lock"


@contextlib.contextmanager
#           ^ calls: contextlib.contextmanager
def locked():
    token = acquire()
    #       ^ calls: app.acquire
    yield token


def work():
    with locked() as token:
    #    ^ calls: app.locked
        return token


work()
#^ calls: app.work
