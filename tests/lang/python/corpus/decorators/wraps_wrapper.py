# about: @log def work is work = log(work): log is called by the module; calling work runs
# about: the wrapper log returned, which calls the function it wrapped
# path: pkg/__init__.py
# path: pkg/deco.py
import functools


def log(f):
    @functools.wraps(f)
    #          ^ calls: functools.wraps
    def wrapper(*args):
        return f(*args)
        #      ^ calls: pkg.main.work

    return wrapper
# path: pkg/main.py
from pkg.deco import log


@log
#^ calls: pkg.deco.log
def work():
    return 1


work()
#^ calls: pkg.deco.log.wrapper
