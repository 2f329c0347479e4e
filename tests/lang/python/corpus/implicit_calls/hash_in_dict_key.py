# about: using an object as a dict key calls its __hash__
# path: app.py
class Key:
    def __hash__(self):
        return 1


def run():
    k = Key()
    #   ^ calls: app.Key
    return {k: 1}
    #       ^ calls: app.Key.__hash__


run()
#^ calls: app.run
