# about: a decorator used under another name (assigned to a variable first)
# path: main.py
def trace(f):
    def wrapper():
        return f()
        #      ^ calls: main.work

    return wrapper


logged = trace


@logged
#^ calls: main.trace
def work():
    return 1


work()
#^ calls: main.trace.wrapper
