# about: a class decorator is called with the class when the class statement runs
# path: app.py
REGISTRY = []


def register(cls):
    REGISTRY.append(cls)
    return cls


@register
#^ calls: app.register
class Plugin:
    def run(self):
        return "run"


def run_all():
    return [cls().run() for cls in REGISTRY]
    #       ^ calls: app.Plugin
    #             ^ calls: app.Plugin.run


run_all()
#^ calls: app.run_all
