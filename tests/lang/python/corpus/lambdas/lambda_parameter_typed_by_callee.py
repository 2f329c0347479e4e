# about: a lambda passed to a callee whose parameter is declared `Callable[[T], ...]`
# about: (directly or through a type alias, a forward reference in quotes): the lambda's
# about: parameter holds a T, so a call on it reaches T's method (Flask's
# about: `self.record(lambda s: s.add_url_rule(...))`)
# path: app.py
import typing as t

Deferred = t.Callable[["State"], None]


class State:
    def __init__(self, name):
        self.name = name

    def add_rule(self, rule):
        return rule

    def finish(self):
        return self.name


class Blueprint:
    def __init__(self):
        self.deferred = []

    def record(self, func: Deferred) -> None:
        self.deferred.append(func)

    def add_rule(self, rule):
        self.record(lambda s: s.add_rule(rule))
        #      ^ calls: app.Blueprint.record
        #                       ^ calls: app.State.add_rule

    def register(self):
        state = State("bp")
        #       ^ calls: app.State
        #       ^ calls: app.State.__init__
        for deferred in self.deferred:
            deferred(state)


def each(items: list, func: t.Callable[[State, int], object]):
    for i, item in enumerate(items):
        func(item, i)


def main():
    bp = Blueprint()
    #    ^ calls: app.Blueprint
    #    ^ calls: app.Blueprint.__init__
    bp.add_rule("/")
    #  ^ calls: app.Blueprint.add_rule
    bp.register()
    #  ^ calls: app.Blueprint.register
    each([State("a")], lambda state, n: state.finish())
    #^ calls: app.each
    #     ^ calls: app.State
    #     ^ calls: app.State.__init__
    #                                         ^ calls: app.State.finish


main()
#^ calls: app.main
