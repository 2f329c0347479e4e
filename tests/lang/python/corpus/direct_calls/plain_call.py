# about: a module-level call of a function, and a function calling another with arguments
# path: main.py
def add(a, b):
    return a + b


def run():
    return add(1, 2)
    #      ^ calls: main.add


run()
#^ calls: main.run
add(3, 4)
#^ calls: main.add
