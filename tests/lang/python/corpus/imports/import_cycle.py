# about: two modules import each other; calls resolve across the cycle
# path: pkg/__init__.py
# path: pkg/a.py
from pkg import b


def ping(n):
    return b.pong(n - 1) if n else "done"
    #        ^ calls: pkg.b.pong
# path: pkg/b.py
from pkg import a


def pong(n):
    return a.ping(n - 1) if n else "done"
    #        ^ calls: pkg.a.ping
# path: main.py
from pkg.a import ping

ping(3)
#^ calls: pkg.a.ping
