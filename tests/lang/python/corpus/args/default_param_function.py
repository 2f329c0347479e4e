# about: a function given as a parameter's default value is called when no argument is passed,
# about: and the argument is called when one is
# path: main.py
def fallback():
    pass


def custom():
    pass


def run(cb=fallback):
    cb()
   #^ calls: main.fallback
   #^ calls: main.custom


run()
#^ calls: main.run
run(custom)
#^ calls: main.run
