# about: a decorator defined inside a function decorates a nested function there
# path: main.py
def target():
    return 1


def run():
    def dec(f):
        def wrapper():
            return f() + target()
            #      ^ calls: main.run.inner
            #            ^ calls: main.target

        return wrapper

    @dec
    #^ calls: main.run.dec
    def inner():
        return 1

    return inner()
    #      ^ calls: main.run.dec.wrapper


run()
#^ calls: main.run
