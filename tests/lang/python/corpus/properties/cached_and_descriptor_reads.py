# about: a cached_property read as the base of a subscript assignment and on the right of
# about: an attribute assignment, and a descriptor stored on the class read in `or` and in a
# about: comparison: each read calls the getter (the descriptor's __get__)
# path: app.py
import functools


class Option:
    def __init__(self, key):
        self.key = key

    def __get__(self, obj, owner=None):
        return obj.config[self.key]


class Environment:
    def __init__(self):
        self.filters = {}


class App:
    testing = Option("TESTING")
    #         ^ calls: app.Option
    #         ^ calls: app.Option.__init__
    debug = Option("DEBUG")
    #       ^ calls: app.Option
    #       ^ calls: app.Option.__init__

    def __init__(self):
        self.config = {"TESTING": False, "DEBUG": True}
        self.label = None

    @functools.cached_property
    #          ^ calls: functools.cached_property
    def env(self):
        return Environment()
        #      ^ calls: app.Environment
        #      ^ calls: app.Environment.__init__

    @functools.cached_property
    #          ^ calls: functools.cached_property
    def name(self):
        return "demo"

    def add_filter(self, name, f):
        self.env.filters[name] = f
        #    ^ calls: app.App.env

    def setup(self, other: "App"):
        other.label = self.name
        #                  ^ calls: app.App.name

    def propagate(self):
        return self.testing or self.debug
        #           ^ calls: app.Option.__get__

    def is_debug(self):
        return self.debug is True
        #           ^ calls: app.Option.__get__


def run():
    a = App()
    #   ^ calls: app.App
    #   ^ calls: app.App.__init__
    a.add_filter("up", str.upper)
    # ^ calls: app.App.add_filter
    a.setup(App())
    # ^ calls: app.App.setup
    #       ^ calls: app.App
    #       ^ calls: app.App.__init__
    a.propagate()
    # ^ calls: app.App.propagate
    a.is_debug()
    # ^ calls: app.App.is_debug


run()
#^ calls: app.run
