# about: a dict's value read into a local, then called
# path: main.py
def first():
    pass


def second():
    pass


d = {"a": first, "b": second}
fn = d["b"]
fn()
#^ calls: main.second
