# about: a subclass of dict: an inherited method is the builtin's, an own method is ours
# externals: scored
# path: app.py
class Registry(dict):
    def register(self, name, value):
        self[name] = value
        return self.get(name)
        #           ^ calls: builtins.dict.get


r = Registry()
#   ^ calls: app.Registry
r.register("a", 1)
# ^ calls: app.Registry.register
r.get("a")
# ^ calls: builtins.dict.get
