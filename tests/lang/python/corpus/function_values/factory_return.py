# about: a factory returns a nested function; the caller calls what it got back
# path: app.py
def make_adder(n):
    def add(x):
        return x + n

    return add


def run():
    add2 = make_adder(2)
    #      ^ calls: app.make_adder
    return add2(1)
    #      ^ calls: app.make_adder.add


run()
#^ calls: app.run
