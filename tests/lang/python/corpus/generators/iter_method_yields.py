# about: a class whose __iter__ is a generator: a loop over an instance runs __iter__, and the
# about: loop variable holds what it yields
# path: main.py
class Task:
    def run(self):
        return 1


class Other:
    def run(self):
        return 2


class Batch:
    def __init__(self):
        self.tasks = [Task()]
        #             ^ calls: main.Task

    def __iter__(self):
        for t in self.tasks:
            yield t


for task in Batch():
#           ^ calls: main.Batch
#           ^ calls: main.Batch.__init__
#           ^ calls: main.Batch.__iter__
    task.run()
    #    ^ calls: main.Task.run
