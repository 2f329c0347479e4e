# about: a module-level tuple of functions unpacked into two names inside a function
# path: app.py
def compress(x):
    return x


def expand(x):
    return x


CODEC = (compress, expand)


def roundtrip(x):
    enc, dec = CODEC
    return dec(enc(x))
    #      ^ calls: app.expand
    #          ^ calls: app.compress


roundtrip(1)
#^ calls: app.roundtrip
