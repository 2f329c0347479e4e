# about: a name defined twice at module level: a call after the second definition reaches it
# path: main.py
def work():
    return 1


work()
#^ calls: main.work


def work():
    return 2


work()
#^ calls: main.work#2
