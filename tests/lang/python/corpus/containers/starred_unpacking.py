# about: starred unpacking: the rest list holds the remaining functions
# path: app.py
def head():
    return 0


def middle():
    return 1


def tail():
    return 2


def run():
    first, *rest = head, middle, tail
    total = first()
    #       ^ calls: app.head
    for f in rest:
        total += f()
        #        ^ calls: app.middle
        #        ^ calls: app.tail
    return total


run()
#^ calls: app.run
