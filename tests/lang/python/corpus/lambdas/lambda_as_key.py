# about: a lambda given to sorted as key: its call of a function is the enclosing function's
# path: app.py
def weight(item):
    return item[1]


def order(items):
    return sorted(items, key=lambda it: weight(it))
    #      ^ calls: builtins.sorted
    #                                   ^ calls: app.weight


order([("a", 2), ("b", 1)])
#^ calls: app.order
