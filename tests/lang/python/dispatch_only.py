# Dispatch to a method only subclasses define (abstract bases, mixins).
# (was test_python_resolution.py: test_dispatch_to_a_method_only_subclasses_define)
# exact: calls, imports, references, extends, implements
# path: m.py
class Handler:
    def run(self):
        return self.handle()
             # ^ calls: m.Json.handle (dispatch)
             # ^ calls: m.Text.handle (dispatch)

class Json(Handler):
         # ^ extends: m.Handler
    def handle(self):
        pass

class Text(Handler):
         # ^ extends: m.Handler
    def handle(self):
        pass
