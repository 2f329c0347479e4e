# about: defining a subclass calls the base's __init_subclass__ (asserted at the bases,
# about: which run in the scope around the class statement)
# path: app.py
PLUGINS = []


class Plugin:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        PLUGINS.append(cls)


class Csv(Plugin):
#         ^ calls: app.Plugin.__init_subclass__
    pass
