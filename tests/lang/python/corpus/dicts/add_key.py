# about: a function stored under a new key of an empty dict, then called by that key
# path: main.py
def target():
    pass


d = {}
d["a"] = target
d["a"]()
#^ calls: main.target
