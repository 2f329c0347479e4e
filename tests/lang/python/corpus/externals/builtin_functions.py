# about: builtin functions are named builtins.NAME
# externals: scored
# path: app.py
def stats(xs):
    return len(xs), sum(xs), max(xs), sorted(xs)
    #      ^ calls: builtins.len
    #               ^ calls: builtins.sum
    #                        ^ calls: builtins.max
    #                                 ^ calls: builtins.sorted


stats([3, 1, 2])
#^ calls: app.stats
