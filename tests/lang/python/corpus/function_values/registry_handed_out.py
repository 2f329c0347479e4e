# about: handlers stored in a nested registry on the instance (`self.spec[scope][code] = f`),
# about: handed out by a method that looks one up, called by a subclass's method through a
# about: wrapper (Flask's error_handler_spec, _find_error_handler, handle_user_exception)
# path: pkg/__init__.py
# path: pkg/base.py
class Base:
    def __init__(self):
        self.spec = {None: {}}

    def errorhandler(self, code):
        def decorator(f):
            self.register(code, f)
            #    ^ calls: pkg.base.Base.register
            return f

        return decorator

    def register(self, code, f):
        self.spec[None][code] = f

    def find_handler(self, code):
        handlers = self.spec[None]
        handler = handlers.get(code)
        return handler
# path: pkg/app.py
from pkg.base import Base


class App(Base):
    def ensure_sync(self, func):
        return func

    def handle(self, code):
        handler = self.find_handler(code)
        #             ^ calls: pkg.base.Base.find_handler
        return self.ensure_sync(handler)(code)
        #           ^ calls: pkg.app.App.ensure_sync
        #                               ^ calls: pkg.main.not_found
        #                               ^ calls: pkg.main.server_error [static]
# path: pkg/main.py
from pkg.app import App

app = App()
#     ^ calls: pkg.app.App
#     ^ calls: pkg.base.Base.__init__


@app.errorhandler(404)
#^ calls: pkg.base.Base.errorhandler
#^ calls: pkg.base.Base.errorhandler.decorator
def not_found(code):
    return "not found"


@app.errorhandler(500)
#^ calls: pkg.base.Base.errorhandler
#^ calls: pkg.base.Base.errorhandler.decorator
def server_error(code):
    return "error"


app.handle(404)
#^ calls: pkg.app.App.handle
