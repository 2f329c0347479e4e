# about: a function passed inside a **dict reaches the parameter of that name
# path: main.py
def target():
    pass


def run(cb):
    cb()
   #^ calls: main.target


opts = {"cb": target}
run(**opts)
#^ calls: main.run
