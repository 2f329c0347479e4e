# about: a name rebound inside one function: the call after the rebinding reaches the second function
# path: main.py
def f1():
    pass


def f2():
    pass


def run():
    fn = f1
    fn()
   #^ calls: main.f1
    fn = f2
    fn()
   #^ calls: main.f2


run()
#^ calls: main.run
