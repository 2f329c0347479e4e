# about: len(x) calls __len__; a truth test of x calls __bool__
# path: app.py
class Queue:
    def __init__(self):
        self.items = [1]

    def __len__(self):
        return len(self.items)
        #      ^ calls: builtins.len

    def __bool__(self):
        return True


def run():
    q = Queue()
    #   ^ calls: app.Queue
    #   ^ calls: app.Queue.__init__
    if q:
    #  ^ calls: app.Queue.__bool__
        return len(q)
        #      ^ calls: builtins.len
        #      ^ calls: app.Queue.__len__
    return 0


run()
#^ calls: app.run
