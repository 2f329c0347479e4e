# about: a lambda called where it is written
# path: app.py
def greet():
    return "hi"


def run():
    return (lambda: greet())()
    #               ^ calls: app.greet


run()
#^ calls: app.run
