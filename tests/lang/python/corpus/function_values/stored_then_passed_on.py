# about: a callback stored on the instance is passed on to another object, which calls it
# about: (Click's Command.callback run by Context.invoke)
# path: pkg/__init__.py
# path: pkg/core.py
class Context:
    def invoke(self, callback, *args):
        return callback(*args)
        #      ^ calls: pkg.main.hello


class Command:
    def __init__(self, name, callback):
        self.name = name
        self.callback = callback

    def main(self):
        ctx = Context()
        #     ^ calls: pkg.core.Context
        return ctx.invoke(self.callback)
        #      ^ calls: pkg.core.Context.invoke
# path: pkg/main.py
from pkg.core import Command


def hello():
    return "hello"


cmd = Command("hello", hello)
#     ^ calls: pkg.core.Command
#     ^ calls: pkg.core.Command.__init__
cmd.main()
#^ calls: pkg.core.Command.main
