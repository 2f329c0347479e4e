# about: instances stored as dict values: a method of the value read by key is called
# path: main.py
class Cat:
    def speak(self):
        return "meow"


class Dog:
    def speak(self):
        return "woof"


pets = {"c": Cat(), "d": Dog()}
#            ^ calls: main.Cat
#                        ^ calls: main.Dog
pets["c"].speak()
#         ^ calls: main.Cat.speak
