# with ... as, comprehension variables and properties.
# (was test_python_resolution.py: test_context_managers_comprehensions_and_properties)
#
# test_context_managers_comprehensions_and_properties:
#   reading a property runs its getter (a call of it, issue 25): its value is typed by the
#   getter's return; entering `with Pool()` runs Pool.__enter__ and Pool.__exit__
# exact: calls, imports, references, extends, implements
# path: m.py
from functools import cached_property
                    # ^ imports: <external>::functools.cached_property

class Conn:
    def query(self):
        pass

    def close(self):
        pass

class Pool:
    def __enter__(self) -> Conn:
                         # ^ references: m.Conn (scope)
        return Conn()
             # ^ calls: m.Conn (scope)

    def __exit__(self, *exc):
        pass

    @property
    def first(self) -> Conn:
                     # ^ references: m.Conn (scope)
        return Conn()
             # ^ calls: m.Conn (scope)

   # v unresolved: setter
    @first.setter
    def first(self, value):
        pass

   # v calls: <external>::functools.cached_property (import)
    @cached_property
    def all(self) -> list[Conn]:
                        # ^ references: m.Conn (scope)
        return []

def work(pool: Pool):
             # ^ references: m.Pool (scope)
    with Pool() as conn:
       # ^ calls: m.Pool (scope)
       # ^ calls: m.Pool.__enter__ (local-type)
       # ^ calls: m.Pool.__exit__ (local-type)
        conn.query()
      # ^ calls: m.Conn.query (local-type)
    pool.first.close()
  # ^ calls: m.Conn.close (local-type)
  #      ^ calls: m.Pool.first (local-type)
    return [c.close() for c in pool.all]
  #                                 ^ calls: m.Pool.all (local-type)
