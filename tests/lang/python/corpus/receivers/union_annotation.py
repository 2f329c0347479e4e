# about: a value declared as a union of classes (`A | B`, `Union[A, B]`, also as the item of
# about: a declared tuple that is unpacked): a method called on it may run either class's
# about: method, and the overrides in their subclasses (click's `obj.shell_complete()` on
# about: `Command | Parameter`)
# path: app.py
from typing import Union


class Command:
    def complete(self):
        return "command"


class Group(Command):
    def complete(self):
        return "group"


class Parameter:
    def complete(self):
        return "parameter"


def resolve(kind) -> tuple[Command | Parameter, str]:
    if kind == "group":
        return Group(), kind
        #      ^ calls: app.Group
    if kind == "param":
        return Parameter(), kind
        #      ^ calls: app.Parameter
    return Command(), kind
    #      ^ calls: app.Command


def complete(kind):
    obj, rest = resolve(kind)
    #           ^ calls: app.resolve
    return obj.complete()
    #          ^ calls: app.Command.complete
    #          ^ calls: app.Group.complete
    #          ^ calls: app.Parameter.complete


def describe(obj: Union[Parameter, Command]):
    return obj.complete()
    #          ^ calls: app.Command.complete
    #          ^ calls: app.Group.complete
    #          ^ calls: app.Parameter.complete


for k in ("group", "param", "command"):
    complete(k)
    #^ calls: app.complete
describe(Parameter())
#^ calls: app.describe
#        ^ calls: app.Parameter
describe(Command())
#^ calls: app.describe
#        ^ calls: app.Command
describe(Group())
#^ calls: app.describe
#        ^ calls: app.Group
