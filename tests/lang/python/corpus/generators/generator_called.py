# about: a generator function is called where the loop iterates it, and its body's calls are its own
# path: main.py
def step(i):
    return i


def numbers(n):
    for i in range(n):
        yield step(i)
        #     ^ calls: main.step


def run():
    return [x for x in numbers(2)]
    #                   ^ calls: main.numbers


run()
#^ calls: main.run
