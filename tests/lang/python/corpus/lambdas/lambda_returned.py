# about: a lambda returned by a factory: what it calls is the factory's call
# path: app.py
def scale(x, k):
    return x * k


def make_scaler(k):
    return lambda x: scale(x, k)
    #                ^ calls: app.scale


def run():
    s = make_scaler(2)
    #   ^ calls: app.make_scaler
    return s(3)
    #      ^ calls: -


run()
#^ calls: app.run
