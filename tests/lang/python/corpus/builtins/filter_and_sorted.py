# about: filter() and sorted(key=) and max(key=) call the functions they are given
# path: main.py
def keep(x):
    return x > 0


def rank(x):
    return -x


def run(xs):
    kept = list(filter(keep, xs))
    #           ^ calls: main.keep
    top = max(xs, key=rank)
    #     ^ calls: main.rank
    return sorted(kept, key=rank), top
    #      ^ calls: main.rank


run([1, -2, 3])
#^ calls: main.run
