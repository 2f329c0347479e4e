# Names bound in comprehensions and lambdas stay local to them.
# (was test_python_resolution.py: test_comprehension_and_lambda_names_stay_local)
#
# test_comprehension_and_lambda_names_stay_local:
#   the comprehensions' n and c are Nodes, the function's n stays an Other
#   the lambda's n is a parameter nobody typed: unresolved (hooks.add is too)
#
# expect: calls.unresolved = 2
# exact: calls, imports, references, extends, implements
# path: m.py
class Node:
    def children(self) -> list["Node"]:
                              # ^ references: m.Node (scope)
        return []

    def visit(self):
        pass

class Other:
    def visit(self):
        pass

def walk(root: Node, nodes: list[Node], hooks):
             # ^ references: m.Node (scope)
    n = Other()
      # ^ calls: m.Other (scope)
    seen = [n.visit() for n in nodes]
          # ^ calls: m.Node.visit (local-type)
    deep = [c.visit() for n in nodes for c in n.children()]
                                            # ^ calls: m.Node.children (local-type)
    n.visit()
  # ^ calls: m.Other.visit (local-type)
    hooks.add(lambda n: n.visit())
  # ^ unresolved: add
                      # ^ unresolved: visit
    return seen, deep
