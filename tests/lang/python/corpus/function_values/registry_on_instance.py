# about: functions registered on an instance (a dict attribute filled through a method a
# about: subclass implements, a dict of lists filled by setdefault().append) and called out
# about: of it by a subclass's method, directly or through a wrapper (Flask's view_functions)
# path: pkg/__init__.py
# path: pkg/scaffold.py
class Scaffold:
    def __init__(self):
        self.view_functions = {}
        self.before_funcs = {}

    def route(self, rule):
        def decorator(f):
            self.add_url_rule(rule, f)
            #    ^ calls: pkg.app.App.add_url_rule
            #    ^ calls: pkg.scaffold.Scaffold.add_url_rule [static]
            return f

        return decorator

    def add_url_rule(self, rule, view_func):
        raise NotImplementedError

    def before_request(self, f):
        self.before_funcs.setdefault(None, []).append(f)
        return f
# path: pkg/app.py
from pkg.scaffold import Scaffold


class App(Scaffold):
    def add_url_rule(self, rule, view_func):
        self.view_functions[rule] = view_func

    def ensure_sync(self, func):
        return func

    def dispatch(self, rule):
        for before in self.before_funcs[None]:
            self.ensure_sync(before)()
            #    ^ calls: pkg.app.App.ensure_sync
            #                       ^ calls: pkg.main.load
        return self.ensure_sync(self.view_functions[rule])()
        #           ^ calls: pkg.app.App.ensure_sync
        #                                                 ^ calls: pkg.main.index
# path: pkg/main.py
from pkg.app import App

app = App()
#     ^ calls: pkg.app.App
#     ^ calls: pkg.scaffold.Scaffold.__init__


@app.route("/")
#^ calls: pkg.scaffold.Scaffold.route
#^ calls: pkg.scaffold.Scaffold.route.decorator
def index():
    return "index"


@app.before_request
#^ calls: pkg.scaffold.Scaffold.before_request
def load():
    return None


app.dispatch("/")
#^ calls: pkg.app.App.dispatch
