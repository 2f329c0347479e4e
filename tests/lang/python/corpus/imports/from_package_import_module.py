# about: from pkg import module; module.f()
# path: pkg/__init__.py
# path: pkg/io.py
def read():
    return "data"
# path: main.py
from pkg import io

io.read()
#  ^ calls: pkg.io.read
