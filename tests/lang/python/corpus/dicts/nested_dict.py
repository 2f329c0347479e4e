# about: a function in a dict inside a dict, called after two subscripts
# path: main.py
def target():
    pass


d = {"outer": {"inner": target}}
d["outer"]["inner"]()
#^ calls: main.target
