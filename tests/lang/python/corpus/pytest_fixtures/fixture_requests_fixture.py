# about: a fixture requests another fixture by its parameter name
# run: pytest
# path: pkg/__init__.py
# path: pkg/db.py
class Connection:
    def close(self):
        return True


class Repo:
    def __init__(self, conn):
        self.conn = conn

    def count(self):
        return 0
# path: tests/__init__.py
# path: tests/conftest.py
import pytest

from pkg.db import Connection, Repo


@pytest.fixture
def conn():
    return Connection()
    #      ^ calls: pkg.db.Connection


@pytest.fixture
def repo(conn):
    #    ^ calls: tests.conftest.conn
    return Repo(conn)
    #      ^ calls: pkg.db.Repo
    #      ^ calls: pkg.db.Repo.__init__
# path: tests/test_repo.py
def test_count(repo):
    #          ^ calls: tests.conftest.repo
    assert repo.count() == 0
    #           ^ calls: pkg.db.Repo.count
