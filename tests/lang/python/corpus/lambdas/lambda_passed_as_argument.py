# about: a lambda passed as an argument: the callee calling it is no edge, the lambda's own
# about: call belongs to the definition holding it
# path: main.py
def target():
    return 1


def run(cb):
    return cb()
    #      ^ calls: -


def main():
    return run(lambda: target())
    #      ^ calls: main.run
    #                  ^ calls: main.target


main()
#^ calls: main.main
