# Receiver unknown: the only method of that name, at 0.5; the rest stays unresolved.
# (was test_python_resolution.py: test_unique_name_and_unresolved_calls)
#
# test_unique_name_and_unresolved_calls:
#   only a method name defined once, by a class we fully see, is offered, and only at 0.5;
#   not a capitalised name (a class attribute, most likely) nor a property
#
# expect: calls.unresolved = 7
# expect: calls.resolved = 1
# exact: calls, imports, references, extends, implements
# path: lib.py
import json
     # ^ imports: <external>::json

class Exporter:
    def export_rows(self):
        pass

class Reader(json.JSONDecoder):
           # ^ extends: <external>::json.JSONDecoder
    def decode_all(self):
        pass

class A:
    def shared_name(self):
        pass

class B:
    def shared_name(self):
        pass

    def Factory(self):
        pass

    @property
    def handler_of(self):
        pass
# path: use.py
def work(obj, items):
    obj.export_rows()
  # ^ calls: lib.Exporter.export_rows (unique-name)
    obj.decode_all()
  # ^ unresolved: decode_all
    obj.shared_name()
  # ^ unresolved: shared_name
    obj.update()
  # ^ unresolved: update
    obj.Factory()
  # ^ unresolved: Factory
    obj.handler_of()
  # ^ unresolved: handler_of
    items.append(1)
  # ^ unresolved: append
    unknown_function()
  # ^ unresolved: unknown_function
