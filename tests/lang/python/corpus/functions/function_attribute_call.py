# about: a function stored as an attribute of another function, then called through it
# path: main.py
def helper():
    return 1


def main_fn():
    return 0


main_fn.helper = helper
main_fn.helper()
#       ^ calls: main.helper
