# about: f = dec(f) written out: the same as @dec
# path: app.py
def memo(f):
    cache = {}

    def memo_wrapper(n):
        if n not in cache:
            cache[n] = f(n)
            #          ^ calls: app.square
        return cache[n]

    return memo_wrapper


def square(n):
    return n * n


square = memo(square)
#        ^ calls: app.memo

square(3)
#^ calls: app.memo.memo_wrapper
square(3)
#^ calls: app.memo.memo_wrapper
