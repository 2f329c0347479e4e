# A werkzeug LocalProxy annotated with the type it stands for (Flask's `current_app: Flask =
# LocalProxy(...)`): `proxy._get_current_object()` hands back that object, so its members
# resolve on the annotated class; an assignment to a member of a chain reads the chain
# first (`self.env.auto_reload = v` runs the env getter). A weak reference hands back the
# object it refers to when called (`self_ref = weakref.ref(self)`, `self_ref().m()`: Flask's
# static view), typed by it (local-type).
# exact: calls
# path: app.py
import weakref
from functools import cached_property


class Env:
    auto_reload = False

    def render(self):
        return 1


class App:
    #v calls: <external>::functools.cached_property (import)
    @cached_property
    def env(self) -> Env:
        return Env()
             # ^ calls: app.Env (scope)

    def set_debug(self, value):
        self.env.auto_reload = value
           # ^ calls: app.App.env (self)

    def add_static(self):
        self_ref = weakref.ref(self)
                 # ^ calls: <external>::weakref.ref (import)
        return lambda: self_ref().send_static_file()
                     # ^ calls: app.App.send_static_file (local-type)

    def send_static_file(self):
        return 1
# path: glob.py
from werkzeug.local import LocalProxy

from app import App

current_app: App = LocalProxy(None, "app")
                 # ^ calls: <external>::werkzeug.local.LocalProxy (import)


def render():
    app = current_app._get_current_object()
    app.env.render()
      # ^ calls: app.App.env (local-type)
  # ^ calls: app.Env.render (local-type)
