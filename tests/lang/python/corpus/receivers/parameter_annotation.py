# about: a parameter annotated with a class types the receiver
# path: pkg/__init__.py
# path: pkg/db.py
class Database:
    def query(self, sql):
        return sql
# path: pkg/repo.py
from pkg.db import Database


def find(db: Database, key):
    return db.query(key)
    #         ^ calls: pkg.db.Database.query


find(Database(), "k")
#^ calls: pkg.repo.find
#    ^ calls: pkg.db.Database
