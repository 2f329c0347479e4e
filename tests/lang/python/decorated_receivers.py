# A decorated name used as a receiver is what its decorators made of the function (issue
# 26: Click's tests write `@click.command() def cli` and call `cli.main([...])`): a method
# called on it is the method of that instance, reason decorator (weakest with the rules on
# the way). The class comes from the decorator's body (`cls = t.cast(..., Command)`), not
# from each application's arguments: `command(cls=Group)` gives a Command that may be a
# subclass, so the subclasses' overrides are dispatch. A decorator returning the function
# leaves a plain function: no member.
# path: cmd.py
import typing as t


class Command:
    def __init__(self, name=None, callback=None):
        self.callback = callback

    def main(self, args=None):
        return self.invoke(args)

    def invoke(self, args):
        return self.callback()

    def __call__(self, *args):
        return self.main(*args)


class Group(Command):
    def invoke(self, args):
        return None


def command(name=None, cls=None):
    if cls is None:
        cls = t.cast("type[Command]", Command)

    def decorator(f):
        cmd = cls(name=name, callback=f)
        return cmd

    return decorator


def plain(f):
    return f
# path: tests/test_cmd.py
import cmd


def test_main():
    @cmd.command()
    def cli():
        pass

    cli.main([])
  #     ^ calls: cmd.Command.main (decorator)


def test_group():
    @cmd.command(cls=cmd.Group)
    def grouped():
        pass

    grouped.invoke([])
  #         ^ calls: cmd.Command.invoke (decorator)
  #         ^ calls: cmd.Group.invoke (dispatch)


def test_plain():
    @cmd.plain
    def f():
        pass

    f.main()
  #   ^ unresolved: main
