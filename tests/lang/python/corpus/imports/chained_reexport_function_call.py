# about: a function imported by a module that another module imports it from (a -> b -> c)
# path: c.py
def work():
    return 1
# path: b.py
from c import work
# path: main.py
from b import work

work()
#^ calls: c.work
