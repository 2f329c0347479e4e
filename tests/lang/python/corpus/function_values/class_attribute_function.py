# about: a function stored as a class attribute is a method when read through an instance
# path: app.py
def describe(self):
    return "thing"


class Thing:
    label = describe


Thing().label()
#^ calls: app.Thing
#       ^ calls: app.describe
