# about: with on an object made earlier (a parameter typed by annotation)
# path: pkg/__init__.py
# path: pkg/lock.py
class Lock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
# path: pkg/main.py
from pkg.lock import Lock


def critical(lock: Lock):
    with lock:
    #    ^ calls: pkg.lock.Lock.__enter__
    #    ^ calls: pkg.lock.Lock.__exit__
        return 1


critical(Lock())
#^ calls: pkg.main.critical
#        ^ calls: pkg.lock.Lock
