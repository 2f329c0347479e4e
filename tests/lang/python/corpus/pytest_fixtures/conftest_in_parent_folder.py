# about: a fixture of a conftest.py in a parent folder serves tests in subfolders
# run: pytest
# path: pkg/__init__.py
# path: pkg/app.py
class App:
    def handle(self, path):
        return path
# path: tests/__init__.py
# path: tests/conftest.py
import pytest

from pkg.app import App


@pytest.fixture
def app():
    return App()
    #      ^ calls: pkg.app.App
# path: tests/unit/__init__.py
# path: tests/unit/test_handle.py
def test_handle(app):
    #           ^ calls: tests.conftest.app
    assert app.handle("/") == "/"
    #          ^ calls: pkg.app.App.handle
