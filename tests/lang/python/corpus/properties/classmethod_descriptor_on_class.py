# about: a descriptor's __get__ runs when the attribute is read on the class itself
# path: app.py
class Constant:
    def __get__(self, obj, owner):
        return 7


class Config:
    limit = Constant()
    #       ^ calls: app.Constant


def run():
    return Config.limit
    #             ^ calls: app.Constant.__get__


run()
#^ calls: app.run
