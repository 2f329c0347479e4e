# about: an exception instance made first, assigned, then raised
# path: main.py
class Boom(Exception):
    def __init__(self):
        super().__init__("boom")


def run():
    err = Boom()
    #     ^ calls: main.Boom
    #     ^ calls: main.Boom.__init__
    try:
        raise err
    except Boom:
        return 1


run()
#^ calls: main.run
