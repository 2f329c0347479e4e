# about: a function passed by keyword is called by the callee through that parameter
# path: main.py
def target():
    pass


def run(a=None, cb=None):
    cb()
   #^ calls: main.target


run(cb=target)
#^ calls: main.run
