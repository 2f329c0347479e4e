# about: unittest: tearDown uses the setUp attribute; addCleanup registers a callback that
# about: unittest calls later, asserted as a call from where it is registered (static: the
# about: trace sees unittest call it, with no project caller)
# run: pytest
# path: pkg/__init__.py
# path: pkg/files.py
class TempDir:
    def path(self):
        return "/tmp/x"

    def remove(self):
        return True


def forget(d):
    return d
# path: tests/__init__.py
# path: tests/test_files.py
import unittest

from pkg.files import TempDir, forget


class FilesTest(unittest.TestCase):
    def setUp(self):
        self.dir = TempDir()
        #          ^ calls: pkg.files.TempDir
        self.addCleanup(forget, self.dir)
        #    ^ calls: unittest.TestCase.addCleanup
        #               ^ calls: pkg.files.forget [static]

    def tearDown(self):
        self.dir.remove()
        #        ^ calls: pkg.files.TempDir.remove

    def test_path(self):
        self.assertTrue(self.dir.path())
        #    ^ calls: unittest.TestCase.assertTrue
        #                        ^ calls: pkg.files.TempDir.path
