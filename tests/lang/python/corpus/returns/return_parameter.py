# about: an identity function returns its argument: the caller calls the function it passed
# path: main.py
def target():
    pass


def identity(x):
    return x


identity(target)()
#^ calls: main.identity
#^ calls: main.target
