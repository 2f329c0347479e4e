# about: x = property(getter, setter): reading and writing x call the functions given
# path: app.py
class Temp:
    def __init__(self):
        self._c = 0

    def get_c(self):
        return self._c

    def set_c(self, v):
        self._c = v

    celsius = property(get_c, set_c)
    #         ^ calls: builtins.property


def run():
    t = Temp()
    #   ^ calls: app.Temp
    #   ^ calls: app.Temp.__init__
    t.celsius = 10
    # ^ calls: app.Temp.set_c
    return t.celsius
    #        ^ calls: app.Temp.get_c


run()
#^ calls: app.run
