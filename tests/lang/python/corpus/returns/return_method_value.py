# about: a method returns a bound method of another object; the caller calls it
# path: main.py
class Worker:
    def work(self):
        return 1


class Boss:
    def __init__(self):
        self.worker = Worker()
        #             ^ calls: main.Worker

    def task(self):
        return self.worker.work


Boss().task()()
#^ calls: main.Boss
#^ calls: main.Boss.__init__
#      ^ calls: main.Boss.task
#      ^ calls: main.Worker.work
