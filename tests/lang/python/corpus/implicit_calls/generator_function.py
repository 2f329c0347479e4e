# about: calling a generator function and iterating it runs its body
# path: app.py
def fetch(i):
    return i * 2


def items(n):
    for i in range(n):
        yield fetch(i)
        #     ^ calls: app.fetch


def run():
    return [x for x in items(3)]
    #                  ^ calls: app.items


run()
#^ calls: app.run
