# about: `yield from` delegates to another generator, which is called there
# path: main.py
def inner():
    yield 1


def outer():
    yield from inner()
    #          ^ calls: main.inner


for _ in outer():
#        ^ calls: main.outer
    pass
