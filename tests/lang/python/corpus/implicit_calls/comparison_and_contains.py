# about: == calls __eq__; in calls __contains__
# path: app.py
class Version:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return self.n == other.n


class Range:
    def __contains__(self, v):
        return 0 <= v.n < 10


def run():
    a = Version(1)
    #   ^ calls: app.Version
    #   ^ calls: app.Version.__init__
    b = Version(1)
    #   ^ calls: app.Version
    #   ^ calls: app.Version.__init__
    same = a == b
    #        ^ calls: app.Version.__eq__
    inside = a in Range()
    #          ^ calls: app.Range.__contains__
    #             ^ calls: app.Range
    return same and inside


run()
#^ calls: app.run
