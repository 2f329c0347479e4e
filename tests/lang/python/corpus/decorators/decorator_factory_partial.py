# about: a decorator made with functools.partial: calling it runs the underlying function
# path: app.py
import functools


def tag(name, f):
    def tagged():
        return name + ":" + f()
        #                   ^ calls: app.value

    return tagged


important = functools.partial(tag, "important")
#                     ^ calls: functools.partial


@important
#^ calls: app.tag
def value():
    return "v"


value()
#^ calls: app.tag.tagged
