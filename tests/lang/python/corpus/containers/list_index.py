# about: functions stored in a list and called after indexing
# path: app.py
def first():
    return 1


def second():
    return 2


STEPS = [first, second]


def run():
    a = STEPS[0]()
    #   ^ calls: app.first
    b = STEPS[1]()
    #   ^ calls: app.second
    return a + b


run()
#^ calls: app.run
