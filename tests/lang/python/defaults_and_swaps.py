# A parameter whose default names a function or class: calling it runs the default (or what
# a caller passes), unless the default is named as a constant (a sentinel); a name a
# statement rebinds is looked up before that statement (a swap).
#
# exact: calls, unresolved
# path: app.py
def fallback():
    pass


def custom():
    pass


def run(cb=fallback, label=None, size=len):
    cb()
  # ^ calls: app.fallback (value-flow)
    label()
  # ^ unresolved: label
    size()


class NOT_GIVEN:  # a sentinel: a default named as a constant is no callable passed
    pass


def pick(value=NOT_GIVEN):
    return value()
         # ^ unresolved: value


def swap():
    a, b = fallback, custom
    a, b = b, a
    a()
  # ^ calls: app.custom (alias)
    b()
  # ^ calls: app.fallback (alias)


run()
# ^ calls: app.run (scope)
run(custom)  # (the edge to run is the line above's; run calls custom)
  # ^ calls: app.custom (value-flow)
swap()
# ^ calls: app.swap (scope)
pick()
# ^ calls: app.pick (scope)
