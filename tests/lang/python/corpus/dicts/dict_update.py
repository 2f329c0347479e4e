# about: dict.update() adds a function under a key, which is then called
# path: main.py
def first():
    pass


def second():
    pass


d = {"a": first}
d.update({"b": second})
d["b"]()
#^ calls: main.second
d.update(c=first)
d["c"]()
#^ calls: main.first
