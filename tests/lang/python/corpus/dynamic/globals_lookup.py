# about: a function looked up in globals() by a literal name and called
# path: main.py
def target():
    pass


globals()["target"]()
#^ calls: main.target
