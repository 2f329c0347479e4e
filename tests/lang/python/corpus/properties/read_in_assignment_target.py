# about: `self.env.auto_reload = v` reads self.env before it sets auto_reload: the
# about: cached_property's getter runs (Flask's debug setter and jinja_env)
# path: app.py
import functools


class Environment:
    auto_reload = False


class App:
    @functools.cached_property
    #          ^ calls: functools.cached_property
    def env(self):
        return Environment()
        #      ^ calls: app.Environment

    @property
    def debug(self):
        return self.env.auto_reload
        #           ^ calls: app.App.env

    @debug.setter
    def debug(self, value):
        self.env.auto_reload = value
        #    ^ calls: app.App.env


def run():
    a = App()
    #   ^ calls: app.App
    a.debug = True
    # ^ calls: app.App.debug#2
    b = App()
    #   ^ calls: app.App
    return b.debug
    #        ^ calls: app.App.debug


run()
#^ calls: app.run
