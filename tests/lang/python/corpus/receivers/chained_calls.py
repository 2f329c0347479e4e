# about: A().b().c(): each call's return type types the next receiver
# path: app.py
class Query:
    def where(self, cond) -> "Query":
        return self

    def first(self):
        return None


class Table:
    def select(self) -> Query:
        return Query()
        #      ^ calls: app.Query


def run():
    return Table().select().where("x").first()
    #      ^ calls: app.Table
    #              ^ calls: app.Table.select
    #                       ^ calls: app.Query.where
    #                                  ^ calls: app.Query.first


run()
#^ calls: app.run
