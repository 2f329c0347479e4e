# about: an instance of an external class: the class call and its methods are named by the class
# externals: scored
# path: app.py
from collections import OrderedDict


def lru_touch(key):
    cache = OrderedDict()
    #       ^ calls: collections.OrderedDict
    cache[key] = 1
    cache.move_to_end(key)
    #     ^ calls: collections.OrderedDict.move_to_end
    return cache


lru_touch("a")
#^ calls: app.lru_touch
