# about: a function stored and read under a key held by a variable
# path: main.py
def target():
    pass


KEY = "k"
d = {KEY: target}
d[KEY]()
#^ calls: main.target
