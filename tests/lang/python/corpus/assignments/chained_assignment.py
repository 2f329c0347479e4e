# about: a chained assignment binds every target to the same function
# path: main.py
def target():
    pass


a = b = target
a()
#^ calls: main.target
b()
#^ calls: main.target
