# about: a class decorator that returns a new subclass: constructing the name builds the subclass
# path: app.py
def with_greeting(cls):
    class Greeting(cls):
        def greet(self):
            return "hello " + self.name()
            #                      ^ calls: app.Person.name

    return Greeting


@with_greeting
#^ calls: app.with_greeting
class Person:
    def name(self):
        return "ann"


Person().greet()
#^ calls: app.with_greeting.Greeting
#        ^ calls: app.with_greeting.Greeting.greet
