# about: after isinstance(x, C) the receiver is a C
# path: app.py
class Dog:
    def bark(self):
        return "woof"


class Cat:
    def meow(self):
        return "meow"


def speak(animal):
    if isinstance(animal, Dog):
        return animal.bark()
        #             ^ calls: app.Dog.bark
    if isinstance(animal, Cat):
        return animal.meow()
        #             ^ calls: app.Cat.meow
    return None


speak(Dog())
#^ calls: app.speak
#     ^ calls: app.Dog
speak(Cat())
#^ calls: app.speak
#     ^ calls: app.Cat
