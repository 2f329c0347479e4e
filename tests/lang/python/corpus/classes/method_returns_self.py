# about: a method returning self allows chained calls (a builder)
# path: main.py
class Query:
    def where(self):
        return self

    def order(self):
        return self

    def run(self):
        return 1


Query().where().order().run()
#^ calls: main.Query
#       ^ calls: main.Query.where
#               ^ calls: main.Query.order
#                       ^ calls: main.Query.run
