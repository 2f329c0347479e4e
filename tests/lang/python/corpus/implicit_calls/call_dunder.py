# about: calling an instance calls __call__ of its class
# path: app.py
class Multiplier:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


def run():
    triple = Multiplier(3)
    #        ^ calls: app.Multiplier
    #        ^ calls: app.Multiplier.__init__
    return triple(2)
    #      ^ calls: app.Multiplier.__call__


run()
#^ calls: app.run
