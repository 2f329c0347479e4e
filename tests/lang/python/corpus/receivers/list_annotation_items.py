# about: items of a list[A] parameter are A
# path: app.py
class Task:
    def run(self):
        return 1


def run_all(tasks: list[Task]):
    return [t.run() for t in tasks]
    #         ^ calls: app.Task.run


run_all([Task(), Task()])
#^ calls: app.run_all
#        ^ calls: app.Task
#                ^ calls: app.Task
