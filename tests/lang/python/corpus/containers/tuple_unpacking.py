# about: tuple unpacking binds names to functions, which are called
# path: app.py
def encode(x):
    return x + 1


def decode(x):
    return x - 1


def roundtrip(x):
    enc, dec = encode, decode
    return dec(enc(x))
    #      ^ calls: app.decode
    #          ^ calls: app.encode


roundtrip(1)
#^ calls: app.roundtrip
