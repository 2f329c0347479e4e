# about: a decorator imported from another module, with functools.wraps
# path: pkg/__init__.py
# path: pkg/util.py
import functools


def timed(f):
    @functools.wraps(f)
    #          ^ calls: functools.wraps
    def timed_wrapper(*args, **kwargs):
        return f(*args, **kwargs)
        #      ^ calls: pkg.jobs.build

    return timed_wrapper
# path: pkg/jobs.py
from pkg import util


@util.timed
#     ^ calls: pkg.util.timed
def build(target):
    return target
# path: pkg/main.py
from pkg.jobs import build

build("x")
#^ calls: pkg.util.timed.timed_wrapper
