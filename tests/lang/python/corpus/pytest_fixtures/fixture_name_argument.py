# about: @pytest.fixture(name="db") binds the fixture to the name db, not to the function's name
# run: pytest
# path: pkg/__init__.py
# path: pkg/store.py
class Store:
    def size(self):
        return 0
# path: tests/__init__.py
# path: tests/test_store.py
import pytest

from pkg.store import Store


@pytest.fixture(name="db")
def db_fixture():
    return Store()
    #      ^ calls: pkg.store.Store


def test_size(db):
    #         ^ calls: tests.test_store.db_fixture
    assert db.size() == 0
    #         ^ calls: pkg.store.Store.size
