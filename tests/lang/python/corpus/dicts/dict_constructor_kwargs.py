# about: dict(a=f) builds a dict of functions by keyword; a value is called
# path: main.py
def target():
    pass


d = dict(go=target)
d["go"]()
#^ calls: main.target
