# about: a bound method of an instance passed as an argument is called by the callee
# path: main.py
class Greeter:
    def hello(self):
        return "hi"


def call_twice(fn):
    fn()
   #^ calls: main.Greeter.hello
    fn()
   #^ calls: main.Greeter.hello


g = Greeter()
#   ^ calls: main.Greeter
call_twice(g.hello)
#^ calls: main.call_twice
