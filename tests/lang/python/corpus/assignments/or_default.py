# about: `x = a or b` holds a when a is true: the name (or attribute) is bound to what a
# about: holds (click's `self.params = params or []` with `params: list[Parameter] | None`)
# path: app.py
class Parameter:
    def get_default(self):
        return None


class Option(Parameter):
    def get_default(self):
        return 1


class Command:
    def __init__(self, params: list[Parameter] | None = None, fallback=None):
        self.params = params or []
        self.fallback = fallback or Parameter()
        #                           ^ calls: app.Parameter


def first_default(cmd: Command):
    return cmd.params[0].get_default()
    #                    ^ calls: app.Parameter.get_default
    #                    ^ calls: app.Option.get_default


def lookup(param: Parameter | None):
    found = param or Option()
    #                ^ calls: app.Option
    return found.get_default()
    #            ^ calls: app.Parameter.get_default
    #            ^ calls: app.Option.get_default


first_default(Command([Option()]))
#^ calls: app.first_default
#             ^ calls: app.Command
#             ^ calls: app.Command.__init__
#                      ^ calls: app.Option
first_default(Command([Parameter()]))
#^ calls: app.first_default
#             ^ calls: app.Command
#             ^ calls: app.Command.__init__
#                      ^ calls: app.Parameter
lookup(None)
#^ calls: app.lookup
lookup(Parameter())
#^ calls: app.lookup
#      ^ calls: app.Parameter
