# about: a generator method of a class, iterated through self from another method
# path: main.py
class Tree:
    def walk(self):
        yield self.leaf()
        #          ^ calls: main.Tree.leaf

    def leaf(self):
        return 1

    def total(self):
        return sum(self.walk())
        #               ^ calls: main.Tree.walk


Tree().total()
#^ calls: main.Tree
#      ^ calls: main.Tree.total
