# Attributes, aliases and containers whose item type is declared.
# (was test_python_resolution.py: test_attributes_aliases_and_containers)
# exact: calls, imports, references, extends, implements
# path: m.py
class Tag:
    def check(self):
        pass

class Request:
    pass

class Session:
    def save(self):
        pass

def f():
    pass

class App:
    request_class = Request
                  # ^ references: m.Request (scope)
    session: Session = Session()
           # ^ calls: m.Session (scope)
           # ^ references: m.Session (scope)

    def __init__(self):
        self.tags: list[Tag] = []
                      # ^ references: m.Tag (scope)
        self.by_key: dict[str, Tag] = {}
        self.engine = Session()
                    # ^ calls: m.Session (scope)

    def run(self):
        g = f
          # ^ references: m.f (scope)
        g()
      # ^ calls: m.f (alias)
        self.request_class()
      # ^ calls: m.Request (alias)
        self.session.save()
      # ^ calls: m.Session.save (local-type)
        self.engine.save()
        for tag in self.tags:
            tag.check()
          # ^ calls: m.Tag.check (local-type)
        for key, tag in self.by_key.items():
            tag.check()
        self.by_key["x"].check()
        self.__class__()
      # ^ calls: m.App (self)
      # ^ calls: m.App.__init__ (constructor)
