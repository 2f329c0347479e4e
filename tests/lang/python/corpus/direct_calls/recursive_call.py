# about: a function calling itself, and two functions calling each other
# path: main.py
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
    #                           ^ calls: main.fact


def even(n):
    return True if n == 0 else odd(n - 1)
    #                          ^ calls: main.odd


def odd(n):
    return False if n == 0 else even(n - 1)
    #                           ^ calls: main.even


fact(3)
#^ calls: main.fact
even(2)
#^ calls: main.even
